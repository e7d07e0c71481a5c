"""Read the pipeline's ML-Metadata: runs, artifacts, lineage, and what differs between runs.

    wide-deep-inspect runs [--output-dir DIR | --metadata URI] [--dataset NAME]
    wide-deep-inspect history [--format json]
    wide-deep-inspect artifacts [--type TYPE] [--run RUN_ID]
    wide-deep-inspect lineage (ARTIFACT_ID | --pushed-model latest) [--format json]
    wide-deep-inspect diff RUN_A RUN_B [--format json]

The store is found as the local runner finds it; its options go before or after
the subcommand. Exit codes: 0 shown, 2 no such store, run or artifact.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from data_layout.properties import (
    ALREADY_SERVING,
    BASELINE_VERSION,
    SERVING_VERSION,
    push_record,
)
from pipeline_def import node_ids
from pipeline_def.stack import STACK_PROPERTY, stack_line
from pipeline_ops import commands
from pipeline_ops.cli import scaffold
from pipeline_ops.cli.scaffold import CommandError
from pipeline_ops.metadata.history import history_json, history_rows, print_history
from pipeline_ops.metadata.run_diff import ABSENT, changed_leaves, diff_runs, properties
from pipeline_ops.metadata.runs import (
    NODE,
    PIPELINE_RUN,
    AmbiguousRunIdError,
    PipelineRun,
    find_run,
    list_runs,
    producer_of,
)
from review.records import metric_text

# Artifact properties worth a column: splits, blessing and its baseline, push, the
# serving version a baseline holds, schema version.
KEY_PROPERTIES = (
    "split_names",
    "span",
    "blessed",
    BASELINE_VERSION,
    "pushed",
    "pushed_version",
    ALREADY_SERVING,
    SERVING_VERSION,
    "sha256",
)
# Execution properties too bulky for a tree line (the JSON output keeps them).
BULKY = {"eval_config", "input_config", "output_config", "module_path", "artifact_uri"}
MAX_VALUE_CHARS = 160
# A changed value in a diff: "path: A -> B" while that fits, else A and B a line each.
DIFF_LINE_CHARS = 100


def _fmt_time(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def run_status(run: PipelineRun) -> str:
    """The run's status (failed / running / canceled / complete) from its executions."""
    states = {e.state for e in run.nodes.values()}
    for state in ("failed", "running", "canceled"):
        if state in states:
            return state
    return "complete"


def run_seconds(run: PipelineRun) -> float:
    """Wall time from the first execution's start to the last one's end."""
    starts = [e.execution.create_time_since_epoch for e in run.nodes.values()]
    ends = [e.execution.last_update_time_since_epoch for e in run.nodes.values()]
    return (max(ends) - min(starts)) / 1000 if starts else 0.0


def print_runs(runs: list[PipelineRun], out: TextIO) -> None:
    """Runs newest first, each with its components' states and seconds."""
    for run in runs:
        print(
            f"{run.run_id}  started {_fmt_time(run.started_ms)}  "
            f"{run_seconds(run):6.1f} s  {run_status(run)}",
            file=out,
        )
        if STACK_PROPERTY in run.properties:
            print(f"    on {stack_line(json.loads(run.properties[STACK_PROPERTY]))}", file=out)
        for node in node_ids.node_ids(tune=True):
            if node in run.nodes:
                e = run.nodes[node]
                print(f"    {node:<28} {e.state:<9} {e.seconds:6.1f} s", file=out)


@dataclass
class ArtifactRow:
    """One artifact with where it came from."""

    artifact: mlmd_pb2.Artifact
    type_name: str
    producer: str
    run_id: str


