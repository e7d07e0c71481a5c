"""The report step's page names its pipeline, run and span, as the review command's does.

Its executor runs here on a recorded run's artifacts (tests/fixtures/runs), handed the
run id as each orchestrator hands it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tfx.dsl.components.base.base_executor import BaseExecutor
from tfx.types import standard_artifacts

from components.evaluation_report import KFP_RUN_ID, EvaluationReportExecutor
from data_layout.properties import WINDOW_PROPERTY
from kubeflow.step.ui import HTML, Metrics
from pipeline_def import node_ids
from pipeline_def.config import PipelineConfig
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_def.pipeline import create_pipeline
from pipeline_ops import commands
from pipeline_ops.cli import review_run
from pipeline_ops.metadata.runs import PipelineRun, find_run
from pipeline_ops.metadata.store import open_store

PIPELINE = "taxi-wide-deep"


def _recorded(recorded_runs, run_id: str) -> PipelineRun:
    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    return find_run(store, PIPELINE, run_id)


def _inputs(run: PipelineRun) -> dict[str, list]:
    """The report's inputs, as the run's artifacts the orchestrator hands the executor."""
    made = {
        "evaluation": (standard_artifacts.ModelEvaluation, node_ids.EVALUATOR, "evaluation"),
        "blessing": (standard_artifacts.ModelBlessing, node_ids.EVALUATOR, "blessing"),
        "pushed_model": (standard_artifacts.PushedModel, node_ids.PUSHER, "pushed_model"),
        "examples": (standard_artifacts.Examples, node_ids.EXAMPLE_GEN, "examples"),
    }
    inputs = {}
    for key, (kind, node, output) in made.items():
        artifact = kind()
        artifact.set_mlmd_artifact(run.output(node, output))
        inputs[key] = [artifact]
    return inputs


def _page(run: PipelineRun, folder: Path, given: str, context_run_id: str | None) -> str:
    """The page the executor writes with parameter ``run_id`` = ``given``."""
    report, headline = HTML(), Metrics()
    report.uri, headline.uri = str(folder / "report"), str(folder / "headline")
    executor = EvaluationReportExecutor(BaseExecutor.Context(pipeline_run_id=context_run_id))
    parameters = {"pipeline_name": PIPELINE, "run_id": given}
    executor.Do(_inputs(run), {"report": [report], "headline": [headline]}, parameters)
    return Path(report.uri).read_text()


def _header(page: str) -> str:
    """The page's title line and the line of facts under it."""
    return re.search(r"<h1>.*?</h1><p class='run' id='run'>.*?</p>", page).group(0)


def test_the_page_names_the_run_as_the_review_command_does(recorded_runs, tmp_path, capsys):
    run = _recorded(recorded_runs, recorded_runs.worse)
    # The local runner: the constant reaches the executor unsubstituted, the id by context.
    page = _page(run, tmp_path, KFP_RUN_ID, run.run_id)
    header = _header(page)
    assert f"pipeline <b>{PIPELINE}</b>" in header
    assert f"run <b>{run.run_id}</b>" in header
    assert "span <b>none (a flat data root)</b>" in header
    assert f"<title>Evaluation review: {PIPELINE}, run {run.run_id}, " in page
    # wide-deep-review --html names the run alike.
    reviewed = tmp_path / "review.html"
    flags = ["--output-dir", str(recorded_runs.output_dir), "--run", run.run_id]
    assert review_run.main([*flags, "--html", str(reviewed)]) == commands.EXIT_OK
    capsys.readouterr()
    assert _header(reviewed.read_text()) == header


@pytest.mark.parametrize(
    ("given", "named"),
    [
        # KFP's driver substituted the constant: the KFP run's id.
        ("0b6f1c4e-5b1d-4d7e-9f55-3c1f9d6f2a10", "0b6f1c4e-5b1d-4d7e-9f55-3c1f9d6f2a10"),
        # A KFP that did not substitute it, and TFX's entry point gives no id: said so.
        (KFP_RUN_ID, "not recorded"),
    ],
    ids=["kfp", "unsubstituted"],
)
def test_on_kubeflow_the_page_names_the_kfp_run(recorded_runs, tmp_path, given, named):
    run = _recorded(recorded_runs, recorded_runs.good)
    header = _header(_page(run, tmp_path, given, context_run_id=None))
    assert f"run <b>{named}</b>" in header and "{{" not in header


def test_a_run_of_span_folders_names_its_span(recorded_runs, tmp_path):
    run = _recorded(recorded_runs, recorded_runs.good)
    # As ExampleGen records a run of span 2 trained on the window of spans 1 and 2.
    examples = run.output(node_ids.EXAMPLE_GEN, "examples")
    examples.properties["span"].int_value = 2
    window = [{"span": 1, "rows": 2400}, {"span": 2, "rows": 2500}]
    examples.custom_properties[WINDOW_PROPERTY].string_value = json.dumps(window)
    header = _header(_page(run, tmp_path, KFP_RUN_ID, run.run_id))
    assert f"run <b>{run.run_id}</b> · span <b>2</b> · " in header


def test_the_pipeline_builds_the_step_with_kfps_run_id_parameter(tmp_path):
    config = PipelineConfig.resolve(
        pipeline_root=str(tmp_path / "root"),
        data_root=str(tmp_path / "data"),
        serving_dir=str(tmp_path / "serving"),
    )
    (step,) = [c for c in create_pipeline(config).components if c.id == node_ids.REPORT]
    assert step.exec_properties["run_id"] == KFP_RUN_ID
    assert step.exec_properties["pipeline_name"] == config.pipeline_name
    # The type ML-Metadata records for it, as before; the executor the one that takes the id.
    assert step.type == "components.evaluation_report.EvaluationReport"
    assert step.executor_spec.executor_class is EvaluationReportExecutor
