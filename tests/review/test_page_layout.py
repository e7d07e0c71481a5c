"""The review page's layout in a real headless Chromium, 900 and 1400 pixels wide.

Two pages from the recorded runs' evaluations (tests/review_inputs.py): the worse run
against its serving model, with slices' curves, a slice of one class, a history whose
serving model has a single point and what changed against the serving model's run; and
the first run, nothing served, no history, slices of one class. At each width: nothing
scrolls sideways, no legend reaches into its plotted box, every chart draws its points
or says why it has none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tensorflow as tf
from conftest import headless_chromium
from review_inputs import add_slice_plots, comparison, evaluation_of, write_slices
from tensorflow_model_analysis.proto import metrics_for_slice_pb2

from data_layout.properties import Outcome, PushRecord
from review.evaluation import load_review
from review.page import render_html
from review.paired_comparison import SliceComparison
from review.records import HistoryPoint, Review, Scoring

SHOTS = Path("/tmp/review_page_layout")
# What changed against the serving model's run, as the review command fills it: a
# digest and a path too long for a column, which the table must break.
DIFFERENCES = [
    ("hyperparameter dropout", "0.2", "0.25"),
    ("model code (sha256)", "0d5d3606323a" * 5, "2f8e50662bfa" * 5),
    ("data", "gs://a-bucket/taxi/span-1/" + "x" * 90, "gs://a-bucket/taxi/span-2/" + "y" * 90),
]
ONE_CLASS = ("payment_type", "No Charge")
# The newest scoring runs with the pushed model, as the review command fills them: an
# input path too long for its column.
SCORINGS = [
    Scoring("2026-11-28 18:06", "/data/next-week/" + "z" * 120 + ".csv", 5_000, ("fare",)),
    Scoring("2026-11-28 18:01", "/data/taxi/taxi.csv", 15_002, ()),
]


def add_one_class_plot(folder: Path, column: str, value: str) -> None:
    """Add a slice whose rows are all negative: the overall plots without their positives."""
    for path in folder.glob("plots-*"):
        records = [r.numpy() for r in tf.data.TFRecordDataset(str(path))]
        plots = metrics_for_slice_pb2.PlotsForSlice()
        for record in records:
            plots.ParseFromString(record)
            if not plots.slice_key.single_slice_keys:
                break
        key = plots.slice_key.single_slice_keys.add()
        key.column, key.bytes_value = column, value.encode()
        for kv in plots.plot_keys_and_values:
            for m in kv.value.confusion_matrix_at_thresholds.matrices:
                m.true_positives = m.false_negatives = 0
        with tf.io.TFRecordWriter(str(path)) as writer:
            for record in [*records, plots.SerializeToString()]:
                writer.write(record)


@pytest.fixture(scope="module")
def served_review(recorded_runs, tmp_path_factory) -> Review:
    """The worse run against its serving model: curves of slices, one of them of one class."""
    folder = tmp_path_factory.mktemp("served")
    evaluation = evaluation_of(recorded_runs, recorded_runs.worse, folder / "evaluation")
    add_slice_plots(evaluation, {("payment_type", "Credit Card"): 0.4})
    add_one_class_plot(evaluation, *ONE_CLASS)
    write_slices(
        evaluation,
        [
            SliceComparison(
                "payment_type", "Credit Card", 215, 136, comparison(0.6, 0.8, -0.3, -0.1, 215)
            )
        ],
    )
    review = load_review(
        str(evaluation), Outcome(False, "1795448548", PushRecord(pushed=False)), run_id="r-2"
    )
    # The serving model's AUC in one run only: one point, no line to draw.
    history = [
        HistoryPoint("2026-11-27T08:21:56.182683", None, 0.925, None, None, True, "1795448548"),
        HistoryPoint("2026-11-27T08:28:20.011538", None, 0.548, 0.925, (-0.42, -0.33), False, None),
    ]
    return dataclasses.replace(
        review,
        pipeline="taxi-wide-deep",
        history=history,
        differences=DIFFERENCES,
        scorings=SCORINGS,
    )


@pytest.fixture(scope="module")
def served_page(served_review, tmp_path_factory) -> Path:
    """The served review's page, as a file a browser opens."""
    target = tmp_path_factory.mktemp("served_page") / "review.html"
    target.write_text(render_html(served_review), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def alone_page(recorded_runs, tmp_path_factory) -> Path:
    """The first run: nothing served, no history (no metadata store), slices of one class."""
    folder = tmp_path_factory.mktemp("alone")
    evaluation = evaluation_of(recorded_runs, recorded_runs.good, folder / "evaluation")
    add_one_class_plot(evaluation, *ONE_CLASS)
    review = load_review(str(evaluation), Outcome(True, None, PushRecord(pushed=True)))
    target = folder / "review.html"
    target.write_text(render_html(review), encoding="utf-8")
    return target


@pytest.fixture(scope="module", params=[900, 1400], ids=["900px", "1400px"])
def sized_browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A headless Chromium whose window is 900, then 1400 pixels wide."""
    driver = headless_chromium(f"{request.param},1000")
    driver.width = request.param
    yield driver
    driver.quit()


# Every slice's panel shown, so that each chart is laid out; then the page's widths,
# the elements reaching past the window or scrolling sideways inside it, and each
# chart's plotted box, its legend's and its texts' boxes, its marks and its sentence.
_MEASURE = """
document.querySelectorAll('.slice-curves').forEach(d => { d.hidden = false; });
const rect = e => { const r = e.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
const doc = document.documentElement;
const all = Array.from(document.querySelectorAll('body *'));
const name = e => e.tagName + (e.id ? '#' + e.id : '');
return {
  scroll: doc.scrollWidth, client: doc.clientWidth,
  beyond: all.filter(e => e.getBoundingClientRect().right > doc.clientWidth + 0.5).map(name),
  scrollers: all.filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
    && e.scrollWidth > e.clientWidth).map(name),
  charts: Array.from(document.querySelectorAll('svg.chart')).map(svg => ({
    title: svg.getAttribute('aria-label'),
    area: rect(svg.querySelector('.plot-area')),
    legend: Array.from(svg.querySelectorAll('.legend')).map(rect),
    legendTexts: Array.from(svg.querySelectorAll('.legend text')).map(rect),
    marks: Array.from(svg.querySelectorAll('polyline.series, circle.point'))
      .filter(m => m.tagName !== 'polyline' || m.getAttribute('points').trim())
      .map(rect),
    why: Array.from(svg.querySelectorAll('.empty'))
      .map(p => ({text: p.textContent, box: rect(p)})),
  })),
};
"""


def _meets(a: dict, b: dict) -> bool:
    """Whether two boxes overlap by more than a hair (touching is not overlapping)."""
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5 and (
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
    )


def _inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    """Whether ``inner`` lies within ``outer``, give or take ``slack`` pixels."""
    return all(inner[k] >= outer[k] - slack for k in ("left", "top")) and all(
        inner[k] <= outer[k] + slack for k in ("right", "bottom")
    )


def _measured(browser: Any, page: Path, name: str) -> dict:
    browser.get(page.as_uri())
    found = browser.execute_script(_MEASURE)
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / f"{name}-{browser.width}.png"))
    return found


@pytest.mark.parametrize("name", ["served_page", "alone_page"])
def test_nothing_scrolls_sideways_and_every_chart_is_drawn_or_says_why(
    sized_browser, name, request
):
    page = request.getfixturevalue(name)
    found = _measured(sized_browser, page, name)
    assert found["scroll"] <= found["client"], (found["scroll"], found["client"])
    # Nor does anything reach past the window, or fit only by scrolling in a box of its own.
    assert (found["beyond"][:10], found["scrollers"][:10]) == ([], [])
    assert len(found["charts"]) >= 5  # overall: 3; each slice: 2; the history: 1
    for chart in found["charts"]:
        area, title = chart["area"], chart["title"]
        assert area["right"] - area["left"] > 100, title  # laid out, not squeezed away
        # Legends outside the plotted box: no text of theirs over a line or a point.
        for legend in chart["legend"]:
            assert not _meets(legend, area), (title, legend, area)
        for text in chart["legendTexts"]:
            assert not any(_meets(text, mark) for mark in chart["marks"]), title
        # Drawn: marks inside the box, or a sentence saying why there are none.
        if chart["marks"]:
            # A point on the box's edge is drawn there: its ring may reach 6 pixels beyond.
            assert all(_inside(mark, area, slack=6) for mark in chart["marks"]), title
            assert not chart["why"], title
        else:
            assert len(chart["why"]) == 1, f"{title}: neither drawn nor saying why"
            why = chart["why"][0]
            assert why["text"].strip() and _inside(why["box"], area), (title, why)


def _chart_of(browser: Any, css: str) -> dict:
    """The chart under ``css``: its sentence, its legend's words, its marks by model."""
    return browser.execute_script(
        "const svg = document.querySelector(arguments[0]);"
        "const marks = m => Array.from(svg.querySelectorAll("
        "  `g.model[data-label=${m}] circle.point`)).map(c => {"
        "  const r = c.getBoundingClientRect(); return [r.width, r.height]; });"
        "return {why: Array.from(svg.querySelectorAll('.empty')).map(p => p.textContent),"
        "  legend: Array.from(svg.querySelectorAll('.legend text')).map(t => t.textContent),"
        "  candidate: marks('candidate'), serving: marks('serving')};",
        css,
    )


def test_the_serving_models_lone_point_in_the_history_is_drawn(sized_browser, served_page):
    sized_browser.get(served_page.as_uri())
    history = _chart_of(sized_browser, "#history-chart svg")
    assert len(history["candidate"]) == 2
    # One run compared with the serving model: its AUC is a ring a reader sees.
    assert len(history["serving"]) == 1, "the serving model's one point is not drawn"
    assert min(history["serving"][0]) >= 8, history["serving"]
    assert history["legend"] == ["candidate", "serving"]


def test_a_page_with_nothing_served_says_why_each_chart_is_empty(sized_browser, alone_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    sized_browser.get(alone_page.as_uri())
    history = _chart_of(sized_browser, "#history-chart svg")
    assert history["why"] == [
        "No history: this page was written without the metadata store "
        "(wide-deep-review --html FILE adds it)."
    ]
    overall = _chart_of(sized_browser, "#overall-charts svg")
    assert overall["why"] == [] and overall["serving"] == []
    assert overall["legend"] == ["candidate", "serving: no model served"]
    assert not sized_browser.find_elements(By.ID, "what-changed")  # nothing served to differ from
    name = "=".join(ONE_CLASS)
    Select(sized_browser.find_element(By.ID, "curve-slice")).select_by_value(name)
    panel = f".slice-curves[data-slice='{name}']"
    shown = [
        e.text
        for e in sized_browser.find_elements(By.CSS_SELECTOR, f"{panel} .empty")
        if e.is_displayed()
    ]
    assert len(shown) == 2 and all("rows of the slice are negative" in t for t in shown), shown


def test_what_changed_against_the_serving_model_follows_the_verdict(sized_browser, served_page):
    from selenium.webdriver.common.by import By

    sized_browser.get(served_page.as_uri())
    rows = sized_browser.find_elements(By.CSS_SELECTOR, "#differences tr")
    cells = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")] for r in rows]
    assert cells == [["what", "serving", "candidate"], *map(list, DIFFERENCES)]
    headings = [h.text for h in sized_browser.find_elements(By.TAG_NAME, "h2")]
    assert headings.index("What changed against the serving model") == 1  # after the verdict


def test_nothing_differing_is_said_only_where_a_model_serves(served_review):
    same = render_html(dataclasses.replace(served_review, differences=[]))
    assert "<p id='differences'>Nothing differs from the serving model's run.</p>" in same
    alone = dataclasses.replace(served_review, differences=[], serving_version=None)
    assert "id='what-changed'" not in render_html(alone)
    # Not compared (the pipeline's own page): no claim either way.
    unknown = dataclasses.replace(served_review, differences=None)
    assert "id='what-changed'" not in render_html(unknown)