def artifact_rows(runs: list[PipelineRun], type_names: dict[int, str]) -> list[ArtifactRow]:
    """Every output artifact of the runs (an artifact reused by a cached run appears once)."""
    rows, seen = [], set()
    for run in runs:
        for node, execution in run.nodes.items():
            for artifacts in execution.outputs.values():
                for a in artifacts:
                    if a.id not in seen:
                        seen.add(a.id)
                        rows.append(
                            ArtifactRow(a, type_names.get(a.type_id, "?"), node, run.run_id)
                        )
    return sorted(rows, key=lambda r: r.artifact.id)


def print_artifacts(rows: list[ArtifactRow], out: TextIO) -> None:
    """A line per artifact: id, type, producer, run, key properties, URI."""
    for row in rows:
        props = properties(row.artifact)
        key = " ".join(f"{k}={props[k]}" for k in KEY_PROPERTIES if k in props)
        print(
            f"#{row.artifact.id:<5} {row.type_name:<18} {row.producer:<22} {row.run_id}  {key}",
            file=out,
        )
        print(f"       {row.artifact.uri}", file=out)


class Lineage:
    """Walks MLMD events from an artifact back to the input files."""

    def __init__(self, store: metadata_store.MetadataStore) -> None:
        self.store = store
        self.type_names = {t.id: t.name for t in store.get_artifact_types()}
        self.seen: set[int] = set()

    def _node_and_run(self, execution: mlmd_pb2.Execution) -> tuple[str, str]:
        node, run = execution.type, ""
        for ctx in self.store.get_contexts_by_execution(execution.id):
            ctx_type = self.store.get_context_types_by_id([ctx.type_id])[0].name
            if ctx_type == NODE:
                node = ctx.name.split(".", 1)[-1]
            elif ctx_type == PIPELINE_RUN:
                run = ctx.name
        return node, run

    def tree(self, artifact: mlmd_pb2.Artifact, key: str = "") -> dict[str, Any]:
        """The artifact, the execution that made it, and its inputs, recursively."""
        node: dict[str, Any] = {
            "key": key,
            "id": artifact.id,
            "type": self.type_names.get(artifact.type_id, "?"),
            "uri": artifact.uri,
            "properties": properties(artifact),
        }
        if artifact.id in self.seen:
            node["see_above"] = True
            return node
        self.seen.add(artifact.id)
        execution = producer_of(self.store, artifact.id)
        if execution is None:
            return node
        component, run = self._node_and_run(execution)
        inputs = [
            e
            for e in self.store.get_events_by_execution_ids([execution.id])
            if e.type == mlmd_pb2.Event.INPUT
        ]
        by_id = {a.id: a for a in self.store.get_artifacts_by_id([e.artifact_id for e in inputs])}
        node["produced_by"] = {
            "component": component,
            "run": run,
            "execution_id": execution.id,
            "parameters": properties(execution),
            "inputs": [
                self.tree(by_id[e.artifact_id], e.path.steps[0].key if e.path.steps else "")
                for e in sorted(inputs, key=lambda e: e.artifact_id)
            ],
        }
        return node


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 3] + "..."


def print_tree(node: dict[str, Any], out: TextIO, prefix: str = "", last: bool = True) -> None:
    """The lineage as an indented tree, newest artifact at the top."""
    branch = "" if not prefix and last else ("└─ " if last else "├─ ")
    key = f"{node['key']}: " if node["key"] else ""
    props = " ".join(
        f"{k}={_short(v)}"
        for k, v in node["properties"].items()
        if k in KEY_PROPERTIES and v != ""  # "": no baseline, nothing serving
    )
    print(f"{prefix}{branch}{key}{node['type']} #{node['id']} {props}".rstrip(), file=out)
    child = prefix + ("" if not branch else ("   " if last else "│  "))
    if node.get("see_above"):
        print(f"{child}   (lineage shown above)", file=out)
        return
    print(f"{child}   {node['uri']}", file=out)
    made = node.get("produced_by")
    if made is None:
        return
    print(f"{child}   made by {made['component']} (run {made['run']})", file=out)
    for name, value in made["parameters"].items():
        if name not in BULKY:
            print(f"{child}     {name} = {_short(value)}", file=out)
    for i, sub in enumerate(made["inputs"]):
        print_tree(sub, out, child + "   ", i == len(made["inputs"]) - 1)


