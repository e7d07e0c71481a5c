"""The notebook finds the newest Evaluator output and loads it as TFMA's views take it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# The recorded runs' Evaluator outputs hold no paths: TFMA reads them where they lie.
RECORDED_EVALUATIONS = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "pipeline"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the recorded runs' Evaluator outputs (ids 9, 20 and 31 of one store)."""
    shutil.copytree(RECORDED_EVALUATIONS, tmp_path / "pipeline")
    return tmp_path


def _evaluation_folder(root: Path) -> Path:
    return root / "pipeline" / "Evaluator" / "evaluation"


def test_the_newest_is_the_highest_execution_id_whatever_the_file_times(evaluations, root):
    folder = _evaluation_folder(root)
    # A checkout or a copy leaves file times in any order: make the oldest look newest.
    os.utime(folder / "9" / "eval_config.json", (2e9, 2e9))
    assert evaluations.newest_evaluation(root) == folder / "31"
    assert [p.name for p in evaluations.siblings(folder / "31")] == ["9", "20", "31"]
    assert [p.name for p in evaluations.siblings(folder / "20")] == ["9", "20"]


def test_a_folder_without_eval_config_is_no_output(evaluations, root):
    (_evaluation_folder(root) / "40").mkdir()  # an Evaluator that died before writing
    assert evaluations.newest_evaluation(root).name == "31"


def test_across_pipeline_roots_the_last_written_wins(evaluations, root):
    other = root / "spans-demo"
    shutil.copytree(RECORDED_EVALUATIONS, other / "pipeline")
    os.utime(_evaluation_folder(root) / "31" / "eval_config.json", (1e9, 1e9))
    os.utime(_evaluation_folder(other) / "31" / "eval_config.json", (2e9, 2e9))
    assert evaluations.newest_evaluation(root) == _evaluation_folder(other) / "31"


def test_the_environment_variable_names_an_output_or_a_folder(evaluations, root, monkeypatch):
    one = _evaluation_folder(root) / "20"
    monkeypatch.setenv(evaluations.ENV_VAR, str(one))
    assert evaluations.newest_evaluation() == one
    monkeypatch.setenv(evaluations.ENV_VAR, str(root))
    assert evaluations.newest_evaluation().name == "31"
    monkeypatch.delenv(evaluations.ENV_VAR)
    assert evaluations.default_start() == evaluations.PROJECT / "outputs"


def test_nothing_to_show_says_what_to_do(evaluations, tmp_path):
    with pytest.raises(FileNotFoundError, match="make run"):
        evaluations.newest_evaluation(tmp_path)


def test_the_candidate_is_named_or_alone(evaluations):
    folder = RECORDED_EVALUATIONS / "Evaluator" / "evaluation"
    assert evaluations.candidate_name(folder / "9") == ""  # nothing served: one model
    assert evaluations.candidate_name(folder / "31") == "candidate"


def test_the_views_render_from_the_loaded_results(evaluations):
    import tensorflow_model_analysis as tfma

    folder = RECORDED_EVALUATIONS / "Evaluator" / "evaluation"
    outputs = evaluations.siblings(folder / "31")
    result = evaluations.load(outputs[-1])
    assert {"payment_type", "trip_start_hour", "company"} <= {
        column for key in result.get_slice_names() for column, _ in key
    }
    sliced = tfma.view.render_slicing_metrics(result, slicing_column="payment_type")
    assert sliced.data and all("auc" in row["metrics"][""][""] for row in sliced.data)
    plot = tfma.view.render_plot(result)
    assert plot.config["sliceName"] == "Overall" and "calibrationHistogramBuckets" in plot.data
    series = tfma.view.render_time_series(evaluations.load_series(outputs))
    assert len(series.data) == 3 and series.config == {"isModelCentric": True}
