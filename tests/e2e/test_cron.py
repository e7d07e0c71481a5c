"""The tutorial's cron line, run as spans land: the console script, its defaults, one output dir.

One data root, one output directory, TFX's cache on (the default), and after each
arrival the documented line ``wide-deep-run --data-root DIR --span latest --window 2``
(``--output-dir`` added so the test leaves the checkout's ``outputs/`` alone). The
writers follow the ``_SUCCESS`` convention:

1. span 1 lands: trained from scratch, pushed;
2. span 2 lands: the window is spans 1 and 2, warm-started from span 1's push, pushed;
3. nothing lands: the rerun says so and exits 0 before any TFX step;
4. span 3, with card payments gone, is half-written (no ``_SUCCESS`` yet): not
   ``latest``; span 2 is, already learned, so nothing to do;
5. span 3's marker lands: read at last, its window spans 2 and 3, and its shift
   stopped by the validator; nothing pushed.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from run_commands import PROJECT, inspect_cli

from data_layout.spans import SUCCESS_MARKER
from pipeline_def import node_ids
from pipeline_def.project_paths import sample_csv
from pipeline_ops import commands
from pipeline_ops.session.summary import SUMMARY_FILE

pytestmark = pytest.mark.slow
ROWS_PER_SPAN = 3000
WINDOW = "2"


def cron_line(root: Path, out: Path) -> list[str]:
    """The tutorial's cron line, as the console script of this environment."""
    script = Path(sys.executable).parent / commands.RUN
    return [str(script), "--data-root", str(root), "--span", "latest", "--window", WINDOW,
            "--output-dir", str(out)]  # fmt: skip


@pytest.fixture(scope="module")
def sample() -> tuple[list[str], list[dict[str, str]]]:
    """The shipped taxi sample's header and rows."""
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def land(root: Path, span: int, header: list[str], rows: list[dict[str, str]], done: bool) -> Path:
    """Write span folder ``span-<span>/`` as a Spark job does, its marker last when ``done``."""
    folder = root / f"span-{span}"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "part-00000.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, header)
        writer.writeheader()
        writer.writerows(rows)
    if done:
        (folder / SUCCESS_MARKER).touch()
    return folder


def _versions(out: Path) -> list[str]:
    serving = out / "serving"
    if not serving.exists():
        return []
    return sorted((p.name for p in serving.iterdir() if p.name.isdigit()), key=int)


def _run(root: Path, out: Path) -> dict:
    started = time.monotonic()
    result = subprocess.run(
        cron_line(root, out), capture_output=True, text=True, timeout=900, check=False,
        cwd=PROJECT,
    )  # fmt: skip
    seconds = time.monotonic() - started
    summary_file = out / SUMMARY_FILE
    summary = json.loads(summary_file.read_text()) if summary_file.exists() else {}
    return {"result": result, "summary": summary, "seconds": seconds, "versions": _versions(out)}


@pytest.fixture(scope="module")
def cron(tmp_path_factory, sample) -> dict[str, dict]:
    """The five cron firings in order, each with its process, summary, seconds and versions."""
    header, rows = sample
    root = tmp_path_factory.mktemp("arriving")
    out = tmp_path_factory.mktemp("cron-out")
    part = {s: rows[(s - 1) * ROWS_PER_SPAN : s * ROWS_PER_SPAN] for s in (1, 2, 3)}
    runs: dict[str, dict] = {"out": {"dir": out}}
    land(root, 1, header, part[1], done=True)
    runs["span1"] = _run(root, out)
    land(root, 2, header, part[2], done=True)
    runs["span2"] = _run(root, out)
    runs["nothing_new"] = _run(root, out)
    drifted = [{**r, "payment_type": "Cash"} for r in part[3]]
    half = land(root, 3, header, drifted, done=False)
    runs["half_written"] = _run(root, out)
    (half / SUCCESS_MARKER).touch()
    runs["drifted"] = _run(root, out)
    return runs


def _ok(run: dict) -> None:
    assert run["result"].returncode == 0, run["result"].stdout + run["result"].stderr


def test_the_first_span_is_trained_and_pushed(cron):
    run = cron["span1"]
    _ok(run)
    assert run["summary"]["span"] == 1
    assert [w["span"] for w in run["summary"]["window"]] == [1]
    assert run["summary"]["warm_started_from"] is None
    assert len(run["versions"]) == 1


def test_a_new_span_is_read_with_its_window_and_warm_started(cron):
    run = cron["span2"]
    _ok(run)
    summary = run["summary"]
    assert summary["span"] == 2
    assert summary["window"] == [{"span": s, "rows": ROWS_PER_SPAN} for s in (1, 2)]
    assert summary["warm_started_from"] == cron["span1"]["versions"][0]
    assert summary["pushed_model_path"] and len(run["versions"]) == 2


def test_nothing_new_is_nothing_to_do_in_seconds(cron):
    run = cron["nothing_new"]
    _ok(run)
    assert "span 2: serving version" in run["result"].stdout
    assert "nothing to do" in run["result"].stdout
    assert run["versions"] == cron["span2"]["versions"]
    # The summary on disk is still span 2's run: no TFX step started.
    assert run["summary"]["run_id"] == cron["span2"]["summary"]["run_id"]
    assert run["seconds"] < 30


def test_a_half_written_span_is_not_latest(cron):
    run = cron["half_written"]
    _ok(run)
    out = run["result"].stdout
    assert "span 3 (span-3/) has no _SUCCESS yet: still being written; taking span 2" in out
    assert "nothing to do" in out
    assert run["versions"] == cron["span2"]["versions"]


def test_the_completed_span_is_read_and_its_shift_stopped_with_nothing_pushed(cron):
    run = cron["drifted"]
    assert run["result"].returncode == 1
    assert (run["summary"]["span"], run["summary"]["reused_spans"]) == (3, [2])
    assert [w["span"] for w in run["summary"]["window"]] == [2, 3]
    assert run["summary"]["failed_component"] == "ExampleValidator"
    assert "payment_type" in run["result"].stderr
    assert run["versions"] == cron["span2"]["versions"]


def test_the_history_shows_the_loop(cron):
    out = cron["out"]["dir"]
    shown = inspect_cli("--output-dir", str(out), "history", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert [r["span"] for r in rows] == [1, 2, 3]
    assert [r["window"] for r in rows] == [[1], [1, 2], [2, 3]]
    assert [r["serving_span"] for r in rows] == [1, 2, 2]
    assert [r["pushed_version"] is not None for r in rows] == [True, True, False]
    # Drift measured on every run; only the third run's stopped it.
    assert [r["drift"].startswith("DRIFT ") for r in rows] == [False, False, True]
    assert [r["stopped_in"] for r in rows] == ["", "", node_ids.EXAMPLE_VALIDATOR]
    # Each run read new files: ExampleGen ran; the schema step, unchanged, was cached.
    assert [node_ids.EXAMPLE_GEN in r["cached"] for r in rows] == [False, False, False]
    assert [node_ids.CURATED_SCHEMA in r["cached"] for r in rows] == [False, True, True]
    text = inspect_cli("--output-dir", str(out), "history")
    assert "cached" in text.stdout.splitlines()[0]
    assert "serving" in text.stdout.splitlines()[0]
