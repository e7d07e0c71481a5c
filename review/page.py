"""A Review as one self-contained HTML page: inline styles, every chart inline SVG.

The page names its run (pipeline, run id, span, candidate and serving versions),
gives the verdict, what changed against the serving model's run, every slice against
the serving model worst first, the charts (review/page_curves.py) and the history of
the pipeline's runs. It reads from 900 pixels wide up without scrolling sideways:
tables wrap their long cells and break long names, charts wrap onto new lines.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from review.checks import slice_checks
from review.error_rates import HEADINGS
from review.page_curves import (
    MISSING,
    history_section,
    number,
    overall_section,
    slices_section,
)
from review.records import (
    DRIFT_HEADINGS,
    MIN_SLICE_SIZE,
    SCORING_HEADINGS,
    SLICE_COLUMNS,
    Review,
    SliceChange,
    SliceMetrics,
)
from review.served import served_lines

_STYLE = """
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 1em 1em 3em;
  max-width: 80em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
h1, p, li, code { overflow-wrap: anywhere; }
.run { color: #555; }
table { border-collapse: collapse; margin: .5em 0; font-size: 13px; }
th { font-size: 12px; vertical-align: bottom; }
th, td { padding: .25em .4em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child, #rates th:nth-child(2), #rates td:nth-child(2),
#differences th, #differences td, #scorings th, #scorings td { text-align: left; }
/* Names and values break anywhere rather than widen the page; a figure with its interval
   stays on one line (a long note beside it wraps instead). */
td:first-child, #rates td:nth-child(2), #differences td, #scorings td {
  overflow-wrap: anywhere; min-width: 7em;
}
/* Twelve columns of TFMA's metrics: a size smaller, so that a slice's name keeps room. */
#slices { font-size: 12px; } #slices th { font-size: 11px; }
#slices td:first-child { min-width: 11em; } #differences td:first-child { min-width: 12em; }
#changes td:nth-child(7), #slice-checks td:nth-child(4), #history td:nth-child(5),
#rates td:nth-child(4), #rates td:nth-child(7) { white-space: nowrap; }
.pass { color: #116611; font-weight: 600; } .fail { color: #b00020; font-weight: 600; }
tr.worse td { background: #fff4e0; } tr.fail td { background: #fde7ea; }
.undefined { color: #777; font-style: italic; }
.verdict { font-size: 1.2em; padding: .6em 1em; border-radius: 4px; display: inline-block; }
.verdict.pass { background: #e6f4e6; } .verdict.fail { background: #fde7ea; }
.charts { display: flex; flex-wrap: wrap; gap: .5em 1.5em; margin: .5em 0; }
.charts svg { max-width: 100%; height: auto; }
.chart .empty { margin: 0; height: 100%; display: flex; align-items: center;
  justify-content: center; text-align: center; color: #555; font-size: 12px; }
select { max-width: 100%; }
code { background: #f4f4f4; padding: 0 .2em; }
"""


def _verdict(review: Review) -> str:
    state = "pass" if review.blessed else "fail"
    headline = "BLESSED" if review.blessed else "NOT BLESSED"
    rows = "".join(
        f"<tr><td>{html.escape(c.metric)}</td><td>{c.kind}</td><td>{number(c.candidate)}</td>"
        f"<td>{number(c.baseline)}</td><td>{html.escape(c.bound)}</td>"
        f"<td class='{'pass' if c.passed else 'fail'}'>{html.escape(c.result)}</td></tr>"
        for c in review.checks
        if c.slice is None
    )
    notes = "".join(f"<p>{html.escape(n)}</p>" for n in review.notes)
    return (
        f"<p class='verdict {state}' id='verdict'>{headline}</p>{notes}"
        "<table id='checks'><tr><th>metric</th><th>check</th><th>candidate</th>"
        f"<th>baseline</th><th>bound</th><th>result</th></tr>{rows}</table>"
        f"{_slice_checks(review)}<p id='push'>{html.escape(push_line(review))}</p>"
        f"{_served(review)}"
    )


def _slice_checks(review: Review) -> str:
    """The slice bound's checks: failures first, then the largest drop first."""
    found = slice_checks(review.checks)
    if not found:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(c.slice or '')}</td>"
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in c.slice_cells(" to ", MISSING)[1:-1])
        + f"<td class='{'pass' if c.passed else 'fail'}'>{html.escape(c.result)}</td></tr>"
        for c in found
    )
    return (
        "<p>The slice bound, on each slice TFMA found beyond it (failures first):</p>"
        "<table id='slice-checks'><tr><th>slice</th><th>rows</th><th>change</th>"
        f"<th>95% interval</th><th>result</th></tr>{rows}</table>"
    )


def _served(review: Review) -> str:
    """The serving check's line, where one ran."""
    lines = served_lines(review.serving_check)
    return f"<p id='served'>{'<br>'.join(map(html.escape, lines))}</p>" if lines else ""


def push_line(review: Review) -> str:
    """Where the candidate went, in one sentence."""
    push = review.push
    if push is None:
        return "The Pusher did not run."
    if push.pushed and push.already_serving:
        return f"Already serving, not copied again: {push.destination}"
    if push.pushed:
        return f"Pushed to {push.destination}"
    return "Not pushed: the model was not blessed."


def _slice_cells(s: SliceMetrics) -> str:
    cells = []
    for c in SLICE_COLUMNS:
        text = s.text(c.metric)
        css = " class='undefined'" if text == "undefined" else ""
        cells.append(f"<td{css}>{html.escape(text)}</td>")
        if c.metric == "mean_label":
            cells.append(f"<td>{s.positives:,}</td>")
    return "".join(cells)


def _slice_table(review: Review) -> str:
    """The candidate's TFMA metrics by slice (the first columns stay: name, examples, AUC)."""
    # Positives say why a slice's AUC is undefined or odd; TFMA has no column of them.
    head = "".join(
        f"<th>{c.heading}</th>" + ("<th>positives</th>" if c.metric == "mean_label" else "")
        for c in SLICE_COLUMNS
    )
    rows = "".join(
        f"<tr><td>{html.escape(s.name)}</td>{_slice_cells(s)}</tr>" for s in review.slices
    )
    return f"<table id='slices'><tr><th>slice</th>{head}</tr>{rows}</table>"


def _change_row(change: SliceChange) -> str:
    css = {"FAIL": " class='fail'", "worse": " class='worse'"}.get(change.mark, "")
    cells = "".join(f"<td>{html.escape(cell)}</td>" for cell in change.cells(MISSING))
    return f"<tr{css} data-slice='{html.escape(change.name)}'>{cells}</tr>"


def _changes(review: Review) -> str:
    """Every slice of at least MIN_SLICE_SIZE rows against the serving model, worst first."""
    rows = "".join(_change_row(c) for c in review.changes)
    left_out = review.left_out.line(shown=len(review.left_out.names))
    without = (
        ""
        if review.serving_version
        else "<p>No serving model: the candidate alone; its interval is of its own AUC "
        "(bootstrap on the slice's rows).</p>"
    )
    return (
        f"<p>Slices of at least {MIN_SLICE_SIZE} rows, the whole split first, then the "
        "largest drop in AUC first. <b>worse</b>: the 95% interval of the change (paired "
        "bootstrap on the slice's rows) lies below 0; <b>FAIL</b>: the verdict names the "
        f"slice as beyond the gate's slice bound.</p>{without}"
        "<table id='changes'><tr><th>slice</th><th>examples</th><th>positives</th>"
        "<th>candidate AUC</th><th>serving AUC</th><th>change</th><th>95% interval</th>"
        f"<th></th></tr>{rows}</table>"
        f"<p id='left-out'>{html.escape(left_out or 'No slice was left out.')}</p>"
    )


def _rates(review: Review) -> str:
    """Each slice's error rates at each recorded threshold, both models, flagged gaps."""
    if not review.rates:
        return "<p>No error rates recorded at thresholds (a run from before they were).</p>"
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADINGS)
    rows = "".join(
        f"<tr{' class=worse' if r.higher else ''} data-slice='{html.escape(r.name)}' "
        f"data-threshold='{r.threshold:g}'><td>{r.threshold:g}</td>"
        # "0.205 (0.189–0.222)", joined as the calibration table's: kept on one line, short.
        + "".join(f"<td>{html.escape(c)}</td>" for c in r.cells("–", MISSING))
        + "</tr>"
        for r in review.rates
    )
    return (
        "<p>At each threshold a score above it predicts positive. FPR: false positives of "
        "the slice's negatives; FNR: false negatives of its positives; each with its 95% "
        "Wilson interval. <b>higher</b>: Newcombe's 95% interval of the candidate's rate "
        "minus the serving model's lies above 0.</p>"
        f"<table id='rates'><tr><th>threshold</th>{head}</tr>{rows}</table>"
    )


def _differences(review: Review) -> str:
    """What differs from the serving model's run.

    Left out when nothing served or the runs were not compared.
    """
    if review.differences:
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in found) + "</tr>"
            for found in review.differences
        )
        body = (
            "<table id='differences'><tr><th>what</th><th>serving</th><th>candidate</th></tr>"
            f"{rows}</table>"
        )
    elif review.serving_version and review.differences is not None:
        body = "<p id='differences'>Nothing differs from the serving model's run.</p>"
    else:
        return ""  # nothing served, or the runs were not compared
    return f"<h2 id='what-changed'>What changed against the serving model</h2>{body}"


def _drift(review: Review) -> str:
    """Each distance the validator measured for the run, against its threshold."""
    if not review.drift:
        return (
            "<h2 id='drift-section'>Drift</h2><p id='drift'>No drift recorded for this run "
            "(the validator compared nothing, or this page was written without the metadata "
            "store).</p>"
        )
    return (
        "<h2 id='drift-section'>Drift</h2><p>Each distance the ExampleValidator measured "
        "(TFDV's L-infinity distance for categorical features, Jensen-Shannon divergence "
        "for numeric ones) against its threshold: each held-out split against the train "
        "split, the train split against the serving model's training data, the span "
        "against the span before it. A distance over its threshold stops the run.</p>"
        + _marked_table("drift", DRIFT_HEADINGS, [(d.cells(), d.drifted) for d in review.drift])
    )


def _scorings(review: Review) -> str:
    """The newest scoring runs with the pushed model, and the skew each measured."""
    if not review.scorings:
        return ""
    return (
        "<h2 id='scoring-section'>Scored with this model</h2><p>The newest runs of "
        "<code>wide-deep-score</code> with the model this run pushed, and each feature whose "
        "skew from the model's training data was over the schema's threshold.</p>"
        + _marked_table(
            "scorings", SCORING_HEADINGS, [(s.cells(), bool(s.skewed)) for s in review.scorings]
        )
    )


def _marked_table(
    table_id: str, headings: Sequence[str], rows: list[tuple[list[str], bool]]
) -> str:
    """A table whose rows marked True are shown as failing."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headings)
    body = "".join(
        f"<tr{' class=fail' if marked else ''}>"
        + "".join(f"<td>{html.escape(c)}</td>" for c in cells)
        + "</tr>"
        for cells, marked in rows
    )
    return f"<table id='{table_id}'><tr>{head}</tr>{body}</table>"


def _header(review: Review) -> str:
    facts = [
        ("pipeline", review.pipeline or "not recorded"),
        ("run", review.run_id or "not recorded"),
        ("span", "none (a flat data root)" if review.span is None else str(review.span)),
        ("candidate", review.candidate_version or "not recorded"),
        ("serving model", review.serving_version or "none"),
    ]
    if review.split_key:
        facts.append(("splits keyed by", review.split_key))
    if review.test_period:
        facts.append(("test split", f"the newest period, {review.test_period}"))
    if review.validation_period:
        facts.append(("validation split", f"the period before, {review.validation_period}"))
    items = " · ".join(f"{k} <b>{html.escape(v)}</b>" for k, v in facts)
    return f"<h1>{html.escape(review.title)}</h1><p class='run' id='run'>{items}</p>"


def _tuning(review: Review) -> str:
    if review.tuning is None:
        return ""
    head, *values = review.tuning.lines()
    items = "".join(f"<li>{html.escape(line)}</li>" for line in values)
    return f"<h2>Tuning</h2><p>{html.escape(head)}</p><ul id='tuning'>{items}</ul>"


def render_html(review: Review) -> str:
    """The whole report page: run, verdict, what changed, slices, charts, history, provenance."""
    baseline = html.escape(review.baseline_uri or "none")
    split = html.escape(review.split)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(review.title)}</title><style>{_STYLE}</style></head><body>"
        f"{_header(review)}"
        f"<h2>Verdict (on the {split} split)</h2>{_verdict(review)}{_differences(review)}"
        f"<h2 id='slices-against-serving'>AUC by slice against the serving model</h2>"
        f"{_changes(review)}"
        f"<h2>Curves and calibration (whole {split} split)</h2>{overall_section(review)}"
        f"<h2>Error rates by slice</h2>{_rates(review)}"
        f"{_drift(review)}{_scorings(review)}"
        f"<h2>Curves by slice</h2>{slices_section(review)}"
        f"<h2>History</h2>{history_section(review)}"
        f"<h2>Candidate metrics by slice</h2>{_slice_table(review)}"
        f"{_tuning(review)}"
        f"<h2>Provenance</h2><p>candidate <code>{html.escape(review.model_uri)}</code><br>"
        f"baseline <code>{baseline}</code><br>"
        f"evaluation <code>{html.escape(review.evaluation_uri)}</code></p>"
        "</body></html>\n"
    )
