"""A Review as one self-contained HTML page: inline styles, plots as inline PNG."""

from __future__ import annotations

import base64
import html
import io

import matplotlib

matplotlib.use("Agg")  # no display on servers and in pipeline steps

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first

from components.evaluation_review import SLICE_COLUMNS, Curves, Review, metric_text  # noqa: E402

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .25em .7em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.pass { color: #116611; font-weight: 600; } .fail { color: #b00020; font-weight: 600; }
.verdict { font-size: 1.2em; padding: .6em 1em; border-radius: 4px; display: inline-block; }
.verdict.pass { background: #e6f4e6; } .verdict.fail { background: #fde7ea; }
.plots img { width: 30%; min-width: 18em; margin-right: 1%; }
code { background: #f4f4f4; padding: 0 .2em; }
"""


def _number(value: float | None, name: str = "") -> str:
    return metric_text(value, name, missing="–")


def _png(figure: plt.Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def plot_images(curves: Curves) -> dict[str, str]:
    """ROC, precision-recall and calibration plots, as base64 PNG by title."""
    images = {}
    for title, points, (xlabel, ylabel) in (
        ("ROC curve", curves.roc, ("false positive rate", "true positive rate")),
        ("Precision-recall curve", curves.pr, ("recall", "precision")),
    ):
        figure, axes = plt.subplots(figsize=(4, 4))
        axes.plot([p[0] for p in points], [p[1] for p in points], color="#1f5fa8")
        axes.plot([0, 1], [0, 1] if title.startswith("ROC") else [1, 0], ":", color="#999")
        axes.set(title=title, xlabel=xlabel, ylabel=ylabel, xlim=(0, 1), ylim=(0, 1.02))
        images[title] = _png(figure)
    figure, axes = plt.subplots(figsize=(4, 4))
    predicted = [c[0] for c in curves.calibration]
    observed = [c[1] for c in curves.calibration]
    sizes = [
        max(4.0, 60 * c[2] / max(w for *_, w in curves.calibration)) for c in curves.calibration
    ]
    axes.scatter(predicted, observed, s=sizes, color="#1f5fa8")
    axes.plot([0, 1], [0, 1], ":", color="#999")
    axes.set(
        title="Calibration",
        xlabel="mean prediction",
        ylabel="observed rate",
        xlim=(0, 1),
        ylim=(0, 1),
    )
    images["Calibration"] = _png(figure)
    return images


def _verdict(review: Review) -> str:
    state = "pass" if review.blessed else "fail"
    headline = "BLESSED" if review.blessed else "NOT BLESSED"
    rows = "".join(
        f"<tr><td>{html.escape(c.metric)}</td><td>{c.kind}</td><td>{_number(c.candidate)}</td>"
        f"<td>{_number(c.baseline)}</td><td>{html.escape(c.bound)}</td>"
        f"<td class='{'pass' if c.passed else 'fail'}'>{'pass' if c.passed else 'FAIL'}</td></tr>"
        for c in review.checks
    )
    notes = "".join(f"<p>{html.escape(n)}</p>" for n in review.notes)
    return (
        f"<p class='verdict {state}' id='verdict'>{headline}</p>{notes}"
        "<table id='checks'><tr><th>metric</th><th>check</th><th>candidate</th>"
        f"<th>baseline</th><th>bound</th><th>result</th></tr>{rows}</table>"
        f"<p id='push'>{html.escape(push_line(review))}</p>"
    )


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


def _slice_table(review: Review) -> str:
    head = "".join(f"<th>{c.heading}</th>" for c in SLICE_COLUMNS)
    rows = "".join(
        f"<tr><td>{html.escape(s.name)}</td>"
        + "".join(f"<td>{_number(s.metrics.get(c.metric), c.metric)}</td>" for c in SLICE_COLUMNS)
        + "</tr>"
        for s in review.slices
    )
    return f"<table id='slices'><tr><th>slice</th>{head}</tr>{rows}</table>"


def _tuning(review: Review) -> str:
    if review.tuning is None:
        return ""
    head, *values = review.tuning.lines()
    items = "".join(f"<li>{html.escape(line)}</li>" for line in values)
    return f"<h2>Tuning</h2><p>{html.escape(head)}</p><ul id='tuning'>{items}</ul>"


def render_html(review: Review) -> str:
    """The whole report page: verdict, plots, slice table, provenance."""
    plots = ""
    if review.curves is not None and review.curves.roc:
        plots = "".join(
            f"<img alt='{html.escape(t)}' title='{html.escape(t)}' src='data:image/png;base64,{b}'>"
            for t, b in plot_images(review.curves).items()
        )
    run = f" (run {html.escape(review.run_id)})" if review.run_id else ""
    baseline = html.escape(review.baseline_uri or "none")
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Evaluation review{run}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Evaluation review{run}</h1>"
        f"<h2>Verdict (on the {html.escape(review.split)} split)</h2>{_verdict(review)}"
        f"{_tuning(review)}"
        f"<h2>Curves (whole {html.escape(review.split)} split)</h2>"
        f"<div class='plots'>{plots or 'No plots recorded.'}</div>"
        f"<h2>Metrics by slice</h2>{_slice_table(review)}"
        f"<h2>Provenance</h2><p>candidate <code>{html.escape(review.model_uri)}</code><br>"
        f"baseline <code>{baseline}</code><br>"
        f"evaluation <code>{html.escape(review.evaluation_uri)}</code></p>"
        "</body></html>\n"
    )
