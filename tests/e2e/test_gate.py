"""The gate and the HTML report on real runs: a worse model is neither blessed nor pushed,
nor is one worse on a slice only, and the report each run writes renders in a real
browser (headless Chromium)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from run_commands import review_cli

from components.gated_evaluator import CANDIDATE_NAME
from data_layout.properties import HELD_SLICES
from datasets.taxi import DATASET as TAXI
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import latest_run
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE
from review import paired_comparison, scored_rows

pytestmark = pytest.mark.slow


def test_a_worse_model_is_not_blessed_and_nothing_is_pushed(regression):
    output_dir, before, after = regression
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert summary["status"] == "succeeded"
    assert summary["blessed"] is False
    assert summary["pushed_model_path"] is None
    assert after == before  # no new version, no file touched in the old ones
    run = latest_run(
        open_store(SqliteMetadata(str(output_dir / "metadata.sqlite"))), "taxi-wide-deep"
    )
    pushed = run.nodes[node_ids.PUSHER].outputs["pushed_model"][0]
    assert pushed.custom_properties["pushed"].int_value == 0


def test_the_worse_model_is_worse_beyond_the_noise_of_the_same_test_rows(regression):
    output_dir, _, _ = regression
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    run = latest_run(
        open_store(SqliteMetadata(str(output_dir / "metadata.sqlite"))), "taxi-wide-deep"
    )
    comparison = paired_comparison.read(run.output(node_ids.EVALUATOR, "evaluation").uri)
    assert comparison.rows == summary["metrics"]["example_count"]
    assert comparison.high < -comparison.tolerance and comparison.worse
    # Both models scored the same rows: the candidate's AUC is TFMA's, to its precision.
    assert comparison.candidate_auc == pytest.approx(summary["metrics"]["auc"], abs=2e-3)
    blessing = run.output(node_ids.EVALUATOR, "blessing")
    assert blessing.custom_properties["auc_change_interval"].string_value == summary["comparison"]
    # The overall comparison first; the slices it lost beyond their noise follow, if any.
    assert summary["comparison"].startswith(comparison.describe())


def _report_of_latest_run(output_dir: Path, tmp_path: Path) -> Path:
    """The page the run's EvaluationReport wrote, as a .html file a browser renders.

    The page is the file at the artifact's URI (system.HTML), a name without a suffix:
    KFP's viewer reads its bytes, and a browser opening the file needs the suffix.
    """
    run = latest_run(
        open_store(SqliteMetadata(str(output_dir / "metadata.sqlite"))), "taxi-wide-deep"
    )
    (artifact,) = run.nodes[node_ids.REPORT].outputs["report"]
    tmp_path.mkdir(parents=True, exist_ok=True)
    page = tmp_path / "report.html"
    shutil.copy(artifact.uri, page)
    return page


def _rendered(browser, page: Path) -> dict:
    from selenium.webdriver.common.by import By

    browser.get(page.as_uri())
    charts = browser.execute_script(
        "return Array.from(document.querySelectorAll('#overall-charts svg.chart')).map(s => "
        "({title: s.getAttribute('aria-label'), w: s.getBoundingClientRect().width, "
        "marks: s.querySelectorAll('polyline.series, circle').length}))"
    )
    rows = [
        [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")]
        for row in browser.find_elements(By.CSS_SELECTOR, "#slices tr")[1:]
    ]
    return {
        "verdict": browser.find_element(By.ID, "verdict").text,
        "checks": browser.find_element(By.ID, "checks").text,
        "push": browser.find_element(By.ID, "push").text,
        "charts": charts,
        "text": browser.find_element(By.TAG_NAME, "body").text,
        "rows": rows,
    }


def test_report_artifact_renders_in_chromium(first_run, browser, tmp_path):
    page = _report_of_latest_run(first_run[0], tmp_path)
    text = page.read_text()
    assert not re.search(r"""(src|href)=['"]?https?:""", text)  # self-contained
    shown = _rendered(browser, page)
    assert shown["verdict"] == "BLESSED"
    # The whole split's charts, drawn inline (SVG: nothing fetched, no image files).
    titles = [c["title"] for c in shown["charts"]]
    assert titles == ["ROC curve", "Precision-recall curve", "Calibration (95% intervals)"]
    assert all(c["w"] > 100 and c["marks"] > 0 for c in shown["charts"]), shown["charts"]
    assert "<img" not in text
    names = [row[0] for row in shown["rows"]]
    assert names[0] == "Overall"
    assert {"payment_type=Cash", "payment_type=Credit Card", "trip_start_hour=0"} <= set(names)
    overall = shown["rows"][0]
    assert int(overall[1].replace(",", "")) > 900 and 0.85 < float(overall[2]) <= 1


def test_review_html_of_the_regression_shows_the_failure(regression, browser, tmp_path):
    output_dir, _, _ = regression
    page = tmp_path / "review.html"
    assert review_cli("--output-dir", str(output_dir), "--html", str(page)).returncode == 0
    shown = _rendered(browser, page)
    assert shown["verdict"] == "NOT BLESSED"
    assert "change" in shown["checks"] and "FAIL" in shown["checks"]
    assert "paired bootstrap on" in shown["text"]
    assert shown["push"] == "Not pushed: the model was not blessed."
    assert len(shown["charts"]) == 3
    # The report component wrote the same verdict for that run.
    component_page = _report_of_latest_run(output_dir, tmp_path / "component")
    assert _rendered(browser, component_page)["verdict"] == "NOT BLESSED"


@pytest.fixture(scope="module")
def slice_regression(
    first_run, small_data_root, tmp_path_factory, run_pipeline
) -> tuple[Path, Path]:
    """The first run's store and serving dir, then a candidate that loses on one slice.

    The candidate's data is the first run's rows with the tips of the train split's
    Credit Card rows shuffled among them (``write_slice_regression``): it learns the
    slice's share of big tips but not who among card payers tips, and is judged on
    the same, intact test rows. Returns (output dir, the candidate's data root).
    """
    from fixtures.make_runs import write_slice_regression

    source, _ = first_run
    root = tmp_path_factory.mktemp("slice_regression")
    output_dir = root / "out"
    shutil.copytree(source, output_dir)
    data = write_slice_regression(small_data_root / "taxi.csv", root / "data")
    result = run_pipeline(data, output_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    return output_dir, data


def _examples(output_dir: Path, run_index: int, split: str) -> set[bytes]:
    runs = sorted((output_dir / "pipeline" / "CsvExampleGen" / "examples").iterdir(),
                  key=lambda p: int(p.name))  # fmt: skip
    return set(scored_rows.split_records(str(runs[run_index]), split))


def test_a_candidate_that_loses_on_one_slice_is_judged_by_the_slice_bound(slice_regression):
    """A real candidate worse on Credit Card only, judged slice by slice as the rule says.

    Whether this run's loss on the slice goes beyond the bound is up to its training:
    the slice's 326 test rows give an interval of about +-0.065 around a loss of about
    0.12 (held in three runs of four here, the bound -0.05), and a larger loss would
    spill past the overall bound too (the slice holds 16% of the positive-negative
    pairs). So the test checks the rule on whichever side the run falls, and the held
    side is also checked, deterministically, on the recorded "worse" run
    (tests/review/test_evaluation.py) and in the gate's unit tests.
    """
    output_dir, _ = slice_regression
    # Judged on the very rows the serving model was: only train rows were touched.
    assert _examples(output_dir, -1, "test") == _examples(output_dir, 0, "test")
    assert _examples(output_dir, -1, "train") != _examples(output_dir, 0, "train")
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    run = latest_run(
        open_store(SqliteMetadata(str(output_dir / "metadata.sqlite"))), "taxi-wide-deep"
    )
    evaluation = run.output(node_ids.EVALUATOR, "evaluation").uri
    overall = paired_comparison.read(evaluation)
    slices = {s.name: s for s in paired_comparison.read_slices(evaluation)}
    card = slices["payment_type=Credit Card"]
    assert card.gated and card.comparison.difference < 0  # the slice lost
    # Cash holds no big tip in these rows: no AUC, never gated.
    assert slices["payment_type=Cash"].undefined == "no positive example"
    # The rule: a slice holds the candidate back when it has the rows and its whole
    # interval lies below the bound; the candidate is blessed when nothing holds it.
    bound = -TAXI.slice_max_auc_drop
    beyond = {name for name, s in slices.items()
              if s.gated and s.comparison is not None and s.comparison.high < bound}  # fmt: skip
    held = {name for name, s in slices.items() if s.held}
    assert held == beyond
    assert summary["blessed"] is (not overall.worse and not held)
    blessing = run.output(node_ids.EVALUATOR, "blessing")
    assert set(json.loads(blessing.custom_properties[HELD_SLICES].string_value)) == held
    verdict = blessing.custom_properties["auc_change_interval"].string_value
    assert verdict.startswith(overall.describe()) and verdict == summary["comparison"]
    assert ("held back on" in verdict) is bool(held)
    if card.held:
        assert summary["pushed_model_path"] is None and card.name in verdict
    # The review says which slice, in its table of slices against the serving model:
    # the row with an interval (a..b), FAIL exactly when the slice held the candidate back.
    review = review_cli("--output-dir", str(output_dir))
    assert review.returncode == 0, review.stderr
    slice_table = review.stdout.split("\nAUC by slice", 1)[1]
    (card_line,) = [line for line in slice_table.splitlines()
                    if line.strip().startswith(f"{card.name} ") and ".." in line]  # fmt: skip
    assert ("FAIL" in card_line) is card.held, review.stdout


def test_the_candidate_is_named_alike_with_and_without_a_serving_model(slice_regression):
    import tensorflow_model_analysis as tfma

    output_dir, _ = slice_regression
    evaluations = sorted((output_dir / "pipeline" / "Evaluator" / "evaluation").iterdir(),
                         key=lambda p: int(p.name))  # fmt: skip
    first, last = (str(e) for e in (evaluations[0], evaluations[-1]))
    assert paired_comparison.read(first) is None and paired_comparison.read(last) is not None
    results = tfma.load_eval_results([first, last], model_name=CANDIDATE_NAME)
    overall = [dict(r.slicing_metrics)[()][""][""]["auc"]["doubleValue"]
               for r in results.get_results()]  # fmt: skip
    assert len(overall) == 2 and all(0.5 < auc <= 1 for auc in overall)
