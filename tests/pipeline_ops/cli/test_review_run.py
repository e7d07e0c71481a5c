"""The review command on recorded runs: the verdict with each check, the push, the slices."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from run_commands import review_cli, stderr_for_people

from pipeline_def import node_ids
from pipeline_ops import commands
from pipeline_ops.cli import review_run

# The AUC change check as the gate judged it: both AUCs, then its paired interval.
_CHANGE = (
    r"(0\.\d{4})\s+(0\.\d{4})\s+change >= -0\.0100 unless its 95% interval "
    r"([-+]\d\.\d{4}) to ([-+]\d\.\d{4}) is below"
)


@pytest.fixture
def run_review(recorded_runs, capsys):
    """The review command in this process on the recorded runs: (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        code = review_run.main(["--output-dir", str(recorded_runs.output_dir), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_the_first_run_is_blessed_on_the_absolute_bound_and_pushed(recorded_runs, run_review):
    code, out, _ = run_review("--run", recorded_runs.good)
    assert code == commands.EXIT_OK
    assert f"Evaluation review of run {recorded_runs.good}" in out
    assert "Verdict: BLESSED (on the test split)" in out
    assert re.search(r"^\s+auc\s+absolute\s+0\.9\d{3}\s+-\s+>= 0\.9000\s+pass$", out, re.M)
    assert "only the absolute bounds apply" in out
    assert re.search(
        rf"Pushed to {re.escape(str(recorded_runs.output_dir))}/serving/\d+$", out, re.M
    )
    for slice_name in ("Overall", "payment_type=Credit Card", "trip_start_hour=12"):
        assert re.search(rf"^\s+{re.escape(slice_name)}\s+\d+\s+0\.\d{{4}}", out, re.M), slice_name
    # The serving check asked the served candidate before the push.
    assert re.search(
        r"^  Served right \(stand-in\): 100 rows, 3 REST forms, the Evaluator's scores\.$",
        out,
        re.M,
    )
    assert re.search(r"^  Serving cost: load \d+\.\d s, p50 \d+\.\d ms, p99 \d+\.\d ms", out, re.M)
    # Cash has no positive example in the recorded test rows: no AUC, not 0.0000.
    assert re.search(r"^\s+payment_type=Cash\s+\d+\s+undefined\s+undefined", out, re.M)


def test_the_rerun_is_compared_with_the_served_model_and_not_copied_again(
    recorded_runs, run_review
):
    code, out, _ = run_review("--run", recorded_runs.rerun)
    assert code == commands.EXIT_OK and "Verdict: BLESSED" in out
    change = re.search(rf"^\s+auc\s+change\s+{_CHANGE}\s+pass$", out, re.M)
    assert change and change.group(1) == change.group(2), out  # the same model
    assert float(change.group(3)) == float(change.group(4)) == 0  # on every draw of rows
    assert "Already serving, not copied again: " in out


def test_a_worse_model_fails_the_change_check_and_is_not_pushed(recorded_runs, run_review):
    code, out, _ = run_review("--run", recorded_runs.worse)
    assert code == commands.EXIT_OK
    assert "Verdict: NOT BLESSED" in out
    change = re.search(rf"^\s+auc\s+change\s+{_CHANGE}\s+FAIL$", out, re.M)
    assert change, out
    assert float(change.group(1)) < float(change.group(2)) - 0.01
    assert float(change.group(4)) < -0.01  # the whole interval below the tolerated drop
    assert "Not pushed: the model was not blessed." in out
    assert "Serving check: not checked: the Evaluator did not bless the candidate." in out


def test_without_run_the_newest_is_reviewed(recorded_runs, run_review):
    code, out, _ = run_review()
    assert code == commands.EXIT_OK
    assert f"Evaluation review of run {recorded_runs.slice_regression}" in out


def test_a_run_stopped_before_its_evaluation_has_none_to_review(recorded_runs, run_review):
    code, out, err = run_review("--run", recorded_runs.broken)
    assert code == commands.EXIT_FAILED and out == ""
    assert err.strip() == (
        f"error: run {recorded_runs.broken} has no evaluation to review: "
        f"{node_ids.EXAMPLE_VALIDATOR} failed. The newest run with one: {recorded_runs.worse} "
        f"(--run {recorded_runs.worse})."
    )


def test_an_unknown_run_or_dataset_is_bad_input(recorded_runs, run_review):
    code, _, err = run_review("--run", "no-such-run")
    assert code == commands.EXIT_BAD_INPUT
    assert "no run 'no-such-run' of pipeline taxi-wide-deep in SQLite " in err
    code, _, err = run_review("--dataset", "nope")
    assert code == commands.EXIT_BAD_INPUT and "no dataset 'nope'" in err


def test_html_review_is_written_beside_the_terminal_one(recorded_runs, run_review, tmp_path):
    page = tmp_path / "pages" / "review.html"
    code, out, _ = run_review("--run", recorded_runs.worse, "--html", str(page))
    assert code == commands.EXIT_OK and f"HTML review: {page}" in out
    html = page.read_text()
    assert "NOT BLESSED" in html and "<img" not in html
    assert re.search(
        r"<div class='charts' id='overall-charts'>(<svg class='chart' [^>]*>.*?</svg>){3}</div>",
        html,
    )


def test_no_store_is_a_clear_error_from_the_console_command(tmp_path):
    result = review_cli("--output-dir", str(tmp_path / "nowhere"))
    assert result.returncode == commands.EXIT_BAD_INPUT
    assert result.stderr.strip() == (
        f"error: no metadata store at {tmp_path / 'nowhere' / 'metadata.sqlite'}: "
        "run the pipeline first"
    )
    assert not (tmp_path / "nowhere").exists()  # reading created nothing


def test_the_review_names_its_run_and_shows_the_history_up_to_it(
    recorded_runs, run_review, tmp_path
):
    page = tmp_path / "review.html"
    code, out, _ = run_review("--run", recorded_runs.rerun, "--html", str(page))
    assert code == commands.EXIT_OK
    assert f"Evaluation review: taxi-wide-deep, run {recorded_runs.rerun}" in out
    block = out[out.index("History (oldest first):") :].split("\n\n")[0]
    history = block.splitlines()[2:]
    # The runs up to the reviewed one, oldest first; the later ones are not its history.
    assert [line.split()[0] for line in history] == [recorded_runs.good, recorded_runs.rerun]
    assert history[0].split()[-1].isdigit()  # the first run pushed a version
    assert history[1].split()[-1] == "-"  # the rerun's model was already serving
    html = page.read_text()
    title = re.search(r"<title>(.*?)</title>", html).group(1)
    assert f"taxi-wide-deep, run {recorded_runs.rerun}" in title and "vs serving " in title
    assert f"<td>{recorded_runs.good}</td>" in html and "id='history-chart'" in html


def test_html_naming_a_folder_is_bad_input_and_writes_nothing(recorded_runs, run_review, tmp_path):
    code, out, err = run_review("--html", str(tmp_path))
    assert code == commands.EXIT_BAD_INPUT and out == ""
    assert err.strip() == f"error: --html {tmp_path} is a folder: name the page's file in it"
    assert list(tmp_path.iterdir()) == []


def test_a_run_is_named_by_the_start_of_its_id(recorded_runs, run_review):
    code, out, _ = run_review("--run", recorded_runs.worse[:-7])
    assert code == commands.EXIT_OK and recorded_runs.worse in out
    code, _, err = run_review("--run", "20")
    assert code == commands.EXIT_BAD_INPUT
    assert err.startswith("error: run '20' could be any of ") and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("run", "verdict"),
    [
        ("good", commands.EXIT_OK),  # blessed and pushed
        ("rerun", commands.EXIT_OK),  # blessed, the same model already serving
        ("worse", commands.EXIT_NOT_BLESSED),  # held back by the gate
        ("slice_regression", commands.EXIT_OK),  # blessed, the slice's loss within its noise
    ],
)
def test_the_detailed_exitcode_is_the_reviewed_runs_verdict(
    recorded_runs, run_review, run, verdict
):
    run_id = getattr(recorded_runs, run)
    code, out, _ = run_review("--run", run_id, "--detailed-exitcode")
    assert code == verdict
    assert ("Verdict: BLESSED" in out) is (verdict == commands.EXIT_OK)
    # Without the flag a review shown is a review shown, whatever its verdict.
    assert run_review("--run", run_id)[0] == commands.EXIT_OK


def test_the_detailed_exitcode_keeps_the_codes_of_errors(recorded_runs, run_review):
    assert run_review("--run", recorded_runs.broken, "--detailed-exitcode")[0] == (
        commands.EXIT_FAILED
    )
    assert run_review("--run", "no-such-run", "--detailed-exitcode")[0] == commands.EXIT_BAD_INPUT


@pytest.mark.slow  # starts the console command twice
def test_ci_reads_the_verdict_from_the_console_command(recorded_runs):
    """As a CI step runs it: the console script in its own process, its code read."""
    store = ("--output-dir", str(recorded_runs.output_dir), "--detailed-exitcode")
    held = review_cli(*store, "--run", recorded_runs.worse)
    assert held.returncode == commands.EXIT_NOT_BLESSED, held.stderr
    assert "Verdict: NOT BLESSED" in held.stdout and stderr_for_people(held.stderr) == ""
    blessed = review_cli(*store, "--run", recorded_runs.good)
    assert blessed.returncode == commands.EXIT_OK, blessed.stderr
    assert "Verdict: BLESSED" in blessed.stdout


def test_the_review_names_what_changed_against_the_serving_model(run_review, recorded_runs):
    code, out, _ = run_review("--run", recorded_runs.worse)
    assert code == commands.EXIT_OK
    section = out.split("What changed against the serving model's run:", 1)[1].split("\n\n")[0]
    # The worse run trained with learning rates of 1e-9 (tests/fixtures/make_runs.py).
    assert re.search(r"^\s+hyperparameter deep_learning_rate\s+0\.002\s+1e-09$", section, re.M)
    assert re.search(r"^\s+hyperparameter wide_learning_rate\s+0\.02\s+1e-09$", section, re.M)
    # Only what differs: the data and the code were the same.
    assert "data:" not in section and "model code" not in section


@pytest.mark.parametrize("flags", [(), ("--all",)], ids=["default", "all"])
def test_the_terminal_review_fits_120_columns(run_review, recorded_runs, flags):
    for run in (recorded_runs.good, recorded_runs.worse, recorded_runs.slice_regression):
        code, out, _ = run_review("--run", run, *flags)
        assert code == commands.EXIT_OK
        wide = [line for line in out.splitlines() if len(line) > 120]
        assert not wide, wide


def test_all_lists_every_slice(run_review, recorded_runs):
    _, some, _ = run_review("--run", recorded_runs.worse)
    _, every, _ = run_review("--run", recorded_runs.worse, "--all")
    hidden = re.search(r"(\d+) more slice\(s\): --all shows them all", some)
    assert hidden and "--all shows them all" not in every
    # Each hidden slice's row, in place of the line that counted them.
    assert len(every.splitlines()) >= len(some.splitlines()) + int(hidden.group(1)) - 1


def test_a_threshold_the_run_did_not_record_is_bad_input(run_review, recorded_runs):
    code, out, err = run_review("--run", recorded_runs.worse, "--threshold", "0.3")
    assert code == commands.EXIT_BAD_INPUT and out == ""
    assert err.strip().startswith("error: --threshold 0.3: the run recorded error rates at")


@pytest.mark.slow  # starts the console command
def test_the_console_command_imports_neither_tensorflow_nor_tfma_nor_beam(recorded_runs):
    """TFMA's files are read without TFMA: the review answers in about a second."""
    profiled = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    done = review_cli("--output-dir", str(recorded_runs.output_dir), env=profiled)
    assert done.returncode == commands.EXIT_OK, done.stderr
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)$", done.stderr, re.M))
    assert "review.tfma_files" in imported and "data_layout.files" in imported
    assert not {"tensorflow", "tensorflow_model_analysis", "apache_beam"} & imported


def test_a_damaged_evaluation_is_named_and_exits_failed(recorded_runs, run_review, tmp_path):
    from fixtures.make_runs import relocate

    copy = tmp_path / "out"
    shutil.copytree(recorded_runs.output_dir, copy)
    relocate(copy / "metadata.sqlite", str(recorded_runs.output_dir), str(copy))
    for metrics in copy.glob("pipeline/Evaluator/evaluation/*/metrics-*"):
        metrics.write_bytes(metrics.read_bytes()[:-100])

    code, out, err = run_review("--run", recorded_runs.good, "--output-dir", str(copy))
    assert code == commands.EXIT_FAILED and out == ""
    assert re.fullmatch(
        rf"error: run {recorded_runs.good}'s evaluation cannot be read: "
        rf"{copy}/pipeline/Evaluator/evaluation/\d+/metrics-\S+: cut short at byte \d+ "
        r"\(a record ran to \d+\)\n",
        err,
    ), err
