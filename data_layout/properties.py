"""The custom properties this project's components write on their artifacts, and their readers.

Kept apart from the components (no TFX or TensorFlow import), so that the tools which
read ML-Metadata take the names from their writer without importing TensorFlow.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

if TYPE_CHECKING:
    from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

# On PushedModel: 1 when the blessed model was already serving and nothing was copied;
# why a blessed model was not pushed ("" when it was, or was not blessed).
ALREADY_SERVING = "already_serving"
NOT_PUSHED_REASON = "not_pushed_reason"
# On ServingBaseline's outputs: the serving version they hold, "" when nothing serves.
SERVING_VERSION = "serving_version"
# On ServingBaseline's model: the span the serving version was trained up to (-1: none
# recorded, or nothing serves).
SERVING_SPAN = "serving_span"
# On the Evaluator's ModelBlessing: the serving version the candidate was compared
# with, "" when it was judged on the absolute bound alone.
BASELINE_VERSION = "baseline_version"
# On a blessing: the paired comparison with the serving model, in a line.
AUC_CHANGE_INTERVAL = "auc_change_interval"
# On a blessing: the slices that held the candidate back (JSON list of "column=value").
HELD_SLICES = "held_slices"
# On the Trainer's Model: the hyperparameters it trained with (JSON object, every
# field), and the values a Tuner chose among them (JSON object, {} without a Tuner).
HPARAMS = "hparams"
TUNED_HPARAMS = "tuned_hparams"
# On the Trainer's Model: the serving version it was warm-started from ("" when it was
# trained from scratch), and why it was not ("" when it was).
WARM_STARTED_FROM = "warm_started_from"
WARM_START_NOTE = "warm_start_note"
# On the Tuner's best HyperParameters (with TUNED_HPARAMS): the trials completed, the
# best validation AUC among them and the search's seconds.
TUNING_TRIALS = "trials"
BEST_VALIDATION_AUC = "best_validation_auc"
TUNING_SECONDS = "seconds"
# On ExampleGen's Examples, when the data root holds spans (besides TFX's own ``span``
# and ``input_fingerprint``, which its driver sets to the window's digest locally):
# the window trained on (JSON list of {"span", "rows"}, oldest first), the span before
# the run's (-1: none), the spans whose encoding an earlier run's was reused (JSON
# list), and why the window is shorter than asked ("" when it is not).
WINDOW_PROPERTY = "window"
PREVIOUS_SPAN_PROPERTY = "previous_span"
REUSED_PROPERTY = "reused_spans"
WINDOW_NOTE_PROPERTY = "window_note"
# ...and the encoded span splits the train split is made of (JSON list of {"span",
# "split", "key"}: the span's encoding key in data_layout.encoded_spans), which
# Transform analyzes one by one, its analyzer cache keyed by them.
TRAIN_PARTS_PROPERTY = "train_parts"
# ...and the digest of what the run read (spans.window_digest; a flat root's files too):
# a later run of the same digest, settings and code may have nothing to do.
INPUT_DIGEST_PROPERTY = "input_digest"
# On Examples: the column the splits are keyed by ("": rows split one by one).
SPLIT_KEY_PROPERTY = "split_keyed_by"
# On Examples: the period whose newest value the test split holds (``year = 1987``; absent:
# the test split is hashed like the others).
TEST_PERIOD_PROPERTY = "test_period"
# On Examples: the period the validation split holds, the one before the test period's
# (``year = 1986``; absent: no test period, or no period before it).
VALIDATION_PERIOD_PROPERTY = "validation_period"
# On Transform's TransformGraph, when the data root holds spans: the parts of the train
# split (see TRAIN_PARTS_PROPERTY) whose analysis it read from the analyzer cache, and
# those it analyzed (JSON object {"read": [...], "analyzed": [...]} of "span-N/split").
ANALYZER_CACHE_PROPERTY = "analyzer_cache"
# On the Pusher's execution (a parameter): the run's settings and code
# (pipeline_def.code_digest.run_fingerprint), recorded beside its decision.
RUN_FINGERPRINT_KEY = "run_fingerprint"
# On the Evaluator's ModelEvaluation: the examples split(s) it evaluated, comma-separated.
EVALUATED_SPLITS = "example_splits"
# On the ServingCheck's InfraBlessing: what the check measured (JSON object: server,
# load_s, p50_ms, p99_ms, p50_ms_100_rows, p99_ms_100_rows, model_bytes, rows_checked),
# or why it did not check ("not checked: ...", and no figures).
SERVING_CHECK = "serving_check"
SERVING_CHECK_NOTE = "serving_check_note"
# ...whose ``server`` is TF Serving's binary, or the stand-in (serving/standin_server.py).
TF_SERVING = "tensorflow_model_server"
STANDIN = "standin (python -I, tensorflow only)"


def value_of(prop: mlmd_pb2.Value) -> Any:
    """An ML-Metadata property's value as plain data (a struct a dict, a proto its text).

    None when the property holds no value.
    """
    kind = prop.WhichOneof("value")
    if kind is None:
        return None
    if kind == "struct_value":
        return json_format.MessageToDict(prop.struct_value)
    if kind == "proto_value":
        return str(prop.proto_value)
    return getattr(prop, kind)


def _custom_value(artifact: mlmd_pb2.Artifact, name: str) -> int | float | str | None:
    """A custom property's value however it was stored, or None when absent.

    TFX stores an int as an int; Kubeflow's launcher records every number as a
    double, and TFX's Kubeflow entry point hands a step the values it reads back as
    one-value structs ({"__value__": 1.0}).
    """
    prop = artifact.custom_properties.get(name)
    value = None if prop is None else value_of(prop)
    return value.get("__value__") if isinstance(value, dict) else value


def int_property(artifact: mlmd_pb2.Artifact, name: str) -> int:
    """An artifact's integer custom property (0 when absent), e.g. ``blessed``."""
    value = _custom_value(artifact, name)
    return int(value) if isinstance(value, int | float) else 0


