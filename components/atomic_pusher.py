"""A Pusher whose version directories never appear half-written or get overwritten.

TFX's filesystem Pusher copies the model straight into ``<base>/<unix time>/``: a
crash mid-copy leaves a partial version that TF Serving may try to load, two pushes
in one second share a directory (the second is then recorded as pushed to the
first's model), and a rerun that blesses the same model again pushes a duplicate.
This one copies into a hidden temporary sibling and renames it into place, always
picks a version above every existing one (TF Serving serves the highest), and does
not push a model identical to the one already served (same SavedModel fingerprint).

With the model it publishes the statistics of the data the model was trained on
(see ``data_layout.serving_layout``): the next run's validator checks drift against the
data of the model that serves, with no Resolver.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from typing import Any

from tensorflow.core.protobuf import fingerprint_pb2
from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: customizing a standard component's executor
# means subclassing it (what TFX's own Pusher docs recommend over the deprecated
# custom_executor_spec argument).
from tfx.components.pusher import executor as pusher_executor
from tfx.dsl.components.base import base_component, executor_spec
from tfx.dsl.io import fileio
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import proto_utils

from components.spec_extension import extended
from data_layout import serving_layout
from data_layout.properties import ALREADY_SERVING, NOT_PUSHED_REASON, RUN_FINGERPRINT_KEY

STATISTICS_KEY = "statistics"


ALLOW_OLDER_KEY = "allow_older"


class OlderModelError(ValueError):
    """The candidate was trained on older data than the serving model; not pushed."""


@dataclass(frozen=True)
class Push:
    """Where a model now serves: its version directory, and whether it was copied."""

    version: str
    path: str
    already_serving: bool


def _fingerprint(model_dir: str) -> str | None:
    """The SavedModel's fingerprint (graph, signatures and weights), or None if it has none.

    TensorFlow's singleprint, read through fileio rather than TensorFlow: the serving
    folder may be on s3://, which TensorFlow does not read.
    """
    path = os.path.join(model_dir, "fingerprint.pb")
    if not fileio.exists(path):
        return None
    with fileio.open(path, "rb") as f:
        found = fingerprint_pb2.FingerprintDef.FromString(f.read())
    # tensorflow/python/saved_model/fingerprinting.py, Fingerprint.singleprint.
    parts = (
        found.graph_def_program_hash,
        found.signature_def_hash,
        found.saved_object_graph_hash,
        found.checkpoint_hash,
    )
    return "/".join(map(str, parts))


def push_model(
    model_dir: str,
    base_dir: str,
    now: float | None = None,
    train_statistics_dir: str | None = None,
    span: int | None = None,
    allow_older: bool = False,
) -> Push:
    """Publish the SavedModel at ``model_dir`` as a new version under ``base_dir``.

    The version is the Unix time, raised above the highest existing version when
    needed. If the highest existing version holds an identical model, nothing is
    copied and that version is returned with ``already_serving=True``. The folder
    ``train_statistics_dir`` (StatisticsGen's ``Split-train``), when given, is
    published inside the version, so it appears together with the model, and so is
    ``span``, the span the model was trained up to. A model trained on an older span
    than the serving version's is an OlderModelError unless ``allow_older``.
    """
    existing = serving_layout.versions(base_dir)
    if existing and span is not None and not allow_older:
        _check_not_older(existing[-1], span)
    if existing:
        served = existing[-1]
        candidate_print = _fingerprint(model_dir)
        if candidate_print is not None and candidate_print == _fingerprint(served.path):
            return Push(str(served.number), served.path, already_serving=True)
    version = max(
        int(now if now is not None else time.time()), existing[-1].number + 1 if existing else 0
    )
    staging = os.path.join(base_dir, f".push-{version}-{uuid.uuid4().hex}")
    try:
        _stage(model_dir, staging, train_statistics_dir, span)
        version, target = _rename_into_place(staging, base_dir, version)
    finally:
        if fileio.exists(staging):
            fileio.rmtree(staging)
    return Push(str(version), target, already_serving=False)


def _check_not_older(served: serving_layout.Version, span: int) -> None:
    """OlderModelError when the ``served`` version was trained on a later span than ``span``."""
    serving_span = serving_layout.span_of(served)
    if serving_span is not None and span < serving_span:
        raise OlderModelError(
            f"the candidate was trained up to span {span}, the serving "
            f"version {served.number} up to span {serving_span} (--allow-older "
            "pushes it anyway)"
        )


def _stage(
    model_dir: str, staging: str, train_statistics_dir: str | None, span: int | None
) -> None:
    """Copy into ``staging`` what the version holds: the model, its training statistics, span."""
    serving_layout.copy_tree(model_dir, staging)
    if train_statistics_dir is not None:
        serving_layout.copy_tree(
            train_statistics_dir,
            os.path.join(
                staging, serving_layout.TRAINING_STATISTICS, serving_layout.TRAIN_SPLIT_DIR
            ),
        )
    if span is not None:
        serving_layout.write_span(staging, span)


def _rename_into_place(staging: str, base_dir: str, version: int) -> tuple[int, str]:
    """Rename ``staging`` to the first free version from ``version``; that version, its path."""
    target = os.path.join(base_dir, str(version))
    # Another push may have taken this version since we looked: never overwrite.
    while fileio.exists(target):
        version += 1
        target = os.path.join(base_dir, str(version))
    fileio.rename(staging, target, overwrite=False)
    return version, target


class AtomicPushExecutor(pusher_executor.Executor):
    """Pusher executor: blessed models only, published with ``push_model``."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Push the model if the Evaluator blessed it; record where in the artifact."""
        model_push = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.PUSHED_MODEL_KEY]
        )
        if not self.CheckBlessing(input_dict):
            self._MarkNotPushed(model_push)
            return
        destination = tfx.proto.PushDestination()
        proto_utils.json_to_proto(
            exec_properties[standard_component_specs.PUSH_DESTINATION_KEY], destination
        )
        if destination.WhichOneof("destination") != "filesystem":
            raise ValueError("AtomicPusher pushes to a filesystem destination only")
        statistics = input_dict.get(STATISTICS_KEY) or []
        try:
            push = push_model(
                self.GetModelPath(input_dict),
                destination.filesystem.base_directory,
                train_statistics_dir=(
                    artifact_utils.get_split_uri(statistics, "train") if statistics else None
                ),
                span=statistics[0].span if statistics else None,
                allow_older=bool(exec_properties.get(ALLOW_OLDER_KEY)),
            )
        except OlderModelError as refused:
            self._MarkNotPushed(model_push)
            model_push.set_string_custom_property(NOT_PUSHED_REASON, str(refused))
            return
        # The model itself stays in the Trainer's artifact; the serving copy is the push.
        self._MarkPushed(model_push, pushed_destination=push.path, pushed_version=push.version)
        model_push.set_int_custom_property(ALREADY_SERVING, int(push.already_serving))


