"""The review page's curves: both models overall, per slice behind a selector, and over time.

Overall, the ROC, precision-recall and calibration plots are PNGs (matplotlib), the
candidate and the serving model drawn together, each calibration bucket labelled
with its rows. Per slice, inline SVG charts, one slice shown at a time: a selector
and a few lines of inline script switch between them (no network). Each slice has
the rates at a few thresholds, as Fairness Indicators shows them.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # no display on servers and in pipeline steps

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first

from review.calibration import Calibration  # noqa: E402
from review.curves import OPERATING_THRESHOLDS, Curves  # noqa: E402
from review.evaluation import (  # noqa: E402
    BASELINE,
    CANDIDATE,
    HistoryPoint,
    Review,
    metric_text,
)
from review.paired_comparison import OVERALL, slice_order  # noqa: E402
from review.svg import COLOURS, Axes, Series, chart  # noqa: E402

# Model key -> how the page names it.
MODELS = ((CANDIDATE, "candidate"), (BASELINE, "serving"))


# The page's mark for a figure that is absent (the terminal's is "-").
MISSING = "–"


def number(value: float | None, name: str = "") -> str:
    """A figure on the page: ``metric_text`` with the page's mark for an absent one."""
    return metric_text(value, name, missing=MISSING)


def _png(figure: plt.Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _line_plot(title: str, models: dict[str, Curves], kind: str, labels: tuple[str, str]) -> str:
    figure, axes = plt.subplots(figsize=(4, 4))
    for key, name in MODELS:
        curves = models.get(key)
        points = (
            (curves.roc if kind == "roc" else [(r, p) for r, p, _ in curves.pr]) if curves else []
        )
        if points:
            axes.plot(
                [p[0] for p in points], [p[1] for p in points], color=COLOURS[name], label=name
            )
    axes.plot([0, 1], [0, 1] if kind == "roc" else [1, 0], ":", color="#999")
    axes.set(title=title, xlabel=labels[0], ylabel=labels[1], xlim=(0, 1), ylim=(0, 1.02))
    axes.legend(loc="lower right" if kind == "roc" else "lower left")
    return _png(figure)


def _calibration_plot(calibration: dict[str, Calibration]) -> str:
    figure, axes = plt.subplots(figsize=(4, 4))
    for key, name in MODELS:
        bins = calibration[key].bins if key in calibration else []
        axes.errorbar(
            [b.predicted for b in bins],
            [b.observed for b in bins],
            yerr=[
                [b.observed - b.interval[0] for b in bins],
                [b.interval[1] - b.observed for b in bins],
            ],
            fmt="o-",
            color=COLOURS[name],
            label=name,
            markersize=4,
            capsize=2,
        )
    axes.plot([0, 1], [0, 1], ":", color="#999")
    axes.set(
        title="Calibration (95% intervals)",
        xlabel="mean prediction",
        ylabel="observed rate",
        xlim=(0, 1),
        ylim=(0, 1),
    )
    axes.legend(loc="upper left")
    return _png(figure)


def plot_images(models: dict[str, Curves], calibration: dict[str, Calibration]) -> dict[str, str]:
    """ROC, precision-recall and calibration of both models, as base64 PNG by title."""
    return {
        "ROC curve": _line_plot(
            "ROC curve", models, "roc", ("false positive rate", "true positive rate")
        ),
        "Precision-recall curve": _line_plot(
            "Precision-recall curve", models, "pr", ("recall", "precision")
        ),
        "Calibration": _calibration_plot(calibration),
    }


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
    """The whole split's curves, both models, and the candidate's calibration buckets."""
    models = review.curves_by_slice.get(OVERALL, {})
    if not models.get(CANDIDATE) or not models[CANDIDATE].points:
        return "<div class='plots'>No plots recorded.</div>"
    images = "".join(
        f"<img alt='{html.escape(t)}' title='{html.escape(t)}' src='data:image/png;base64,{b}'>"
        for t, b in plot_images(models, review.calibration).items()
    )
    return f"<div class='plots'>{images}</div>{_calibration_table(review.calibration)}"


def _slice_charts(models: dict[str, Curves]) -> str:
    roc, pr = [], []
    for key, name in MODELS:
        curves = models.get(key)
        if curves is None:
            continue
        roc.append(Series(name, curves.roc, COLOURS[name]))
        pr.append(Series(name, [(r, p) for r, p, _ in curves.pr], COLOURS[name]))
    return chart("ROC", ("false positive rate", "true positive rate"), roc, diagonal="up") + chart(
        "Precision-recall", ("recall", "precision"), pr
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
        f"<div class='charts'>{_slice_charts(models)}</div>{_rates_table(models)}</div>"
        for name, models in named
    )
    note = ""
    if len(named) == 1:
        note = "<p>Plots were recorded for the whole split only.</p>"
    return (
        f"<p><label for='curve-slice'>slice </label><select id='curve-slice'>{options}</select>"
        f"</p>{note}{panels}{_SWITCH}"
    )


def _history_chart(points: Sequence[HistoryPoint]) -> str:
    indexed = list(enumerate(points))
    aucs = [p.candidate_auc for p in points] + [p.serving_auc for p in points]
    known = [a for a in aucs if a is not None]
    low, high = (min(known), max(known)) if known else (0.0, 1.0)
    pad = max(0.01, (high - low) * 0.1)
    axes = Axes(x=(0, max(1, len(points) - 1)), y=(max(0.0, low - pad), min(1.0, high + pad)))
    series = [
        Series(
            "candidate",
            [(i, p.candidate_auc) for i, p in indexed if p.candidate_auc is not None],
            COLOURS["candidate"],
            dots=True,
        ),
        Series(
            "serving",
            [(i, p.serving_auc) for i, p in indexed if p.serving_auc is not None],
            COLOURS["serving"],
            dashed=True,
        ),
    ]
    ends = [_run_label(points[0]), _run_label(points[-1])] if points else []
    return chart("AUC run by run", ("run (oldest first)", "AUC"), series, axes, ticks_x=ends)


def _run_label(point: HistoryPoint) -> str:
    """Short enough for an axis: the span, else the run id's time of day (ids are ISO times)."""
    if point.span is not None:
        return f"span {point.span}"
    return point.run_id[11:19] if len(point.run_id) >= 19 else point.run_id[:10]


def history_section(review: Review) -> str:
    """The pipeline's runs up to this one: a chart of both AUCs and a table."""
    if not review.history:
        return (
            "<p>No history: this page was written without the metadata store "
            "(<code>wide-deep-review --html FILE</code> adds it).</p>"
        )
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in p.cells(MISSING)) + "</tr>"
        for p in review.history
    )
    return (
        f"<div class='charts' id='history-chart'>{_history_chart(review.history)}</div>"
        "<table id='history'><tr><th>run</th><th>span</th><th>candidate AUC</th>"
        "<th>serving AUC</th><th>change, 95% interval</th><th>blessed</th><th>pushed</th></tr>"
        f"{rows}</table>"
    )
