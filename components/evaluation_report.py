"""EvaluationReport: the evaluation review as an HTML page of every run, and its headline.

TFMA's own viewers need a notebook; this component writes the same review the
``wide-deep-review`` command prints, as one self-contained page beside the model, and
the headline figures as scalar metrics. Both are typed so that the Kubeflow Pipelines
UI draws them in the run's Visualizations (``kubeflow/step/ui.py``).

The page names its pipeline, its span and its run, by the id ``wide-deep-review``
names runs by: the pipeline run's id (the name of the run's context in ML-Metadata).
TFX's local runner gives it to the executor. TFX's Kubeflow entry point gives it none
(``kubeflow_v2_run_executor`` builds the executor's context without it), and its
compiler takes no placeholder but a channel's for a parameter; KFP's driver does
substitute a parameter whose constant is ``{{$.pipeline_job_uuid}}`` with the run's
id (``backend/src/v2/driver``, resolve.go), which also names the run's context there.
So the component is built with that constant, and its executor takes the local
runner's id wherever the constant arrives as it was written.
"""

# No `from __future__ import annotations`: TFX's @component reads the real type hints.
from dataclasses import replace
from typing import Any

from tfx import v1 as tfx
from tfx.dsl.components.base.executor_spec import ExecutorClassSpec
from tfx.v1.dsl.components import InputArtifact, OutputArtifact, Parameter

from data_layout.properties import outcome_of, span_record
from kubeflow.step.ui import HTML, Metrics
from review.evaluation import load_review
from review.page import render_html
from review.paired_comparison import GATED_METRIC
from review.records import Review, named_span

_artifacts = tfx.types.standard_artifacts
# The candidate's whole-split metrics shown beside the verdict, as TFMA names them.
HEADLINE = (GATED_METRIC, "auc_pr", "binary_accuracy", "example_count")
# The parameter KFP's driver (and Vertex AI's) replaces with the run's id.
KFP_RUN_ID = "{{$.pipeline_job_uuid}}"
RUN_ID = "run_id"


def _headline(review: Review, metrics: Metrics) -> None:
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
def evaluation_report(
    evaluation: InputArtifact[_artifacts.ModelEvaluation],
    blessing: InputArtifact[_artifacts.ModelBlessing],
    pushed_model: InputArtifact[_artifacts.PushedModel],
    examples: InputArtifact[_artifacts.Examples],
    report: OutputArtifact[HTML],
    headline: OutputArtifact[Metrics],
    pipeline_name: Parameter[str] = "",
    run_id: Parameter[str] = "",
) -> None:
    """Write the evaluation review (verdict, slices, curves) as a page, and its headline."""
    review = load_review(
        evaluation.uri,
        outcome_of(blessing.mlmd_artifact, pushed_model.mlmd_artifact),
        run_id=run_id or None,
    )
    spans = span_record(examples.mlmd_artifact)
    review = replace(
        review, pipeline=pipeline_name or None, span=named_span(spans.span, spans.window)
    )
    report.write(render_html(review))
    _headline(review, headline)


class EvaluationReportExecutor(evaluation_report.EXECUTOR_SPEC.executor_class):
    """The function's executor, handed the run's id by whichever orchestrator has it."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[Any]],
        output_dict: dict[str, list[Any]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Write the report, its ``run_id`` the orchestrator's."""
        given = exec_properties.get(RUN_ID) or ""
        if given in ("", KFP_RUN_ID):  # not a KFP run, or a KFP that did not substitute
            given = (self._context and self._context.pipeline_run_id) or ""
        super().Do(input_dict, output_dict, {**exec_properties, RUN_ID: given})


class EvaluationReport(evaluation_report):
    """The report step: its type and node id ``EvaluationReport``, as the pipeline names it."""

    EXECUTOR_SPEC = ExecutorClassSpec(EvaluationReportExecutor)

    def __init__(self, **kwargs: Any) -> None:
        """The component of these inputs and parameters, its ``run_id`` KFP's by default."""
        # A constant, not a placeholder: the Kubeflow compiler refuses other placeholders
        # in a parameter, and the local runner leaves the constant to the executor.
        kwargs.setdefault(RUN_ID, KFP_RUN_ID)
        super().__init__(**kwargs)
