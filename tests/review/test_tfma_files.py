"""TFMA's output read without TFMA: the same messages TFMA's own loaders read, field for field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tensorflow_model_analysis as tfma
from conftest import RECORDED_RUNS
from fresh_process import printed_by
from tensorflow_model_analysis.proto import config_pb2
from tensorflow_model_analysis.writers import eval_config_writer

from data_layout.tfrecord_files import CorruptRecordError
from review import tfma_files

EVALUATIONS = sorted((RECORDED_RUNS / "pipeline" / "Evaluator" / "evaluation").iterdir())


def _serialized(messages) -> list[bytes]:
    return [m.SerializeToString(deterministic=True) for m in messages]


@pytest.mark.parametrize("evaluation", EVALUATIONS, ids=lambda p: p.name)
def test_every_record_is_what_tfma_reads(evaluation):
    uri = str(evaluation)
    assert _serialized(tfma_files.load_metrics(uri)) == _serialized(tfma.load_metrics(uri))
    assert _serialized(tfma_files.load_plots(uri)) == _serialized(tfma.load_plots(uri))
    assert _serialized([tfma_files.load_validation_result(uri)]) == _serialized(
        [tfma.load_validation_result(uri)]
    )
    config, _, _, locations = eval_config_writer.load_eval_run(uri)
    run = tfma_files.load_eval_run(uri)
    assert _serialized([run.eval_config]) == _serialized([config])
    assert dict(run.model_locations) == dict(locations) and locations


def test_an_enum_value_is_tfma_s_number():
    higher = tfma_files.enum_value("MetricDirection", "HIGHER_IS_BETTER")
    assert higher == config_pb2.MetricDirection.HIGHER_IS_BETTER != 0


@pytest.fixture
def evaluation(tmp_path) -> Path:
    """A recorded evaluation folder, copied to be altered."""
    return Path(shutil.copytree(EVALUATIONS[0], tmp_path / "evaluation"))


def test_a_damaged_metrics_file_is_named(evaluation):
    (metrics,) = evaluation.glob("metrics-*")
    metrics.write_bytes(metrics.read_bytes()[:-100])

    with pytest.raises(CorruptRecordError, match=rf"{metrics}: cut short"):
        list(tfma_files.load_metrics(str(evaluation)))


def test_an_evaluation_without_its_validation_or_config_is_named(evaluation):
    (validations,) = evaluation.glob("validations*")
    validations.unlink()
    with pytest.raises(tfma_files.TfmaOutputError, match="0 validation records where TFMA"):
        tfma_files.load_validation_result(str(evaluation))

    (evaluation / "eval_config.json").unlink()
    with pytest.raises(tfma_files.TfmaOutputError, match=r"eval_config\.json: missing"):
        tfma_files.load_eval_run(str(evaluation))


def test_reading_imports_neither_tfma_nor_tensorflow_nor_beam():
    printed = printed_by(
        "import sys\n"
        "from review import tfma_files\n"
        f"print(len(list(tfma_files.load_metrics({str(EVALUATIONS[0])!r}))))\n"
        "print(*sorted({'tensorflow', 'tensorflow_model_analysis', 'apache_beam'}"
        " & set(sys.modules)) or ['none'])\n"
    )
    assert int(printed[0]) > 1 and printed[1:] == ["none"]
