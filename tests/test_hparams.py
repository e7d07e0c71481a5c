import pytest

from modules.hparams import HParams


def test_defaults_without_custom_config():
    assert HParams.from_custom_config(None) == HParams()
    assert HParams.from_custom_config({}) == HParams()


def test_overrides_round_trip_through_custom_config():
    hp = HParams.with_overrides({"batch_size": 64, "hidden_units": [32, 16], "dropout": 0})
    assert hp.batch_size == 64
    assert hp.hidden_units == (32, 16)
    assert hp.dropout == 0.0
    assert HParams.from_custom_config(hp.to_custom_config()) == hp


def test_unknown_name_is_rejected_with_its_name():
    with pytest.raises(ValueError, match="btach_size"):
        HParams.with_overrides({"btach_size": 64})


def test_wrong_type_is_rejected_with_its_name():
    with pytest.raises(ValueError, match="batch_size.*int"):
        HParams.with_overrides({"batch_size": "64"})
