"""The review page's charts: both models overall, per slice behind a selector, and over time.

Every chart is inline SVG (review/svg.py), the candidate and the serving model drawn
together: overall, the ROC and precision-recall curves and the calibration bins with
their 95% intervals; per slice, the curves, one slice shown at a time (a selector and
a few lines of inline script switch between them, no network), with the rates at a few
thresholds, as Fairness Indicators shows them; the AUC of each run. A chart with
nothing to draw says why.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from review.calibration import Calibration
from review.curves import OPERATING_THRESHOLDS, Curves
from review.paired_comparison import OVERALL, slice_order
from review.records import BASELINE, CANDIDATE, HistoryPoint, Review, metric_text
from review.svg import COLOURS, Axes, Series, chart

# Model key -> how the page names it, and how its points are marked: the serving
# model's hollow rings stay visible around the candidate's dots where the two meet.
MODELS = ((CANDIDATE, "candidate"), (BASELINE, "serving"))
MARKERS = {"candidate": "dot", "serving": "ring"}
NO_SERVING = "no model served"

# The page's mark for a figure that is absent (the terminal's is "-").
MISSING = "–"


def number(value: float | None, name: str = "") -> str:
    """A figure on the page: ``metric_text`` with the page's mark for an absent one."""
    return metric_text(value, name, missing=MISSING)


def _classes(models: dict[str, Curves]) -> tuple[int, int] | None:
    """The slice's positive and negative rows, as TFMA's matrices count them (None: none)."""
    for curves in models.values():
        if curves.points:
            first = curves.points[0]
            return round(first.tp + first.fn), round(first.fp + first.tn)
    return None


def why_no_curve(models: dict[str, Curves], curve: str) -> str:
    """Why neither model has a ``curve`` ("ROC" or "precision-recall") on a slice."""
    counted = _classes(models)
    if counted is None:
        return f"No {curve} curve: TFMA recorded no plot of this slice."
    positives, negatives = counted
    if not positives:
        return f"No {curve} curve: all {negatives:,} rows of the slice are negative."
    if not negatives:
        return f"No {curve} curve: all {positives:,} rows of the slice are positive."
    return f"No {curve} curve: no threshold predicted a positive row."


def _curve_series(models: dict[str, Curves], kind: str) -> list[Series]:
    """Each model's ROC (``kind`` "roc") or precision-recall curve; a missing server named."""
    found = []
    for key, name in MODELS:
        curves = models.get(key)
        points = []
        if curves is not None:
            points = curves.roc if kind == "roc" else [(r, p) for r, p, _ in curves.pr]
        missing = NO_SERVING if key == BASELINE and curves is None else ""
        found.append(Series(name, points, COLOURS[name], missing=missing))
    return found


def curve_charts(models: dict[str, Curves]) -> str:
    """The ROC and precision-recall charts of one slice, both models."""
    roc = chart(
        "ROC curve",
        ("false positive rate", "true positive rate"),
        _curve_series(models, "roc"),
        empty=why_no_curve(models, "ROC"),
        diagonal="up",
    )
    pr = chart(
        "Precision-recall curve",
        ("recall", "precision"),
        _curve_series(models, "pr"),
        empty=why_no_curve(models, "precision-recall"),
    )
    return roc + pr


def calibration_chart(calibration: dict[str, Calibration]) -> str:
    """Each model's bins: mean prediction against observed rate, its 95% interval, the diagonal."""
    series = []
    for key, name in MODELS:
        found = calibration.get(key)
        bins = found.bins if found else []
        series.append(
            Series(
                name,
                [(b.predicted, b.observed) for b in bins],
                COLOURS[name],
                marker=MARKERS[name],
                line=False,
                bars=[b.interval for b in bins],
                missing=NO_SERVING if key == BASELINE and found is None else "",
            )
        )
    return chart(
        "Calibration (95% intervals)",
        ("mean prediction", "observed rate"),
        series,
        empty="No calibration: TFMA recorded no calibration plot of the whole split.",
        diagonal="up",
    )


def _calibration_table(calibration: dict[str, Calibration]) -> str:
    """Brier and ECE of each model, and the candidate's bins with their intervals."""
    scores = "".join(
        f"<tr><td>{name}</td><td>{number(c.brier)}</td><td>{number(c.ece)}</td></tr>"
        for key, name in MODELS
        if (c := calibration.get(key)) is not None
    )
    found = calibration.get(CANDIDATE)
    bins = "".join(
        f"<tr><td>{b.low:.3f}–{b.high:.3f}</td><td>{b.rows:,}</td><td>{b.predicted:.4f}</td>"
        f"<td>{b.observed:.4f}</td><td>{b.interval[0]:.4f}–{b.interval[1]:.4f}</td></tr>"
        for b in (found.bins if found else [])
    )
    return (
        "<table id='calibration-scores'><tr><th>model</th><th>Brier score</th>"
        f"<th>expected calibration error</th></tr>{scores}</table>"
        "<p>The candidate's bins, of about equal rows each:</p>"
        "<table id='calibration'><tr><th>predicted</th><th>rows</th><th>mean prediction</th>"
        f"<th>observed rate</th><th>95% interval</th></tr>{bins}</table>"
    )