def number_property(artifact: mlmd_pb2.Artifact, name: str) -> float | None:
    """An artifact's numeric custom property (None when absent)."""
    value = _custom_value(artifact, name)
    return float(value) if isinstance(value, int | float) else None


def str_property(artifact: mlmd_pb2.Artifact, name: str) -> str:
    """An artifact's string custom property ("" when absent)."""
    value = _custom_value(artifact, name)
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class PushRecord:
    """What the Pusher did with the candidate."""

    pushed: bool
    destination: str | None = None
    already_serving: bool = False
    not_pushed_reason: str = ""


def push_record(pushed_model: mlmd_pb2.Artifact) -> PushRecord:
    """The Pusher's outcome, from its PushedModel artifact."""
    return PushRecord(
        pushed=int_property(pushed_model, "pushed") == 1,
        destination=str_property(pushed_model, "pushed_destination") or None,
        already_serving=int_property(pushed_model, ALREADY_SERVING) == 1,
        not_pushed_reason=str_property(pushed_model, NOT_PUSHED_REASON),
    )


def is_blessed(blessing: mlmd_pb2.Artifact) -> bool:
    """Whether a ModelBlessing artifact blesses its model."""
    return int_property(blessing, "blessed") == 1


def baseline_version(blessing: mlmd_pb2.Artifact) -> str | None:
    """The serving version a blessing compared its candidate with; None when none served."""
    return str_property(blessing, BASELINE_VERSION) or None


@dataclass(frozen=True)
class Outcome:
    """Whether a run blessed its candidate, against which serving version, and the push."""

    blessed: bool
    baseline: str | None  # the serving version compared with; None when none served
    push: PushRecord | None  # None when the Pusher did not run
    # The paired comparison with the serving model, in a line; "" when none served.
    comparison: str = ""

    @property
    def pushed_to(self) -> str | None:
        """Where the model serves from after the run (None: nothing pushed)."""
        return self.push.destination if self.push is not None and self.push.pushed else None

    @property
    def pushed_version(self) -> str | None:
        """The serving version the run pushed: the last part of ``pushed_to`` (None: none)."""
        pushed = self.pushed_to
        return pushed.rstrip("/").rsplit("/", 1)[-1] if pushed else None

    @property
    def already_serving(self) -> bool:
        """True when the blessed model was the one serving already: nothing was copied."""
        return self.pushed_to is not None and self.push.already_serving


def outcome_of(
    blessing: mlmd_pb2.Artifact | None, pushed_model: mlmd_pb2.Artifact | None
) -> Outcome:
    """A run's outcome from its ModelBlessing and PushedModel artifacts (None: not made)."""
    return Outcome(
        blessed=blessing is not None and is_blessed(blessing),
        baseline=baseline_version(blessing) if blessing is not None else None,
        push=push_record(pushed_model) if pushed_model is not None else None,
        comparison=str_property(blessing, AUC_CHANGE_INTERVAL) if blessing is not None else "",
    )


@dataclass(frozen=True)
class SpanRecord:
    """The data a run read: its span, the window trained on, what an earlier run encoded."""

    span: int | None  # None: the run made no Examples
    window: list[dict[str, int]]  # [{"span", "rows"}], oldest first; [] for a flat root
    previous_span: int | None
    reused_spans: list[int]
    note: str


def span_record(examples: mlmd_pb2.Artifact | None) -> SpanRecord:
    """The span and window ExampleGen recorded on its Examples."""
    if examples is None:
        return SpanRecord(None, [], None, [], "")
    # TFX's own store keeps ``span`` as a property of the Examples type; Kubeflow's
    # launcher records every artifact field as a custom property, numbers as doubles.
    prop = examples.properties.get("span")
    span = prop.int_value if prop is not None else int_property(examples, "span")
    previous = (
        int_property(examples, PREVIOUS_SPAN_PROPERTY)
        if examples.custom_properties.get(PREVIOUS_SPAN_PROPERTY)
        else -1
    )
    return SpanRecord(
        span=span,
        window=json.loads(str_property(examples, WINDOW_PROPERTY) or "[]"),
        previous_span=None if previous < 0 else previous,
        reused_spans=json.loads(str_property(examples, REUSED_PROPERTY) or "[]"),
        note=str_property(examples, WINDOW_NOTE_PROPERTY),
    )


def analyzer_cache_record(transform_graph: mlmd_pb2.Artifact | None) -> dict[str, list[str]]:
    """The parts a Transform read from its analyzer cache and those it analyzed ({}: none)."""
    if transform_graph is None:
        return {}
    return json.loads(str_property(transform_graph, ANALYZER_CACHE_PROPERTY) or "{}")


def warm_start_of(model: mlmd_pb2.Artifact | None) -> tuple[str | None, str]:
    """The serving version a Model was warm-started from (None: from scratch), and why not."""
    if model is None:
        return None, ""
    return str_property(model, WARM_STARTED_FROM) or None, str_property(model, WARM_START_NOTE)


def serving_check_of(infra_blessing: mlmd_pb2.Artifact | None) -> dict[str, Any] | None:
    """The serving check's record: ``passed``, its figures or why it did not check (``note``).

    None where no check ran.
    """
    if infra_blessing is None:
        return None
    note = str_property(infra_blessing, SERVING_CHECK_NOTE)
    figures = json.loads(str_property(infra_blessing, SERVING_CHECK) or "{}")
    return {"passed": is_blessed(infra_blessing), **figures, **({"note": note} if note else {})}
