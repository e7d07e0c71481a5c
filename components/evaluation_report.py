"""EvaluationReport: the evaluation review as an HTML artifact of every run.

TFMA's own viewers need a notebook; this component writes the same review the
``wide-deep-review`` command prints, as one self-contained page
beside the model, so a Kubeflow user can open it from the run's artifacts.
"""

# No `from __future__ import annotations`: TFX's @component reads the real type hints.
import os

from tfx import v1 as tfx
from tfx.v1.dsl.components import InputArtifact, OutputArtifact

from components.evaluation_review import load_review
from components.properties import outcome_of
from components.review_html import render_html

REPORT_FILE = "report.html"
_artifacts = tfx.types.standard_artifacts


class HtmlReport(tfx.dsl.Artifact):
    """A directory holding ``report.html``."""

    # On Kubeflow, TFX's entry point imports a custom artifact class by its type name,
    # which its compiler takes only as "<namespace>.<Title>": see components/__init__.py.
    TYPE_NAME = "components.HtmlReport"


@tfx.dsl.components.component
def EvaluationReport(  # noqa: N802 - TFX names the component after the function
    evaluation: InputArtifact[_artifacts.ModelEvaluation],
    blessing: InputArtifact[_artifacts.ModelBlessing],
    pushed_model: InputArtifact[_artifacts.PushedModel],
    report: OutputArtifact[HtmlReport],
) -> None:
    """Write the evaluation review (verdict, curves, metrics by slice) as report.html."""
    review = load_review(
        evaluation.uri, outcome_of(blessing.mlmd_artifact, pushed_model.mlmd_artifact)
    )
    # fileio, not pathlib: on Kubeflow the artifact lives in gs:// or s3://.
    tfx.dsl.io.fileio.makedirs(report.uri)
    with tfx.dsl.io.fileio.open(os.path.join(report.uri, REPORT_FILE), "w") as f:
        f.write(render_html(review))
