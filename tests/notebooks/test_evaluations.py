"""The notebook finds the newest Evaluator output and loads it as TFMA's views take it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# The recorded runs' Evaluator outputs hold no paths: TFMA reads them where they lie.
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "pipeline"
CANDIDATE_AND_BASELINE = [{"name": "candidate"}, {"name": "baseline", "isBaseline": True}]


def _output(folder: Path, execution_id: int, specs: list[dict] | None = None) -> Path:
    """An Evaluator output as far as finding it goes: ``<id>/eval_config.json``."""
    path = folder / str(execution_id)
    path.mkdir(parents=True)
    config = {"evalConfig": {"modelSpecs": specs or CANDIDATE_AND_BASELINE}}
    (path / "eval_config.json").write_text(json.dumps(config))
    return path


def _recorded() -> list[Path]:
    folder = RECORDED / "Evaluator" / "evaluation"
    return sorted(
        (p for p in folder.iterdir() if (p / "eval_config.json").is_file()),
        key=lambda p: int(p.name),
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The Evaluator's output folder of a pipeline root under ``tmp_path``."""
    return tmp_path / "pipeline" / "Evaluator" / "evaluation"


def test_the_newest_is_the_highest_execution_id_whatever_the_file_times(evaluations, folder):
    outputs = [_output(folder, i) for i in (9, 20, 31)]
    # A checkout or a copy leaves file times in any order: make the oldest look newest.
    os.utime(outputs[0] / "eval_config.json", (2e9, 2e9))
    start = folder.parents[2]
    assert evaluations.newest_evaluation(start) == outputs[-1]
    assert evaluations.siblings(outputs[-1]) == outputs
    assert evaluations.siblings(outputs[1]) == outputs[:2]


def test_a_folder_without_eval_config_is_no_output(evaluations, folder):
    newest = _output(folder, 31)
    (folder / "40").mkdir()  # an Evaluator that died before writing
    assert evaluations.newest_evaluation(folder.parents[2]) == newest


def test_across_pipeline_roots_the_last_written_wins(evaluations, tmp_path):
    here = _output(tmp_path / "pipeline" / "Evaluator" / "evaluation", 31)
    there = _output(tmp_path / "spans-demo" / "pipeline" / "Evaluator" / "evaluation", 7)
    os.utime(here / "eval_config.json", (1e9, 1e9))
    os.utime(there / "eval_config.json", (2e9, 2e9))
    assert evaluations.newest_evaluation(tmp_path) == there


def test_the_environment_variable_names_an_output_or_a_folder(evaluations, folder, monkeypatch):
    older, newer = _output(folder, 20), _output(folder, 31)
    monkeypatch.setenv(evaluations.ENV_VAR, str(older))
    assert evaluations.newest_evaluation() == older
    monkeypatch.setenv(evaluations.ENV_VAR, str(folder.parents[2]))
    assert evaluations.newest_evaluation() == newer
    monkeypatch.delenv(evaluations.ENV_VAR)
    assert evaluations.default_start() == evaluations.PROJECT / "outputs"


def test_nothing_to_show_says_what_to_do(evaluations, tmp_path):
    with pytest.raises(FileNotFoundError, match="make run"):
        evaluations.newest_evaluation(tmp_path)


def test_the_candidate_is_named_or_alone(evaluations, folder):
    assert evaluations.candidate_name(_output(folder, 1)) == "candidate"
    assert evaluations.candidate_name(_output(folder, 2, [{"name": "candidate"}])) == "candidate"
    assert evaluations.candidate_name(_output(folder, 3, [{"labelKey": "big_tip_xf"}])) == ""


def test_the_views_render_from_the_recorded_outputs(evaluations):
    import tensorflow_model_analysis as tfma

    outputs = _recorded()
    assert len(outputs) >= 2
    result = evaluations.load(outputs[-1])
    # The notebook slices by the columns the output's config names, not the taxi table's.
    columns = evaluations.slice_columns(outputs[-1])
    assert columns == ["payment_type", "trip_start_hour", "company"]
    assert set(columns) <= {column for key in result.get_slice_names() for column, _ in key}
    sliced = tfma.view.render_slicing_metrics(result, slicing_column=columns[0])
    assert sliced.data and all("auc" in row["metrics"][""][""] for row in sliced.data)
    plot = tfma.view.render_plot(result)
    assert plot.config["sliceName"] == "Overall" and "calibrationHistogramBuckets" in plot.data
    series = tfma.view.render_time_series(evaluations.load_series(outputs))
    assert len(series.data) == len(outputs) and series.config == {"isModelCentric": True}
