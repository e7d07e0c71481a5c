"""ServingBaseline reads what the Pusher published: the model serving and its data's statistics."""

from pathlib import Path

import pytest
import tensorflow as tf
from conftest import save_scaler
from tfx import v1 as tfx
from tfx.types import artifact_utils

from components.atomic_pusher import push_model
from components.gating_validator import _holds_other_train_split
from components.serving_baseline import ServingBaseline, serving_version

_artifacts = tfx.types.standard_artifacts


def _statistics(folder: Path, content: bytes) -> str:
    folder.mkdir(parents=True)
    (folder / "FeatureStats.pb").write_bytes(content)
    return str(folder)


def _baseline(serving_dir: Path, out: Path) -> tuple[tfx.dsl.Artifact, tfx.dsl.Artifact]:
    """Run ServingBaseline's executor on ``serving_dir``; its model and statistics outputs."""
    model, statistics = _artifacts.Model(), _artifacts.ExampleStatistics()
    model.uri, statistics.uri = str(out / "model"), str(out / "statistics")
    executor = ServingBaseline.EXECUTOR_SPEC.executor_class()
    executor.Do(
        {}, {"model": [model], "statistics": [statistics]}, {"serving_dir": str(serving_dir)}
    )
    return model, statistics


def test_nothing_serving_gives_empty_outputs_that_say_so(tmp_path):
    model, statistics = _baseline(tmp_path / "serving", tmp_path / "out")
    assert serving_version(model) == "" and serving_version(statistics) == ""
    assert artifact_utils.decode_split_names(statistics.split_names) == []
    assert not (tmp_path / "out" / "model").exists()


def test_the_newest_version_and_its_training_statistics_are_copied(tmp_path):
    serving = tmp_path / "serving"
    push_model(save_scaler(tmp_path / "a", 1.0), str(serving), now=1_700_000_000)
    newest = push_model(
        save_scaler(tmp_path / "b", 2.0),
        str(serving),
        now=1_700_000_001,
        train_statistics_dir=_statistics(tmp_path / "stats", b"train statistics"),
    )
    model, statistics = _baseline(serving, tmp_path / "out")
    assert serving_version(model) == serving_version(statistics) == newest.version == "1700000001"
    loaded = tf.saved_model.load(str(Path(model.uri) / "Format-Serving"))
    assert loaded.f(tf.constant(1.0)).numpy() == 2.0
    assert artifact_utils.decode_split_names(statistics.split_names) == ["train"]
    copied = Path(statistics.uri) / "Split-train" / "FeatureStats.pb"
    assert copied.read_bytes() == b"train statistics"


def test_a_version_pushed_without_statistics_gives_no_drift_reference(tmp_path):
    serving = tmp_path / "serving"
    push_model(save_scaler(tmp_path / "a", 1.0), str(serving), now=1_700_000_000)
    model, statistics = _baseline(serving, tmp_path / "out")
    assert serving_version(model) == "1700000000"
    assert artifact_utils.decode_split_names(statistics.split_names) == []
    this_run = _artifacts.ExampleStatistics()
    this_run.id = 1
    statistics.id = 2
    assert not _holds_other_train_split([statistics], this_run)


@pytest.mark.parametrize(
    ("version", "splits", "compared"),
    [("1700000000", ["train"], True), ("", [], False), (None, ["train", "eval"], True)],
)
def test_the_validator_compares_only_with_another_train_split(version, splits, compared):
    previous, current = _artifacts.ExampleStatistics(), _artifacts.ExampleStatistics()
    previous.id, current.id = 2, 1
    previous.split_names = artifact_utils.encode_split_names(splits)
    if version is not None:  # None: a Resolver's artifact (Vertex), without the property
        previous.set_string_custom_property("serving_version", version)
    assert _holds_other_train_split([previous], current) is compared
    assert not _holds_other_train_split([current], current)  # a Resolver found this run's own
    assert not _holds_other_train_split([], current)
