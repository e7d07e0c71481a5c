"""The config: what resolve fills in (the dataset's defaults, the caches under the pipeline
root, the run's hyperparameters over the dataset's), and that it is only a config: no
dataset read at import, nothing written into it after it is made."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from datasets.credit_data import DATASET as CREDIT
from datasets.taxi import DATASET as TAXI
from modules.hparams import HParams
from pipeline_def.config import FILLED_BY_RESOLVE, PipelineConfig
from pipeline_def.project_paths import PROJECT_ROOT


def _config(tmp_path, **settings) -> PipelineConfig:
    return PipelineConfig.resolve(
        pipeline_root=str(tmp_path / "root"),
        data_root=str(tmp_path / "data"),
        serving_dir=str(tmp_path / "serving"),
        dataset="credit_data",
        **settings,
    )


def test_a_datasets_hyperparameters_fill_what_the_run_did_not_set(tmp_path):
    assert _config(tmp_path).hparams == HParams().overridden(CREDIT.hparams)
    assert PipelineConfig.resolve("r", "d", "s").hparams == HParams()  # the taxi declares none


def test_a_runs_hyperparameter_wins_even_at_the_global_default(tmp_path):
    # credit_data's wide rate is 0.005; asking for HParams' default 0.02 gets 0.02.
    assert CREDIT.hparams["wide_learning_rate"] != HParams().wide_learning_rate
    hparams = _config(tmp_path, hparam_overrides=(("wide_learning_rate", 0.02),)).hparams
    assert hparams.wide_learning_rate == 0.02
    assert hparams.batch_size == CREDIT.hparams["batch_size"]  # the others stay the dataset's


def test_a_bad_run_hyperparameter_is_named(tmp_path):
    with pytest.raises(ValueError, match="btach_size"):
        _config(tmp_path, hparam_overrides=(("btach_size", 32),))


def test_resolve_builds_the_config_one_would_write_out_in_full():
    # Frozen and final: what resolve fills in is passed to the constructor, the same
    # values a caller could give by hand, and nothing is written into it afterwards.
    resolved = PipelineConfig.resolve("gs://b/root/", "gs://b/data", "gs://b/serving")
    explicit = PipelineConfig(
        pipeline_root="gs://b/root/",
        data_root="gs://b/data",
        serving_dir="gs://b/serving",
        pipeline_name="taxi-wide-deep",
        span_cache="gs://b/root/encoded-spans",
        analyzer_cache="gs://b/root/analyzer-cache",
        curated_schema="datasets/taxi/schema.pbtxt",
        min_auc=TAXI.min_auc,
        hparams=HParams(),
    )
    assert resolved == explicit
    assert (PROJECT_ROOT / resolved.curated_schema).is_file()


def test_what_a_run_sets_is_kept_and_the_rest_filled_in(tmp_path):
    config = _config(tmp_path, pipeline_name="mine", min_auc=0.0, span_cache="elsewhere")
    assert (config.pipeline_name, config.min_auc, config.span_cache) == ("mine", 0.0, "elsewhere")
    assert config.analyzer_cache == f"{tmp_path / 'root'}/analyzer-cache"
    assert config.curated_schema == "datasets/credit_data/schema.pbtxt"
    assert _config(tmp_path).min_auc == CREDIT.min_auc


def test_a_config_with_a_default_left_unset_is_refused():
    with pytest.raises(ValueError, match=", ".join(FILLED_BY_RESOLVE) + ", hparams unset"):
        PipelineConfig(pipeline_root="r", data_root="d", serving_dir="s")
    full = PipelineConfig.resolve("r", "d", "s")
    with pytest.raises(ValueError, match="^min_auc unset"):
        dataclasses.replace(full, min_auc=None)


def test_hparams_are_worked_out_not_given():
    with pytest.raises(TypeError, match="hparam_overrides"):
        PipelineConfig.resolve("r", "d", "s", hparams=HParams())


def test_the_config_cannot_be_changed_once_made():
    config = PipelineConfig.resolve("r", "d", "s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.pipeline_name = "other"  # type: ignore[misc]


def test_importing_the_config_reads_no_dataset():
    # A dataset's declaration is read when a config is resolved, never at import.
    probe = (
        "import sys, pipeline_def.config; "
        "print(sorted(m for m in sys.modules if m.startswith('datasets.')))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "[]"
