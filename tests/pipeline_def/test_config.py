"""The config's derived settings: a run's hyperparameters over its dataset's own."""

from __future__ import annotations

import pytest

from modules.datasets.credit_data import DATASET as CREDIT
from modules.hparams import HParams
from pipeline_def.config import PipelineConfig


def _config(tmp_path, **settings) -> PipelineConfig:
    return PipelineConfig(
        pipeline_root=str(tmp_path / "root"),
        data_root=str(tmp_path / "data"),
        serving_dir=str(tmp_path / "serving"),
        dataset="credit_data",
        **settings,
    )


def test_a_datasets_hyperparameters_fill_what_the_run_did_not_set(tmp_path):
    assert _config(tmp_path).hparams == HParams().overridden(CREDIT.hparams)
    assert PipelineConfig("r", "d", "s").hparams == HParams()  # the taxi declares none


def test_a_runs_hyperparameter_wins_even_at_the_global_default(tmp_path):
    # credit_data's wide rate is 0.005; asking for HParams' default 0.02 gets 0.02.
    assert CREDIT.hparams["wide_learning_rate"] != HParams().wide_learning_rate
    hparams = _config(tmp_path, hparam_overrides=(("wide_learning_rate", 0.02),)).hparams
    assert hparams.wide_learning_rate == 0.02
    assert hparams.batch_size == CREDIT.hparams["batch_size"]  # the others stay the dataset's


def test_a_bad_run_hyperparameter_is_named(tmp_path):
    with pytest.raises(ValueError, match="btach_size"):
        _config(tmp_path, hparam_overrides=(("btach_size", 32),))