class AtomicPusherSpec(
    extended(
        standard_component_specs.PusherSpec,
        parameters={
            ALLOW_OLDER_KEY: component_spec.ExecutionParameter(type=int, optional=True),
            RUN_FINGERPRINT_KEY: component_spec.ExecutionParameter(type=str, optional=True),
        },
        inputs={
            STATISTICS_KEY: component_spec.ChannelParameter(
                type=tfx.types.standard_artifacts.ExampleStatistics, optional=True
            )
        },
    )
):
    """Pusher's spec, plus the statistics of the training data and the run's fingerprint."""


class AtomicPusher(base_component.BaseComponent):
    """Pushes a blessed model with ``AtomicPushExecutor``, its training statistics beside it."""

    SPEC_CLASS = AtomicPusherSpec
    EXECUTOR_SPEC = executor_spec.ExecutorClassSpec(AtomicPushExecutor)

    def __init__(
        self,
        model: tfx.types.BaseChannel,
        model_blessing: tfx.types.BaseChannel,
        push_destination: tfx.proto.PushDestination,
        infra_blessing: tfx.types.BaseChannel | None = None,
        statistics: tfx.types.BaseChannel | None = None,
        allow_older: bool = False,
        run_fingerprint: str = "",
    ) -> None:
        """Push ``model`` when its blessings bless it, with ``statistics``' train split.

        ``model_blessing`` is the Evaluator's; ``infra_blessing``, where given, the
        serving check's.

        A model whose ``statistics`` are of an older span than the serving version's
        is not pushed unless ``allow_older``. ``run_fingerprint`` (the run's settings
        and code, ``pipeline_def.code_digest.run_fingerprint``) is only recorded: the
        push decision is what a later run of the same files and fingerprint repeats.
        """
        super().__init__(
            spec=AtomicPusherSpec(
                model=model,
                model_blessing=model_blessing,
                infra_blessing=infra_blessing,
                statistics=statistics,
                allow_older=int(allow_older),
                run_fingerprint=run_fingerprint,
                push_destination=push_destination,
                pushed_model=tfx.dsl.Channel(type=tfx.types.standard_artifacts.PushedModel),
            )
        )
