"""The model's hyperparameters: each has its one default here.

The pipeline overrides any of them through the Trainer's ``custom_config``
(``{"hparams": {"batch_size": 512, ...}}``); an unknown name or a value of the wrong
type is rejected with a message naming it, before any training starts.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CUSTOM_CONFIG_KEY = "hparams"
# Written by run_fn beside its TensorBoard logs: the values it trained with, as JSON.
TRAINED_WITH_FILE = "hparams.json"


@dataclass(frozen=True)
class HParams:
    """Hyperparameters of the wide-and-deep model and its training loop."""

    # Per replica: under a strategy the global batch is this times the replicas.
    batch_size: int = 256
    steps_per_epoch: int = 50
    # Wide part: linear over one-hots and crosses, trained with FTRL as in the paper.
    # The small rate and the narrow embeddings and dropout below were chosen together,
    # on re-splits of the sample (docs/decisions/hyperparameters.md).
    wide_learning_rate: float = 0.02
    wide_l1: float = 0.001
    wide_l2: float = 0.001
    # Deep part: embeddings plus dense features through ReLU layers, trained with Adam.
    deep_learning_rate: float = 0.002
    hidden_units: tuple[int, ...] = (128, 64, 32)
    dropout: float = 0.2
    # Cross layers of DCN-v2 beside the ReLU layers (model.TowerCross), and their rank.
    cross_layers: int = 0
    cross_rank: int = 16
    # Off: with short epochs its moving statistics lag (docs/decisions/hyperparameters.md).
    batch_norm: bool = False
    # Wider embeddings overfit the few thousand training rows.
    max_embedding_dim: int = 4
    # The wide part's crosses embedded in the deep part too (see model._deep). Off: it
    # gained nothing (docs/decisions/hyperparameters.md).
    embed_crosses: bool = False
    early_stopping_patience: int = 4
    # Weight of positive examples relative to negatives; 1.0 leaves the loss unweighted.
    positive_class_weight: float = 1.0
    shuffle_buffer: int = 20_000
    # Cache the transformed data in memory after the first pass (it is small here).
    cache_dataset: bool = True
    # Steps traced by the profiler into the TensorBoard logs; (0, 0) turns it off.
    profile_steps: tuple[int, int] = (5, 8)
    # "auto" (from the environment), "single", "mirrored" or "multi_worker".
    distribution: str = "auto"
    seed: int = 42
    # Members of an ensemble: towers of one model that share no weight, trained in one
    # fit on the same batches, each on its own loss; early stopping judges, and the
    # model serves, the mean of their probabilities (modules/model.py). 1: one model.
    # The Tuner's trials train one member each.
    ensemble_members: int = 1
    # Epochs between weight histograms in the TensorBoard logs; 0 turns them off.
    histogram_freq: int = 1

    @classmethod
    def from_custom_config(cls, custom_config: Mapping[str, Any] | None) -> HParams:
        """Defaults overridden by ``custom_config["hparams"]`` (absent: defaults)."""
        overrides = dict((custom_config or {}).get(CUSTOM_CONFIG_KEY) or {})
        return cls.with_overrides(overrides)

    @classmethod
    def with_overrides(cls, overrides: Mapping[str, Any]) -> HParams:
        """Defaults with the named fields replaced; names and types are checked."""
        return cls().overridden(overrides)

    def overridden(self, overrides: Mapping[str, Any]) -> HParams:
        """These hyperparameters with the named fields replaced; names and types are checked."""
        fields = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(overrides) - fields)
        if unknown:
            raise ValueError(
                f"unknown hyperparameter(s) {unknown}; known ones are {sorted(fields)}"
            )
        values = {}
        for name, value in overrides.items():
            default = getattr(self, name)
            if isinstance(default, tuple):
                value = tuple(value)
            elif isinstance(default, float) and isinstance(value, int):
                value = float(value)
            if type(value) is not type(default):
                raise ValueError(
                    f"hyperparameter {name!r} must be {type(default).__name__}, got {value!r}"
                )
            values[name] = value
        return dataclasses.replace(self, **values)

    def tuned(self, hyperparameters: Mapping[str, Any] | None) -> HParams:
        """These hyperparameters with a KerasTuner search's best values applied.

        ``hyperparameters`` is the config of KerasTuner's ``HyperParameters`` (what
        TFX's Tuner writes and the Trainer reads as ``fn_args.hyperparameters``); its
        ``values`` are named after these fields. None (no search): unchanged.
        """
        return self.overridden(tuned_values(hyperparameters))

    def to_custom_config(self) -> dict[str, Any]:
        """The Trainer ``custom_config`` that carries these hyperparameters (JSON-safe)."""
        return {CUSTOM_CONFIG_KEY: {k: _jsonable(v) for k, v in dataclasses.asdict(self).items()}}


def tuned_values(hyperparameters: Mapping[str, Any] | None) -> dict[str, Any]:
    """The chosen values in a KerasTuner ``HyperParameters`` config (None: none)."""
    return dict((hyperparameters or {}).get("values") or {})


# The Tuner's search space: for each hyperparameter searched, the values tried (the
# default among them, so a search can keep it). Scalars only: KerasTuner's choices
# hold numbers, strings and booleans. The rates and the regularization of the
# two parts are what moved AUC most when the defaults were chosen; batch size and
# steps stay fixed so that every trial trains on the same number of examples.
SEARCH_SPACE: dict[str, tuple[int | float, ...]] = {
    "wide_learning_rate": (0.005, 0.01, 0.02, 0.05),
    "deep_learning_rate": (0.0005, 0.001, 0.002, 0.005),
    "dropout": (0.0, 0.1, 0.2, 0.3),
    "max_embedding_dim": (2, 4, 8),
    "wide_l2": (0.0001, 0.001, 0.01),
}


def parse_pairs(pairs: Sequence[str]) -> dict[str, object]:
    """``NAME=VALUE`` pairs (VALUE in JSON) as a dict; ValueError naming a bad one."""
    overrides = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--hparam {pair!r}: expected NAME=VALUE")
        try:
            overrides[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(
                f"--hparam {pair!r}: VALUE must be JSON (a number, true, [1, 2])"
            ) from None
    return overrides


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
