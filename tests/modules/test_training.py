"""The Trainer's step arithmetic (epochs never longer than the steps asked for) and its members."""

from __future__ import annotations

import pytest

from modules.hparams import HParams
from modules.training import epochs_for, member_dir, member_hparams, within_steps


def test_fewer_steps_than_an_epoch_train_one_short_epoch():
    hp = within_steps(HParams(steps_per_epoch=50), 2)
    assert hp.steps_per_epoch == 2 and epochs_for(2, hp) == 1


def test_more_steps_are_whole_epochs_rounded_up():
    hp = HParams(steps_per_epoch=50)
    assert within_steps(hp, 120) is hp
    assert epochs_for(120, hp) == 3


def test_one_member_trains_with_the_hyperparameters_as_given():
    hp = HParams(seed=7)
    assert member_hparams(hp) == [hp]
    assert member_dir("/run", 0, 1) == "/run"


def test_members_differ_in_their_seed_only_and_keep_apart_from_the_next_runs_seed():
    hp = HParams(seed=1, ensemble_members=3, dropout=0.4)
    members = member_hparams(hp)
    seeds = [m.seed for m in members]
    assert seeds[0] == 1 and len(set(seeds)) == 3
    assert not set(seeds) & {m.seed for m in member_hparams(hp.overridden({"seed": 2}))}
    assert all(m.overridden({"seed": 1}) == hp for m in members)
    assert [member_dir("/run", i, 3) for i in range(3)] == [
        "/run/member_1",
        "/run/member_2",
        "/run/member_3",
    ]


def test_no_members_is_refused():
    with pytest.raises(ValueError, match="ensemble_members must be at least 1"):
        member_hparams(HParams(ensemble_members=0))
