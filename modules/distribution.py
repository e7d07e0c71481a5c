"""Picks the tf.distribute strategy from the configuration and the environment.

``auto`` means: MultiWorkerMirroredStrategy when ``TF_CONFIG`` names more than one
task, MirroredStrategy when more than one GPU is visible, else the default
single-device strategy. Any of them can be asked for by name.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import tensorflow as tf

CHOICES = ("auto", "single", "mirrored", "multi_worker")


@dataclass(frozen=True)
class Placement:
    """The chosen strategy and this process's role in it."""

    strategy: tf.distribute.Strategy
    is_chief: bool
    task: str  # e.g. "worker:1", or "local" outside a cluster.


def _cluster_tasks() -> int:
    cluster = json.loads(os.environ.get("TF_CONFIG") or "{}").get("cluster", {})
    return sum(len(cluster.get(role, [])) for role in ("chief", "worker"))


def _local_devices() -> list[str]:
    gpus = tf.config.list_logical_devices("GPU")
    return [d.name for d in (gpus or tf.config.list_logical_devices("CPU"))]


def choose(requested: str) -> Placement:
    """The strategy for ``requested`` (one of ``CHOICES``), created once per process."""
    if requested not in CHOICES:
        raise ValueError(f"distribution must be one of {CHOICES}, got {requested!r}")
    if requested == "multi_worker" or (requested == "auto" and _cluster_tasks() > 1):
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        resolver = strategy.cluster_resolver
        task_type, task_id = resolver.task_type, resolver.task_id
        has_chief = "chief" in resolver.cluster_spec().as_dict()
        is_chief = task_type == "chief" or (
            task_type == "worker" and task_id == 0 and not has_chief
        )
        return Placement(strategy, is_chief, f"{task_type}:{task_id}")
    gpus = tf.config.list_logical_devices("GPU")
    if requested == "mirrored" or (requested == "auto" and len(gpus) > 1):
        return Placement(tf.distribute.MirroredStrategy(_local_devices()), True, "local")
    return Placement(tf.distribute.get_strategy(), True, "local")


def wait_for_all(placement: Placement) -> None:
    """Block until every worker gets here: a one-value all-reduce (no-op on one worker).

    Without it a worker that finishes saving first exits while the chief is still
    saving, and the chief's coordination service reports it as failed.
    """
    strategy = placement.strategy
    if isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy):
        strategy.reduce(
            tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(1.0)), axis=None
        )
