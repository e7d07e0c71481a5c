"""The Trainer's ``run_fn``: data, strategy, model, fit, and export glued together.

Besides the SavedModel it leaves, in the Trainer's ``model_run`` output, the
TensorBoard logs (loss and AUC per epoch, train and eval, weight histograms, the
ReLU layers' zero activations and dead units, the hyperparameters for the HParams
dashboard), a profiler trace of a few training steps and ``model.png``, a diagram
of the model.

A Trainer that is stopped (a worker lost, the process killed) and started again
with the same ``model_run`` directory resumes after the last finished epoch: the
training state is backed up at every epoch's end beside that directory, and
removed once training finished.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf
import tensorflow_transform as tft
from tfx.v1.components import FnArgs

from modules import distribution, export, features, input_pipeline, warm_start, watch
from modules.diagram import start_diagram
from modules.hparams import CUSTOM_CONFIG_KEY, TRAINED_WITH_FILE, HParams
from modules.keras_setup import keras
from modules.model import build_model
from modules.preprocessing import dataset_of

log = logging.getLogger(__name__)


def cardinalities(
    declared: features.DatasetDeclaration, tf_transform_output: tft.TFTransformOutput
) -> dict[str, int]:
    """Id-space size of every categorical and cross feature, vocabularies included."""
    sizes = declared.fixed_cardinalities()
    for spec in declared.vocabularies:
        vocab = tf_transform_output.vocabulary_size_by_name(features.vocabulary_file(spec.name))
        sizes[features.transformed_name(spec.name)] = vocab + spec.num_oov_buckets
    return sizes


class EpochLog(keras.callbacks.Callback):
    """Epoch metrics and training throughput to the log.

    Keras' own progress output would go to the console. Throughput counts the
    training steps only (the clock stops when validation starts) and leaves out the
    first epoch, which also pays for tracing the model and filling the data cache.
    """

    def __init__(self, examples_per_epoch: int) -> None:
        super().__init__()
        self.examples_per_epoch = examples_per_epoch
        self.seconds: list[float] = []
        self.epochs: list[int] = []  # 1-based; a resumed fit starts after 1
        self._started: float | None = None

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        """Start the training clock."""
        self._started = time.monotonic()
        self.epochs.append(epoch + 1)

    def on_test_begin(self, logs: dict | None = None) -> None:
        """Stop the training clock: validation starts."""
        if self._started is not None:
            self.seconds.append(time.monotonic() - self._started)
            self._started = None

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        """Log this epoch's train and validation metrics."""
        self.on_test_begin()  # an epoch without validation stops the clock here
        metrics = ", ".join(f"{k} {v:.4f}" for k, v in sorted((logs or {}).items()))
        log.info("epoch %d (train %.2f s): %s", epoch + 1, self.seconds[-1], metrics)

    def on_train_end(self, logs: dict | None = None) -> None:
        """Log examples per second over the epochs after the first."""
        steady = self.seconds[1:]
        if steady:
            rate = self.examples_per_epoch * len(steady) / sum(steady)
            log.info(
                "training throughput: %.0f examples/s (epochs %d-%d)",
                rate,
                self.epochs[1],
                self.epochs[-1],
            )


def write_arrays(path: str, weights: list[np.ndarray], **values: float) -> None:
    """``weights`` and named scalars to ``path`` (.npz); a stop mid-write keeps the old file."""
    buffer = io.BytesIO()
    arrays = {f"w{i}": w for i, w in enumerate(weights)}
    np.savez(buffer, weights=len(weights), **values, **arrays)
    tf.io.gfile.makedirs(os.path.dirname(path))
    with tf.io.gfile.GFile(path + ".tmp", "wb") as f:
        f.write(buffer.getvalue())
    tf.io.gfile.rename(path + ".tmp", path, overwrite=True)


def read_arrays(path: str) -> tuple[list[np.ndarray], Any]:
    """What ``write_arrays`` wrote: the weights, and the npz for the named scalars."""
    with tf.io.gfile.GFile(path, "rb") as f:
        saved = np.load(io.BytesIO(f.read()))
    return [saved[f"w{i}"] for i in range(int(saved["weights"]))], saved


