"""The Trainer's step arithmetic: epochs never longer than the steps asked for."""

from __future__ import annotations

from modules.hparams import HParams
from modules.training import epochs_for, within_steps


def test_fewer_steps_than_an_epoch_train_one_short_epoch():
    hp = within_steps(HParams(steps_per_epoch=50), 2)
    assert hp.steps_per_epoch == 2 and epochs_for(2, hp) == 1


def test_more_steps_are_whole_epochs_rounded_up():
    hp = HParams(steps_per_epoch=50)
    assert within_steps(hp, 120) is hp
    assert epochs_for(120, hp) == 3
