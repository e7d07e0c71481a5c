"""The review page in a real browser: the per-slice selector redraws the curves, offline.

Built from a recorded run's evaluation with per-slice plots and comparisons added
(tests/review_inputs.py), so it needs no pipeline run: Debian's chromium and
chromedriver through selenium, as tests/e2e/test_gate.py drives them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from review_inputs import add_slice_plots, comparison, evaluation_of, write_slices

from data_layout.properties import Outcome, PushRecord
from review.evaluation import load_review
from review.page import render_html
from review.paired_comparison import SliceComparison
from review.records import HistoryPoint

SCREENSHOT = Path("/tmp/review_page.png")


@pytest.fixture
def page(recorded_runs, tmp_path) -> Path:
    """The review page of the recorded worse run, with two slices' curves and comparisons."""
    folder = evaluation_of(recorded_runs, recorded_runs.worse, tmp_path / "evaluation")
    add_slice_plots(folder, {("payment_type", "Credit Card"): 0.4, ("company", "Flash Cab"): 0.8})
    write_slices(
        folder,
        [
            SliceComparison(
                "payment_type", "Credit Card", 215, 136, comparison(0.6, 0.8, -0.3, -0.1, 215)
            ),
            SliceComparison("payment_type", "Cash", 398, 0, None, "no positive example"),
        ],
    )
    review = load_review(
        str(folder), Outcome(False, "1795448548", PushRecord(pushed=False)), run_id="r-3"
    )
    history = [
        HistoryPoint("r-1", None, 0.925, None, None, True, "1795448548"),
        HistoryPoint("r-2", None, 0.925, 0.925, (-0.01, 0.01), True, None),
        HistoryPoint("r-3", None, 0.548, 0.925, (-0.42, -0.33), False, None),
    ]
    review = dataclasses.replace(review, pipeline="taxi-wide-deep", history=history)
    target = tmp_path / "review.html"
    target.write_text(render_html(review), encoding="utf-8")
    return target


def _shown_curve(browser) -> dict:
    """The visible slice panel's name and the points of its first drawn line."""
    return browser.execute_script(
        "var div = Array.from(document.querySelectorAll('.slice-curves'))"
        "  .filter(d => !d.hidden && d.getBoundingClientRect().height > 0);"
        "return div.map(d => ({slice: d.getAttribute('data-slice'),"
        "  points: d.querySelector('polyline.series').getAttribute('points'),"
        "  width: d.querySelector('svg').getBoundingClientRect().width}));"
    )


def test_the_slice_selector_redraws_the_curves_and_nothing_loads(browser, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(page.as_uri())
    assert browser.title.startswith("Evaluation review: taxi-wide-deep, run r-3")
    first = _shown_curve(browser)
    assert len(first) == 1 and first[0]["slice"] == "Overall" and first[0]["width"] > 100
    Select(browser.find_element(By.ID, "curve-slice")).select_by_value("payment_type=Credit Card")
    second = _shown_curve(browser)
    assert len(second) == 1 and second[0]["slice"] == "payment_type=Credit Card"
    assert second[0]["points"] != first[0]["points"]  # another curve is drawn
    # The worst slice first in the table, marked; Cash undefined with its reason.
    rows = browser.find_elements(By.CSS_SELECTOR, "#changes tr")[1:]
    cells = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "td")] for r in rows]
    assert cells[0][0] == "Overall"
    cash = next(c for c in cells if c[0] == "payment_type=Cash")
    assert cash[3] == "undefined" and cash[6] == "none: no positive"
    card = next(c for c in cells if c[0] == "payment_type=Credit Card")
    assert card[-1] == "worse"
    # Three runs drawn in the history: a dot per candidate AUC, a ring per serving AUC.
    drawn = "#history-chart g.model[data-label={}] circle.point"
    assert len(browser.find_elements(By.CSS_SELECTOR, drawn.format("candidate"))) == 3
    assert len(browser.find_elements(By.CSS_SELECTOR, drawn.format("serving"))) == 2
    # Nothing was fetched: the page is the only resource the browser loaded.
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert fetched == []
    browser.save_screenshot(str(SCREENSHOT))