def latest_pushed_model(runs: list[PipelineRun]) -> mlmd_pb2.Artifact:
    """The newest PushedModel that was pushed (or already serving)."""
    for run in runs:
        artifact = run.output(node_ids.PUSHER, "pushed_model")
        if artifact is not None and push_record(artifact).pushed:
            return artifact
    raise CommandError("no run has pushed a model yet")


def _value_text(value: Any) -> str:
    """A value of a diff, whole: text as it is, anything else (and text on lines) as JSON."""
    if value is ABSENT:
        return "(absent)"
    if isinstance(value, str) and value and "\n" not in value:
        return value
    return json.dumps(value, sort_keys=True)


def _print_change(path: str, a: Any, b: Any, out: TextIO) -> None:
    """One changed value, whole: ``path: A -> B``, or A and B a line each when that is long."""
    fa, fb = _value_text(a), _value_text(b)
    line = f"  {path}: {fa} -> {fb}"
    if len(line) <= DIFF_LINE_CHARS:
        print(line, file=out)
    else:
        print(f"  {path}:\n    A: {fa}\n    B: {fb}", file=out)


def print_diff(diff: dict[str, Any], out: TextIO) -> None:
    """The diff for people: only what changed, A then B."""
    a, b = diff["runs"]
    print(f"A = {a}\nB = {b}", file=out)
    fp_a, fp_b = diff["inputs"]["input_fingerprint"]
    print("\nInput data:", "same" if fp_a == fp_b else "DIFFERENT", file=out)
    if fp_a != fp_b:
        print(f"  A: {fp_a}\n  B: {fp_b}", file=out)
    print(
        "\nComponent states that differ:" if diff["states"] else "\nComponent states: same",
        file=out,
    )
    for node, (sa, sb) in diff["states"].items():
        print(f"  {node:<28} {sa or '-':<9} -> {sb or '-'}", file=out)
    print("\nParameters that differ:" if diff["parameters"] else "\nParameters: same", file=out)
    for node, changed in diff["parameters"].items():
        for key, (va, vb) in changed.items():
            for path, leaf_a, leaf_b in changed_leaves(va, vb, f"{node}.{key}"):
                _print_change(path, leaf_a, leaf_b, out)
    print("\nMetrics (overall, test split):", file=out)
    for name, (va, vb) in diff["metrics"].items():
        delta = f"{vb - va:+.4f}" if va is not None and vb is not None else ""
        fa, fb = metric_text(va, name), metric_text(vb, name)
        print(f"  {name:<18} {fa:>10} {fb:>10} {delta:>9}", file=out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = scaffold.parser_for(commands.INSPECT, __doc__)
    scaffold.add_read_options(parser)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return scaffold.add_subcommand(sub, name, help_text)

    command("runs", "the runs, newest first")
    history = command("history", "one line per run, oldest first: span, drift, AUC, push")
    history.add_argument("--format", choices=["text", "json"], default="text")
    artifacts = command("artifacts", "artifacts with producer and key properties")
    artifacts.add_argument("--type", default=None, help="e.g. Model, PushedModel, Examples")
    artifacts.add_argument("--run", default=None, help="run id, or its start")
    lineage = command("lineage", "from an artifact back to the input files")
    lineage.add_argument("artifact_id", nargs="?", type=int)
    lineage.add_argument("--pushed-model", choices=["latest"], default=None)
    lineage.add_argument("--format", choices=["text", "json"], default="text")
    diff = command("diff", "what differs between two runs")
    diff.add_argument("run_a")
    diff.add_argument("run_b")
    diff.add_argument("--format", choices=["text", "json"], default="text")
    args = parser.parse_args(argv)
    if args.command == "lineage" and (args.artifact_id is None) == (args.pushed_model is None):
        parser.error("lineage needs an ARTIFACT_ID or --pushed-model latest (one of them)")
    return args


def _run(store: metadata_store.MetadataStore, name: str, run_id: str, where: str) -> PipelineRun:
    with scaffold.bad_input(AmbiguousRunIdError):
        run = find_run(store, name, run_id)
    if run is None:
        raise CommandError(f"no run {run_id!r} of pipeline {name} in {where}")
    return run


@dataclass(frozen=True)
class Opened:
    """The store a subcommand reads, where it is, and its pipeline's runs (newest first)."""

    args: argparse.Namespace
    store: metadata_store.MetadataStore
    where: str
    runs: list[PipelineRun]

    def run(self, run_id: str) -> PipelineRun:
        """The pipeline's run ``run_id``; CommandError when the store has none."""
        return _run(self.store, self.args.pipeline_name, run_id, self.where)


def _print_json(value: Any, out: TextIO) -> None:
    print(json.dumps(value, indent=2, sort_keys=True), file=out)


def _show_runs(opened: Opened, out: TextIO) -> None:
    print_runs(opened.runs, out)


def _show_history(opened: Opened, out: TextIO) -> None:
    rows = history_rows(list(reversed(opened.runs)))
    if opened.args.format == "json":
        _print_json(history_json(rows), out)
    else:
        print_history(rows, out)


def _show_artifacts(opened: Opened, out: TextIO) -> None:
    args = opened.args
    chosen = [opened.run(args.run)] if args.run else opened.runs
    rows = artifact_rows(chosen, {t.id: t.name for t in opened.store.get_artifact_types()})
    if args.type:
        rows = [r for r in rows if r.type_name.split(".")[-1] == args.type]
        if not rows:
            raise CommandError(f"no artifacts of type {args.type} in {opened.where}")
    print_artifacts(rows, out)


def _lineage_target(opened: Opened) -> mlmd_pb2.Artifact:
    """The artifact whose lineage is asked: the latest pushed model, or one by id."""
    if opened.args.pushed_model:
        return latest_pushed_model(opened.runs)
    found = opened.store.get_artifacts_by_id([opened.args.artifact_id])
    if not found:
        raise CommandError(f"no artifact #{opened.args.artifact_id} in {opened.where}")
    return found[0]


def _show_lineage(opened: Opened, out: TextIO) -> None:
    tree = Lineage(opened.store).tree(_lineage_target(opened))
    if opened.args.format == "json":
        _print_json(tree, out)
    else:
        print_tree(tree, out)


def _show_diff(opened: Opened, out: TextIO) -> None:
    diff = diff_runs(opened.store, opened.run(opened.args.run_a), opened.run(opened.args.run_b))
    if opened.args.format == "json":
        _print_json(diff, out)
    else:
        print_diff(diff, out)


# Each subcommand's printer, by the name parse_args gives it.
SUBCOMMANDS: dict[str, Callable[[Opened, TextIO], None]] = {
    "runs": _show_runs,
    "history": _show_history,
    "artifacts": _show_artifacts,
    "lineage": _show_lineage,
    "diff": _show_diff,
}


def execute(args: argparse.Namespace, out: TextIO) -> None:
    """Run the sub-command; CommandError when there is nothing to show."""
    scaffold.resolve_read_options(args)
    store, where = scaffold.open_existing_store(args)
    runs = list_runs(store, args.pipeline_name)
    if not runs:
        raise CommandError(f"the store ({where}) has no runs of pipeline {args.pipeline_name}")
    SUBCOMMANDS[args.command](Opened(args, store, where, runs), out)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)

    def body() -> int:
        execute(args, sys.stdout)
        return commands.EXIT_OK

    return scaffold.execute(body)


if __name__ == "__main__":
    sys.exit(main())
