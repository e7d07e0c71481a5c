"""EvaluationReport: the evaluation review as an HTML page of every run, and its headline.

TFMA's own viewers need a notebook; this component writes the same review the
``wide-deep-review`` command prints, as one self-contained page beside the model, and
the headline figures as scalar metrics. Both are typed so that the Kubeflow Pipelines
UI draws them in the run's Visualizations (``components/kfp_ui.py``).
"""

# No `from __future__ import annotations`: TFX's @component reads the real type hints.
from dataclasses import replace

from tfx import v1 as tfx
from tfx.v1.dsl.components import InputArtifact, OutputArtifact, Parameter

from components import kfp_ui
from data_layout.properties import outcome_of, span_record
from review.evaluation import Review, load_review, named_span
from review.page import render_html
from review.paired_comparison import GATED_METRIC

_artifacts = tfx.types.standard_artifacts
# The candidate's whole-split metrics shown beside the verdict, as TFMA names them.
HEADLINE = (GATED_METRIC, "auc_pr", "binary_accuracy", "example_count")


def _headline(review: Review, metrics: kfp_ui.Metrics) -> None:
    """The verdict and the candidate's headline figures as the artifact's properties."""
    metrics.set_float_custom_property("blessed", 1.0 if review.blessed else 0.0)
    for name in HEADLINE:
        value = review.overall.get(name)
        if value is not None:
            metrics.set_float_custom_property(name, value)
    overall = next((c for c in review.changes if c.column is None), None)
    if overall is None or overall.low is None or overall.serving_auc is None:
        return  # nothing served, or too few of a class for an interval
    metrics.set_float_custom_property("serving_auc", overall.serving_auc)
    metrics.set_float_custom_property("auc_change_low", overall.low)
    metrics.set_float_custom_property("auc_change_high", overall.high)


@tfx.dsl.components.component
def EvaluationReport(  # noqa: N802 - TFX names the component after the function
    evaluation: InputArtifact[_artifacts.ModelEvaluation],
    blessing: InputArtifact[_artifacts.ModelBlessing],
    pushed_model: InputArtifact[_artifacts.PushedModel],
    examples: InputArtifact[_artifacts.Examples],
    report: OutputArtifact[kfp_ui.HTML],
    headline: OutputArtifact[kfp_ui.Metrics],
    pipeline_name: Parameter[str] = "",
) -> None:
    """Write the evaluation review (verdict, slices, curves) as a page, and its headline."""
    review = load_review(
        evaluation.uri, outcome_of(blessing.mlmd_artifact, pushed_model.mlmd_artifact)
    )
    spans = span_record(examples.mlmd_artifact)
    review = replace(
        review, pipeline=pipeline_name or None, span=named_span(spans.span, spans.window)
    )
    report.write(render_html(review))
    _headline(review, headline)