def overall_section(review: Review) -> str:
    """The whole split's curves and calibration, both models, and the candidate's bins."""
    models = review.curves_by_slice.get(OVERALL, {})
    charts = curve_charts(models) + calibration_chart(review.calibration)
    return (
        f"<div class='charts' id='overall-charts'>{charts}</div>"
        f"{_calibration_table(review.calibration) if review.calibration else ''}"
    )


def _rates_table(models: dict[str, Curves]) -> str:
    """Precision, recall and the error rates at a few thresholds, per model."""
    rows = []
    for key, name in MODELS:
        curves = models.get(key)
        for threshold in OPERATING_THRESHOLDS if curves else ():
            point = curves.at(threshold)
            if point is None:
                continue
            rows.append(
                f"<tr><td>{name}</td><td>{point.threshold:.2f}</td>"
                f"<td>{number(point.precision)}</td><td>{number(point.recall)}</td>"
                f"<td>{number(point.fpr)}</td><td>{number(point.fnr)}</td></tr>"
            )
    return (
        "<table class='rates'><tr><th>model</th><th>threshold</th><th>precision</th>"
        "<th>recall</th><th>false positive rate</th><th>false negative rate</th></tr>"
        f"{''.join(rows)}</table>"
    )


# Shows the chosen slice's charts and hides the others; no network, no library.
_SWITCH = """
<script>
(function () {
  var select = document.getElementById('curve-slice');
  function show() {
    document.querySelectorAll('.slice-curves').forEach(function (div) {
      div.hidden = div.getAttribute('data-slice') !== select.value;
    });
  }
  select.addEventListener('change', show);
  show();
})();
</script>
"""


def _name_order(name: str) -> tuple:
    """A slice's place by its name: Overall first, hours 0, 1, 2 ... not 0, 1, 10."""
    if name == OVERALL:
        return slice_order(None, None)
    column, _, value = name.partition("=")
    return slice_order(column, value)


def slices_section(review: Review) -> str:
    """Curves and rates per slice, one slice at a time, chosen with a selector."""
    named = sorted(review.curves_by_slice.items(), key=lambda kv: _name_order(kv[0]))
    named = [(name, models) for name, models in named if any(c.points for c in models.values())]
    if not named:
        return "<p>No curves recorded per slice.</p>"
    options = "".join(
        f"<option value='{html.escape(n)}'>{html.escape(n)}</option>" for n, _ in named
    )
    panels = "".join(
        f"<div class='slice-curves' data-slice='{html.escape(name)}'>"
        f"<div class='charts'>{curve_charts(models)}</div>{_rates_table(models)}</div>"
        for name, models in named
    )
    note = ""
    if len(named) == 1:
        note = "<p>Plots were recorded for the whole split only.</p>"
    return (
        f"<p><label for='curve-slice'>slice </label><select id='curve-slice'>{options}</select>"
        f"</p>{note}{panels}{_SWITCH}"
    )


def _history_axes(points: Sequence[HistoryPoint]) -> Axes:
    """Runs half a step in from either side; the AUCs' range with a margin."""
    aucs = [p.candidate_auc for p in points] + [p.serving_auc for p in points]
    known = [a for a in aucs if a is not None]
    low, high = (min(known), max(known)) if known else (0.0, 1.0)
    pad = max(0.01, (high - low) * 0.1)
    return Axes(x=(-0.5, len(points) - 0.5), y=(max(0.0, low - pad), min(1.0, high + pad)))


def _history_chart(points: Sequence[HistoryPoint]) -> str:
    """Both AUCs run by run: the candidate's dots, the serving model's rings on a dashed line."""
    indexed = list(enumerate(points))
    serving = [(i, p.serving_auc) for i, p in indexed if p.serving_auc is not None]
    series = [
        Series(
            "candidate",
            [(i, p.candidate_auc) for i, p in indexed if p.candidate_auc is not None],
            COLOURS["candidate"],
            marker=MARKERS["candidate"],
        ),
        Series(
            "serving",
            serving,
            COLOURS["serving"],
            marker=MARKERS["serving"],
            dashed=True,
            missing="" if serving else "none served in these runs",
        ),
    ]
    ends = {0: points[0], len(points) - 1: points[-1]} if points else {}
    why = (
        "No AUC recorded for these runs."
        if points
        else "No history: this page was written without the metadata store "
        "(wide-deep-review --html FILE adds it)."
    )
    return chart(
        "AUC run by run",
        ("run (oldest first)", "AUC"),
        series,
        empty=why,
        axes=_history_axes(points),
        ticks_x=[(i, _run_label(p)) for i, p in ends.items()],
    )


def _run_label(point: HistoryPoint) -> str:
    """Short enough for an axis: the span, else the run id's time of day (ids are ISO times)."""
    if point.span is not None:
        return f"span {point.span}"
    return point.run_id[11:19] if len(point.run_id) >= 19 else point.run_id[:10]


def history_section(review: Review) -> str:
    """The pipeline's runs up to this one: a chart of both AUCs and a table."""
    chart_div = f"<div class='charts' id='history-chart'>{_history_chart(review.history)}</div>"
    if not review.history:
        return chart_div
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in p.cells(MISSING)) + "</tr>"
        for p in review.history
    )
    return (
        f"{chart_div}<table id='history'><tr><th>run</th><th>span</th><th>candidate AUC</th>"
        "<th>serving AUC</th><th>change, 95% interval</th><th>blessed</th><th>pushed</th></tr>"
        f"{rows}</table>"
    )
