"""What differs from the serving model's run: its data, hyperparameters, code and stack.

A reviewer weighing a candidate asks first what is new in it. The serving model's
run is the newest earlier run that pushed the serving version; the two runs' records
in ML-Metadata (``pipeline_ops.metadata.run_diff``) give the differences, each with
its whole value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from ml_metadata.metadata_store import metadata_store

from data_layout.properties import outcome_of, span_record
from pipeline_def import node_ids
from pipeline_def.code_digest import CODE_DIGEST_KEY
from pipeline_def.stack import STACK_PROPERTY
from pipeline_ops.metadata.run_diff import changed_leaves, diff_runs, node_parameters
from pipeline_ops.metadata.runs import PipelineRun

# The Trainer's parameters a reviewer weighs, as ``run_diff`` names their paths.
_HPARAMS = f"{node_ids.TRAINER}.custom_config.hparams."
_CODE = f"{node_ids.TRAINER}.custom_config.code_sha256"


def serving_run(runs: Sequence[PipelineRun], version: str | None) -> PipelineRun | None:
    """The newest of ``runs`` that pushed ``version`` (None: none did, or nothing serves)."""
    if not version:
        return None
    for run in sorted(runs, key=lambda r: r.started_ms, reverse=True):
        pushed = run.output(node_ids.PUSHER, "pushed_model")
        outcome = outcome_of(None, pushed) if pushed is not None else None
        if outcome is not None and outcome.pushed_version == version:
            return run
    return None


def _text(value: Any) -> str:
    return "-" if value is None else str(value)


def _digest(value: Any) -> str:
    """A long identity (a data fingerprint, a code digest) as 12 hex digits, to compare."""
    if value is None:
        return "-"
    text = str(value)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        return text[:12]
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _data(serving: PipelineRun, run: PipelineRun) -> list[tuple[str, str, str]]:
    """The span, its window and the rows read, and the data's fingerprint."""
    records = [span_record(r.output(node_ids.EXAMPLE_GEN, "examples")) for r in (serving, run)]
    found = [
        ("data: span", *(_text(s.span) for s in records)),
        ("data: window", *(",".join(map(str, s.window)) or "-" for s in records)),
    ]
    return [row for row in found if row[1] != row[2]]


def differences(
    store: metadata_store.MetadataStore, serving: PipelineRun, run: PipelineRun
) -> list[tuple[str, str, str]]:
    """(what, serving's, candidate's) for each difference a reviewer weighs, in that order."""
    diff = diff_runs(store, serving, run, metrics=False)
    found = _data(serving, run)
    fingerprint = diff["inputs"]["input_fingerprint"]
    if fingerprint[0] != fingerprint[1]:
        found.append(("data: fingerprint (sha256)", *(_digest(f) for f in fingerprint)))
    trainer = diff["parameters"].get(node_ids.TRAINER, {})
    for key, (a, b) in trainer.items():
        for path, va, vb in changed_leaves(a, b, f"{node_ids.TRAINER}.{key}"):
            if path.startswith(_HPARAMS):
                found.append((f"hyperparameter {path[len(_HPARAMS) :]}", _text(va), _text(vb)))
            elif path == _CODE:
                found.append(("model code (sha256)", _digest(va), _digest(vb)))
    return found + _stack(serving, run)


def _step_code(store: metadata_store.MetadataStore, run: PipelineRun) -> str | None:
    """The digest of the code ExampleGen ran with (pipeline_def.code_digest); None: unknown."""
    node = run.nodes.get(node_ids.EXAMPLE_GEN)
    if node is None:
        return None
    config = node_parameters(store, node).get("custom_config")
    try:
        return json.loads(config or "{}").get(CODE_DIGEST_KEY)
    except json.JSONDecodeError:
        return None


def code_change(
    store: metadata_store.MetadataStore, earlier: Sequence[PipelineRun], run: PipelineRun
) -> tuple[str, str, str] | None:
    """(the run before, its code digest, ``run``'s) where the steps' code differs; else None.

    The steps whose code changed ran again rather than being served from TFX's cache (an
    update of the project, a moved module): the run says so, naming the run before.
    """
    before = [r for r in earlier if r.started_ms < run.started_ms and r.run_id != run.run_id]
    if not before:
        return None
    previous = max(before, key=lambda r: r.started_ms)
    old, new = _step_code(store, previous), _step_code(store, run)
    if old is None or new is None or old == new:
        return None
    return previous.run_id, _digest(old), _digest(new)


def _stack(serving: PipelineRun, run: PipelineRun) -> list[tuple[str, str, str]]:
    """Each library whose version differs between the runs' stacks (pipeline_def.stack)."""
    a, b = (json.loads(r.properties.get(STACK_PROPERTY) or "{}") for r in (serving, run))
    return [
        (f"stack: {key}", _text(a.get(key)), _text(b.get(key)))
        for key in sorted(set(a) | set(b))
        if a.get(key) != b.get(key)
    ]
