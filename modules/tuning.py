"""The Tuner's ``tuner_fn``: a KerasTuner random search over ``hparams.SEARCH_SPACE``.

Each trial trains the model as the Trainer does (same data, steps, callbacks and
early stopping on the validation split) with one point of the space over the
configured hyperparameters, and scores it by its best validation AUC. The first
trial is the configured values themselves, so a search never picks something worse
on validation than what it started from. The search ends after ``max_trials``
trials or when ``minutes`` have passed, whichever comes first (a trial under way
then finishes: its steps bound it).

KerasTuner and tf_keras (keras-team/keras-tuner#1039): keras_tuner 1.4.8 imports
``keras`` (Keras 3, installed beside TF 2.16) whatever ``TF_USE_LEGACY_KERAS`` says,
so its ``Tuner`` rejects a tf_keras model ("Expected the model-building function
... to return a valid Keras Model instance"), clears Keras 3's session instead of
tf_keras', and hands Keras 3 callbacks to tf_keras' ``fit``. Importing tf_keras
first changes nothing (the check is on ``keras.__version__``). What works: subclass
``BaseTuner``, which holds the oracle, the trials and their records but never
touches a model, and train in ``run_trial`` with tf_keras directly, returning the
score as a float. TFX's Tuner executor needs no more than ``BaseTuner`` (search,
best hyperparameters, the oracle's trials).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import keras_tuner
import tensorflow_transform as tft
from keras_tuner.engine import base_tuner
from keras_tuner.engine import trial as trial_module
from tfx.v1.components import FnArgs, TunerFnResult

from modules import training
from modules.hparams import SEARCH_SPACE, HParams
from modules.keras_setup import keras
from modules.model import build_model
from modules.preprocessing import dataset_of

log = logging.getLogger(__name__)

# custom_config key of the search's bounds: {"max_trials": N, "minutes": M}.
TUNING_KEY = "tuning"
OBJECTIVE = keras_tuner.Objective("val_auc", direction="max")


def search_space(base: HParams) -> keras_tuner.HyperParameters:
    """``SEARCH_SPACE`` as KerasTuner choices, each defaulting to ``base``'s value."""
    space = keras_tuner.HyperParameters()
    for name, values in SEARCH_SPACE.items():
        current = getattr(base, name)
        choices = sorted({*values, current})
        space.Choice(name, choices, ordered=True, default=current)
    return space


class DeadlineOracle(keras_tuner.oracles.RandomSearchOracle):
    """Random search that starts from the defaults and stops when its time is up."""

    def __init__(
        self, minutes: float, clock: Callable[[], float] = time.monotonic, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._clock = clock
        self.deadline = clock() + 60.0 * minutes

    def populate_space(self, trial_id: str) -> dict[str, Any]:
        """The next trial's values: the defaults first, then random; STOPPED when late."""
        if self._clock() >= self.deadline:
            log.info("tuning: time is up after %d trial(s)", len(self.trials))
            return {"status": trial_module.TrialStatus.STOPPED, "values": None}
        if not self.trials:
            return {
                "status": trial_module.TrialStatus.RUNNING,
                "values": {hp.name: hp.default for hp in self.hyperparameters.space},
            }
        return super().populate_space(trial_id)


class WideDeepTuner(base_tuner.BaseTuner):
    """Trains one wide-and-deep model per trial with tf_keras; its best validation AUC."""

    def __init__(self, oracle: keras_tuner.Oracle, fn_args: FnArgs, base: HParams) -> None:
        super().__init__(
            oracle=oracle, directory=fn_args.working_dir, project_name="search", overwrite=True
        )
        self.fn_args = fn_args
        self.base = base
        self.transform_output = tft.TFTransformOutput(fn_args.transform_graph_path)
        self.declared = dataset_of(fn_args.custom_config)
        # KerasTuner prints each trial's table to stdout, the console people read.
        self.oracle.verbose = 0

    def search_space_summary(self, extended: bool = False) -> None:
        """The search space to the log (KerasTuner prints it)."""
        space = {hp.name: hp.values for hp in self.oracle.get_space().space}
        log.info("tuning: search space %s", space)

    def results_summary(self, num_trials: int = 10) -> None:
        """The best trials to the log (KerasTuner prints them)."""
        for trial in self.oracle.get_best_trials(num_trials):
            log.info(
                "tuning: trial %s val_auc %s %s",
                trial.trial_id,
                trial.score,
                trial.hyperparameters.values,
            )

    def run_trial(self, trial: keras_tuner.engine.trial.Trial, **_: Any) -> float:
        """Train with the trial's values over the base hyperparameters; best val AUC."""
        hp = training.within_steps(
            self.base.overridden(trial.hyperparameters.values), self.fn_args.train_steps
        )
        keras.backend.clear_session()
        keras.utils.set_random_seed(hp.seed)
        model = build_model(
            self.declared, training.cardinalities(self.declared, self.transform_output), hp
        )
        history = training.fit(
            model,
            self.fn_args,
            self.declared,
            self.transform_output,
            hp,
            hp.batch_size,
            training.trial_callbacks(hp, hp.batch_size),
        )
        score = max(history.history[OBJECTIVE.name])
        log.info(
            "tuning: trial %s %s: val_auc %.4f", trial.trial_id, trial.hyperparameters.values, score
        )
        return float(score)


def tuner_fn(fn_args: FnArgs) -> TunerFnResult:
    """TFX Tuner entry point: the search, bounded by ``custom_config["tuning"]``."""
    base = HParams.from_custom_config(fn_args.custom_config)
    bounds = (fn_args.custom_config or {})[TUNING_KEY]
    # Trials run one at a time in this process: no tf.distribute strategy, no profiler;
    # and a trial trains one member, not an ensemble's towers.
    base = base.overridden({"profile_steps": (0, 0), "ensemble_members": 1})
    oracle = DeadlineOracle(
        minutes=float(bounds["minutes"]),
        objective=OBJECTIVE,
        max_trials=int(bounds["max_trials"]),
        seed=base.seed,
        hyperparameters=search_space(base),
        allow_new_entries=False,
        tune_new_entries=False,
    )
    return TunerFnResult(tuner=WideDeepTuner(oracle, fn_args, base), fit_kwargs={})
