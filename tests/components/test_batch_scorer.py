"""BatchScorer scores a span with the model ServingBaseline found, as wide-deep-score does."""

import csv
import json
import shutil
from pathlib import Path

import pytest
from conftest import SHIPPED_CSV
from tfx import v1 as tfx

from components.batch_scorer import BatchScorer, span_files
from components.serving_baseline import ServingBaseline
from data_layout.spans import SUCCESS_MARKER
from datasets.taxi import DATASET as TAXI

_artifacts = tfx.types.standard_artifacts


def _land(root: Path, span: int, rows: list[dict[str, str]], complete: bool = True) -> Path:
    folder = root / f"span-{span}"
    folder.mkdir(parents=True)
    for part, chunk in enumerate((rows[: len(rows) // 2], rows[len(rows) // 2 :])):
        with (folder / f"part-{part}.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, list(rows[0]))
            writer.writeheader()
            writer.writerows(chunk)
    if complete:
        (folder / SUCCESS_MARKER).touch()
    return folder


@pytest.fixture
def data_root(tmp_path) -> Path:
    """Spans 0 and 1 complete, span 2 still being written."""
    with SHIPPED_CSV.open(newline="") as f:
        rows = [row for _, row in zip(range(3000), csv.DictReader(f), strict=False)]
    root = tmp_path / "data"
    for span, (start, end) in enumerate(((0, 1000), (1000, 2200), (2200, 3000))):
        _land(root, span, rows[start:end], complete=span < 2)
    return root


def _serving_model(serving_dir: Path, out: Path) -> tfx.dsl.Artifact:
    """ServingBaseline's model output for ``serving_dir``, as its executor writes it."""
    model, statistics = _artifacts.Model(), _artifacts.ExampleStatistics()
    model.uri, statistics.uri = str(out / "model"), str(out / "statistics")
    executor = ServingBaseline.EXECUTOR_SPEC.executor_class()
    executor.Do(
        {}, {"model": [model], "statistics": [statistics]}, {"serving_dir": str(serving_dir)}
    )
    return model


def _score(
    model: tfx.dsl.Artifact, root: Path, span: str, out: Path
) -> dict[str, tfx.dsl.Artifact]:
    scores = BatchScorer.SPEC_CLASS.OUTPUTS["scores"].type()
    skew = BatchScorer.SPEC_CLASS.OUTPUTS["skew_report"].type()
    scores.uri, skew.uri = str(out / "scores"), str(out / "skew")
    outputs = {"scores": [scores], "skew_report": [skew]}
    properties = {"data_root": str(root), "span": span, "dataset": TAXI.name}
    BatchScorer.EXECUTOR_SPEC.executor_class().Do({"model": [model]}, outputs, properties)
    return {"scores": scores, "skew_report": skew}


def test_latest_is_the_newest_complete_span_and_its_files_in_name_order(data_root):
    span, files = span_files(str(data_root), "latest")
    assert span == 1
    assert [Path(f).name for f in files] == ["part-0.csv", "part-1.csv"]
    assert span_files(str(data_root), "0")[0] == 0


@pytest.mark.slow  # trains the session's model where no test before it did
def test_the_newest_span_is_scored_with_the_serving_version(served_model, data_root, tmp_path):
    shutil.copytree(served_model, tmp_path / "serving" / "7")
    model = _serving_model(tmp_path / "serving", tmp_path / "baseline")
    made = _score(model, data_root, "latest", tmp_path / "out")
    with (tmp_path / "out" / "scores" / "scores.csv").open() as f:
        scores = list(csv.DictReader(f))
    assert len(scores) == 1200  # span 1's rows, both files, in order
    assert set(scores[0]) == {TAXI.prediction_key, "predicted_label"}
    assert all(0.0 <= float(r[TAXI.prediction_key]) <= 1.0 for r in scores)
    for artifact in made.values():
        assert artifact.get_int_custom_property("span") == 1
        assert artifact.get_string_custom_property("serving_version") == "7"
        assert artifact.get_int_custom_property("scored_rows") == 1200
    report = json.loads((tmp_path / "out" / "skew" / "skew.json").read_text())
    assert report["scored_rows"] == 1200
    assert "keeps no training statistics" in report["note"]  # this model was not pushed
    assert (tmp_path / "out" / "skew" / "FeatureStats.pb").stat().st_size > 1000


def test_nothing_serving_fails_the_step_with_one_line(data_root, tmp_path):
    model = _serving_model(tmp_path / "no-serving", tmp_path / "baseline")
    with pytest.raises(ValueError, match="^no model serves yet: run the training pipeline first$"):
        _score(model, data_root, "latest", tmp_path / "out")
    assert not (tmp_path / "out" / "scores" / "scores.csv").exists()
