"""The Tuner's search: its space, its bounds in trials and minutes, its first trial."""

import dataclasses

import keras_tuner
import pytest

from modules.hparams import SEARCH_SPACE, HParams
from modules.tuning import OBJECTIVE, DeadlineOracle, search_space


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _oracle(tmp_path, clock, minutes=2.0, max_trials=10, base=None) -> DeadlineOracle:
    oracle = DeadlineOracle(
        minutes=minutes,
        clock=clock,
        objective=OBJECTIVE,
        max_trials=max_trials,
        seed=1,
        hyperparameters=search_space(base or HParams()),
        allow_new_entries=False,
        tune_new_entries=False,
    )
    oracle.verbose = 0
    oracle._set_project_dir(str(tmp_path), "search")  # noqa: SLF001 - what a Tuner does
    return oracle


def _finish(oracle: DeadlineOracle, trial: keras_tuner.engine.trial.Trial, score: float) -> None:
    oracle.update_trial(trial.trial_id, {OBJECTIVE.name: score})
    oracle.end_trial(trial)


def test_the_space_defaults_to_the_configured_values_even_outside_the_choices():
    base = dataclasses.replace(HParams(), dropout=0.25)
    space = {hp.name: hp for hp in search_space(base).space}
    assert set(space) == set(SEARCH_SPACE)
    assert space["dropout"].default == 0.25
    assert 0.25 in space["dropout"].values
    assert space["wide_learning_rate"].default == HParams().wide_learning_rate


def test_the_first_trial_is_the_configured_values_then_the_search_moves(tmp_path):
    oracle = _oracle(tmp_path, FakeClock())
    first = oracle.create_trial("t")
    assert first.hyperparameters.values == {n: getattr(HParams(), n) for n in SEARCH_SPACE}
    _finish(oracle, first, 0.95)
    second = oracle.create_trial("t")
    assert second.status == keras_tuner.engine.trial.TrialStatus.RUNNING
    assert second.hyperparameters.values != first.hyperparameters.values


def test_no_trial_starts_once_the_minutes_are_up(tmp_path):
    clock = FakeClock()
    oracle = _oracle(tmp_path, clock, minutes=2.0)
    _finish(oracle, oracle.create_trial("t"), 0.95)
    clock.now += 119.0
    _finish(oracle, oracle.create_trial("t"), 0.94)
    clock.now += 1.0
    assert oracle.create_trial("t").status == keras_tuner.engine.trial.TrialStatus.STOPPED
    assert len(oracle.trials) == 2


@pytest.mark.parametrize("max_trials", [1, 3])
def test_no_more_trials_than_max_trials(tmp_path, max_trials):
    oracle = _oracle(tmp_path, FakeClock(), max_trials=max_trials)
    for score in range(max_trials):
        trial = oracle.create_trial("t")
        assert trial.status == keras_tuner.engine.trial.TrialStatus.RUNNING
        _finish(oracle, trial, 0.9 + score / 100)
    assert oracle.create_trial("t").status == keras_tuner.engine.trial.TrialStatus.STOPPED