class ResumableEarlyStopping(keras.callbacks.EarlyStopping):
    """Early stopping whose state survives a restart: best value and epoch, wait, weights.

    BackupAndRestore restores the model and the epoch, not other callbacks; without
    this a resumed fit would forget a best epoch before the stop and restore a worse
    one. The state is written at each epoch's end beside the backup (by the chief
    only, ``write``), read when training starts, and removed when it ends.
    """

    STATE_FILE = "early_stopping.npz"

    def __init__(self, state_dir: str, *, write: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state_path = os.path.join(state_dir, self.STATE_FILE)
        self.write = write

    def on_train_begin(self, logs: dict | None = None) -> None:
        """Start afresh, or from the saved state of a stopped fit."""
        super().on_train_begin(logs)
        if not tf.io.gfile.exists(self.state_path):
            return
        self.best_weights, saved = read_arrays(self.state_path)
        self.best, self.wait = float(saved["best"]), int(saved["wait"])
        self.best_epoch = int(saved["best_epoch"])
        log.info(
            "early stopping resumed: best %s %.4f at epoch %d, %d epoch(s) without improvement",
            self.monitor,
            self.best,
            self.best_epoch + 1,
            self.wait,
        )

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        """Judge the epoch, then save the state (atomically: a stop mid-write keeps the old)."""
        super().on_epoch_end(epoch, logs)
        if not self.write or self.best_weights is None:
            return
        write_arrays(self.state_path, self.best_weights, best=self.best, wait=self.wait,
                     best_epoch=self.best_epoch)  # fmt: skip

    def on_train_end(self, logs: dict | None = None) -> None:
        """Restore the best weights; the state goes with the backup of the finished fit."""
        super().on_train_end(logs)
        if self.write and tf.io.gfile.exists(self.state_path):
            tf.io.gfile.remove(self.state_path)


def backup_dir(model_run_dir: str) -> str:
    """Where training state is backed up for ``model_run_dir``: a hidden folder beside it.

    Beside, not inside: checkpoints of an unfinished fit are no part of the Trainer's
    output. Named by a digest of the whole path, so a restarted Trainer (same
    ``model_run``) finds it and another execution (its own ``model_run``) never does.
    """
    digest = hashlib.sha256(model_run_dir.encode()).hexdigest()[:16]
    return os.path.join(os.path.dirname(model_run_dir.rstrip("/")), f".backup-{digest}")


def _early_stopping(hp: HParams) -> dict[str, Any]:
    """Early stopping's settings: the best validation AUC, its weights restored."""
    return {
        "monitor": "val_auc",
        "mode": "max",
        "patience": hp.early_stopping_patience,
        "restore_best_weights": True,
    }


def trial_callbacks(hp: HParams, global_batch: int) -> list[keras.callbacks.Callback]:
    """A Tuner trial's callbacks: the Trainer's early stopping and epoch log, no more."""
    return [
        keras.callbacks.EarlyStopping(**_early_stopping(hp)),
        EpochLog(hp.steps_per_epoch * global_batch),
    ]


def _callbacks(
    setup: TrainingSetup,
    model: keras.Model,
    probe_batch: dict[str, tf.Tensor],
    log_dir: str,
    backup: str,
) -> list[keras.callbacks.Callback]:
    hp = setup.hp
    profile = hp.profile_steps if hp.profile_steps[1] > 0 else 0
    return [
        # First: an epoch's backup and early-stopping state are saved before any later
        # callback reports the epoch.
        keras.callbacks.BackupAndRestore(backup),
        ResumableEarlyStopping(backup, write=setup.placement.is_chief, **_early_stopping(hp)),
        EpochLog(hp.steps_per_epoch * setup.global_batch),
        keras.callbacks.TensorBoard(
            log_dir=log_dir,
            update_freq="epoch",
            profile_batch=profile,
            histogram_freq=hp.histogram_freq,
        ),
        watch.DeadUnits(model.dnn_model, probe_batch, log_dir),
        # Its events in log_dir itself also make log_dir a run, which the Profile tab
        # needs to list the trace under log_dir/plugins/profile (found by breaking it).
        watch.HParamsLog(hp, setup.fn_args.train_steps, log_dir),
    ]


def _class_weight(hp: HParams) -> dict[int, float] | None:
    return None if hp.positive_class_weight == 1.0 else {0: 1.0, 1: hp.positive_class_weight}


# Validation batches per replica, at least: a small training batch (a small table's)
# leaves validation's batches at this size, so that eval_steps of them still cover
# the validation split that early stopping judges (docs/decisions/drafting-rules.md).
VALIDATION_BATCH = 256


def within_steps(hp: HParams, train_steps: int) -> HParams:
    """``hp`` with epochs no longer than ``train_steps``.

    Fewer steps than an epoch are trained as asked (one short epoch), not rounded up
    to a whole epoch.
    """
    if train_steps >= hp.steps_per_epoch:
        return hp
    return hp.overridden({"steps_per_epoch": train_steps})


def epochs_for(train_steps: int, hp: HParams) -> int:
    """Epochs of ``hp.steps_per_epoch`` steps that cover ``train_steps`` (at least one)."""
    return max(1, -(-train_steps // hp.steps_per_epoch))


def input_data(
    files: list[str],
    tf_transform_output: tft.TFTransformOutput,
    declared: features.DatasetDeclaration,
    hp: HParams,
    batch_size: int,
    *,
    training: bool,
    cache: bool | None = None,
) -> tf.data.Dataset:
    """The transformed batches of ``files`` as the Trainer reads them (cache: the hparam's)."""
    return input_pipeline.make_dataset(
        files,
        tf_transform_output,
        batch_size,
        label=declared.label_key,
        training=training,
        cache=hp.cache_dataset if cache is None else cache,
        shuffle_buffer=hp.shuffle_buffer,
        seed=hp.seed,
    )


def fit(
    model: keras.Model,
    fn_args: FnArgs,
    declared: features.DatasetDeclaration,
    tf_transform_output: tft.TFTransformOutput,
    hp: HParams,
    global_batch: int,
    callbacks: list[keras.callbacks.Callback],
) -> keras.callbacks.History:
    """Train as the Trainer does: the train files, validation on the eval files.

    The Tuner's trials train through here too, so a trial is scored as the Trainer
    would then train with its values.
    """
    replicas = global_batch // hp.batch_size
    validation_batch = max(hp.batch_size, VALIDATION_BATCH) * replicas
    return model.fit(
        input_data(
            fn_args.train_files, tf_transform_output, declared, hp, global_batch, training=True
        ),
        steps_per_epoch=hp.steps_per_epoch,
        epochs=epochs_for(fn_args.train_steps, hp),
        validation_data=input_data(
            fn_args.eval_files,
            tf_transform_output,
            declared,
            hp,
            validation_batch,
            training=False,
        ),
        validation_steps=fn_args.eval_steps,
        class_weight=_class_weight(hp),
        callbacks=callbacks,
        verbose=0,
    )


def _write_trained_with(hp: HParams, run_dir: str) -> None:
    """The hyperparameters training used, beside its logs (the Trainer records them)."""
    trained_with = hp.to_custom_config()[CUSTOM_CONFIG_KEY]
    with tf.io.gfile.GFile(os.path.join(run_dir, TRAINED_WITH_FILE), "w") as f:
        f.write(json.dumps(trained_with, sort_keys=True))


@dataclass(frozen=True)
class TrainingSetup:
    """What one Trainer execution trains with: its hyperparameters, data and devices."""

    fn_args: FnArgs
    hp: HParams
    declared: features.DatasetDeclaration
    placement: distribution.Placement
    transform_output: tft.TFTransformOutput
    sizes: dict[str, int]  # cardinalities()
    spaces: warm_start.IdSpaces

    @property
    def global_batch(self) -> int:
        """The batch of one step over every replica."""
        return self.hp.batch_size * self.placement.strategy.num_replicas_in_sync


def training_setup(fn_args: FnArgs) -> TrainingSetup:
    """What the Trainer trains with; the Tuner's best values, when it ran, over the config's.

    The strategy is chosen before Transform's output is read: a collective strategy
    configures TensorFlow's collective ops, best done before other TensorFlow work.
    """
    hp = HParams.from_custom_config(fn_args.custom_config).tuned(fn_args.hyperparameters)
    hp = within_steps(hp, fn_args.train_steps)
    declared = dataset_of(fn_args.custom_config)
    placement = distribution.choose(hp.distribution)
    transform_output = tft.TFTransformOutput(fn_args.transform_output)
    sizes = cardinalities(declared, transform_output)
    spaces = warm_start.IdSpaces.of(declared, transform_output, sizes)
    return TrainingSetup(fn_args, hp, declared, placement, transform_output, sizes, spaces)


def _log_plan(setup: TrainingSetup) -> None:
    hp, placement = setup.hp, setup.placement
    log.info(
        "training %s: %d replica(s), %d member(s) of %d epoch(s) of %d steps, global batch %d",
        placement.task,
        placement.strategy.num_replicas_in_sync,
        hp.ensemble_members,
        epochs_for(setup.fn_args.train_steps, hp),
        hp.steps_per_epoch,
        setup.global_batch,
    )


def _probe_batch(setup: TrainingSetup) -> dict[str, tf.Tensor]:
    """A fixed batch for the ReLU figures, from an uncached copy of the eval input."""
    probe = input_data(
        setup.fn_args.eval_files,
        setup.transform_output,
        setup.declared,
        setup.hp,
        setup.global_batch,
        training=False,
        cache=False,
    )
    return next(iter(probe))[0]


def _warm_start(model: keras.Model, setup: TrainingSetup) -> str | None:
    """Start ``model`` from the serving one when they match; why it did not (None: it did)."""
    base_model = setup.fn_args.base_model
    if not base_model:
        return "nothing serves"
    cold_because = warm_start.warm_start(model, base_model, setup.declared, setup.spaces)
    if cold_because:
        log.info("trained from scratch: %s", cold_because)
    else:
        log.info("warm-started from the serving model")
    return cold_because


def _save(
    model: keras.Model, setup: TrainingSetup, run_dir: str, model_dir: str, cold_because: str | None
) -> None:
    """The export (every worker), then what the chief leaves beside the logs.

    The chief's diagram is drawn while the model is exported.
    """
    drawing = start_diagram(model) if setup.placement.is_chief else None
    export.export(setup.declared, model, setup.transform_output, model_dir)
    warm_start.save(model, setup.spaces, model_dir)
    if drawing:
        drawing.finish(run_dir)
    if setup.placement.is_chief:
        _write_trained_with(setup.hp, run_dir)
        warm_start.write_outcome(run_dir, cold_because)


def _train(setup: TrainingSetup, run_dir: str, model_dir: str) -> None:
    """Build, maybe warm-start, fit and export the model; the backup goes once all are done."""
    fn_args, hp = setup.fn_args, setup.hp
    _log_plan(setup)
    # Every worker backs up into the same folder (the chief's files; the others
    # write beside them and remove theirs), so the path comes from model_run_dir.
    backup = backup_dir(fn_args.model_run_dir)
    probe_batch = _probe_batch(setup)
    keras.utils.set_random_seed(hp.seed)
    with setup.placement.strategy.scope():
        model = build_model(setup.declared, setup.sizes, hp)
    cold_because = _warm_start(model, setup)
    callbacks = _callbacks(setup, model, probe_batch, run_dir, backup)
    fit(model, fn_args, setup.declared, setup.transform_output, hp, setup.global_batch, callbacks)
    _save(model, setup, run_dir, model_dir, cold_because)
    distribution.wait_for_all(setup.placement)
    # The chief's checkpoints went when the fit finished; the folder, and what other
    # workers wrote into it, go once every worker is past its last epoch's save.
    if setup.placement.is_chief and tf.io.gfile.exists(backup):
        tf.io.gfile.rmtree(backup)


def run_fn(fn_args: FnArgs) -> None:
    """TFX Trainer entry point: train on Transform's output, export with signatures.

    With ``ensemble_members`` above 1 the members are the towers of one model
    (``modules.model.TowerEnsemble``), trained in one fit whose early stopping judges
    their mean on the eval files; the export serves that mean.
    """
    setup = training_setup(fn_args)
    if setup.placement.is_chief:
        _train(setup, fn_args.model_run_dir, fn_args.serving_model_dir)
        return
    # Only the chief writes where people look; other workers write to scratch space
    # (MultiWorkerMirroredStrategy needs every worker to save) that is removed after.
    scratch = tempfile.mkdtemp(prefix="trainer-worker-")
    try:
        _train(setup, os.path.join(scratch, "run"), os.path.join(scratch, "model"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
