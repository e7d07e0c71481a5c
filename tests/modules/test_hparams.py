import pytest

from modules.hparams import SEARCH_SPACE, HParams


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


def test_tuned_values_apply_over_the_configured_ones_and_none_changes_nothing():
    configured = HParams.with_overrides({"batch_size": 64})
    config = {"space": [], "values": {"dropout": 0.3, "max_embedding_dim": 8}}
    tuned = configured.tuned(config)
    assert (tuned.dropout, tuned.max_embedding_dim, tuned.batch_size) == (0.3, 8, 64)
    assert configured.tuned(None) == configured
    with pytest.raises(ValueError, match="widht"):
        configured.tuned({"values": {"widht": 3}})


def test_the_search_space_names_fields_and_holds_their_defaults():
    defaults = HParams()
    for name, values in SEARCH_SPACE.items():
        assert hasattr(defaults, name), name
        assert getattr(defaults, name) in values, name
        # Every value is one the field takes (the Trainer applies them by these rules).
        for value in values:
            assert getattr(defaults.overridden({name: value}), name) == value
