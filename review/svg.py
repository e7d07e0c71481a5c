"""Small charts as inline SVG: lines, points and interval bars in a box of axes, no library.

The review page draws every chart with these: an SVG element per chart, written into
the page, so the page opens anywhere (a Kubeflow artifact viewer, a mail attachment)
with nothing to fetch. A chart reads top down: its title, its legend in a row of its
own (outside the plotted box, so it never covers a curve), the box, the axis labels.
A chart with nothing to draw keeps its frame and says why inside it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 320
PLOT_HEIGHT = 200  # the plotted box's height; the chart's grows with its legend's rows
LEFT, RIGHT, BELOW = 52, 14, 40  # room for the y ticks and label, the x ticks and label
FONT = 11
ROW = 14  # pixels from one line of text to the next
# A character's mean width at FONT pixels in a sans-serif: lays out the legend's row
# (SVG text does not flow; an overlong legend wraps onto a second row instead).
CHAR = 6.4
# Candidate and serving model keep the same colours in every chart on the page.
COLOURS = {"candidate": "#1f5fa8", "serving": "#d9822b"}
# A curve of 200 thresholds drawn in a 260-pixel box needs no more points than this.
MAX_POINTS = 80
UNIT_TICKS: tuple[tuple[float, str], ...] = ((0.0, "0"), (0.5, "0.5"), (1.0, "1"))


@dataclass(frozen=True)
class Series:
    """One model's line or points in a chart."""

    label: str
    points: Sequence[tuple[float, float]]
    colour: str
    marker: str = ""  # "dot" (filled) or "ring" (hollow, seen around a dot it overlaps)
    line: bool = True  # the points joined
    dashed: bool = False
    bars: Sequence[tuple[float, float]] = ()  # each point's (low, high): its 95% interval
    missing: str = ""  # why it has no points, said in the legend ("no model served")


def thin(
    points: Sequence[tuple[float, float]], most: int = MAX_POINTS
) -> list[tuple[float, float]]:
    """At most ``most`` points, evenly picked, keeping the first and the last."""
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


@dataclass(frozen=True)
class Box:
    """The plotted area, in pixels of the chart."""

    left: float
    top: float
    right: float
    bottom: float


@dataclass(frozen=True)
class Axes:
    """The data range a chart maps onto its box."""

    x: tuple[float, float] = (0.0, 1.0)
    y: tuple[float, float] = (0.0, 1.0)

    def place(self, x: float, y: float, box: Box) -> tuple[float, float]:
        """Pixel position of a data point in ``box``."""
        span_x = (self.x[1] - self.x[0]) or 1.0
        span_y = (self.y[1] - self.y[0]) or 1.0
        px = box.left + (x - self.x[0]) / span_x * (box.right - box.left)
        py = box.bottom - (y - self.y[0]) / span_y * (box.bottom - box.top)
        return round(px, 1), round(py, 1)


def _markers(series: Series, marker: str, axes: Axes, box: Box) -> str:
    at = [axes.place(*p, box) for p in series.points]
    if marker == "ring":
        shape = f"r='5' fill='none' stroke='{series.colour}' stroke-width='2'"
    else:
        shape = f"r='3.5' fill='{series.colour}'"
    return "".join(f"<circle class='point' cx='{x}' cy='{y}' {shape}/>" for x, y in at)


def _bars(series: Series, axes: Axes, box: Box) -> str:
    """A vertical bar with caps from each point's low to its high."""
    if not series.bars:
        return ""
    parts = []
    for (x, _), (low, high) in zip(series.points, series.bars, strict=True):
        px, top = axes.place(x, high, box)
        _, bottom = axes.place(x, low, box)
        parts.append(
            f"<path class='bar' d='M{px},{top}V{bottom}M{px - 3},{top}h6M{px - 3},{bottom}h6' "
            f"stroke='{series.colour}' stroke-width='1.2' fill='none'/>"
        )
    return "".join(parts)


def _series(series: Series, axes: Axes, box: Box) -> str:
    """A series' line, interval bars and marked points (one unmarked point: a dot)."""
    marked = series.marker or ("dot" if len(series.points) == 1 else "")
    parts = [_bars(series, axes, box)]
    if series.line and len(series.points) > 1:
        coords = " ".join(f"{x},{y}" for x, y in (axes.place(*p, box) for p in thin(series.points)))
        dash = " stroke-dasharray='5 3'" if series.dashed else ""
        parts.append(
            f"<polyline class='series' points='{coords}' fill='none' "
            f"stroke='{series.colour}' stroke-width='2'{dash}/>"
        )
    if marked:
        parts.append(_markers(series, marked, axes, box))
    label = html.escape(series.label)
    return f"<g class='model' data-label='{label}'>{''.join(parts)}</g>"


def _swatch(series: Series, x: float, y: float) -> str:
    """The series' look in little: a short line and its marker."""
    if not series.points:
        return ""
    dash = " stroke-dasharray='4 2'" if series.dashed else ""
    line = (
        f"<line x1='{x}' y1='{y}' x2='{x + 16}' y2='{y}' stroke='{series.colour}' "
        f"stroke-width='2'{dash}/>"
        if series.line
        else ""
    )
    if series.marker == "ring":
        return f"{line}<circle cx='{x + 8}' cy='{y}' r='4' fill='#fff' stroke='{series.colour}'/>"
    if series.marker == "dot":
        return f"{line}<circle cx='{x + 8}' cy='{y}' r='3' fill='{series.colour}'/>"
    return line


def _legend(series: Sequence[Series], top: float) -> tuple[str, int]:
    """The legend's items left to right under the title, wrapped into rows; and the rows."""
    shown = [s for s in series if s.points or s.missing]
    x, row, parts = 8.0, 0, []
    for s in shown:
        text = s.label if s.points else f"{s.label}: {s.missing}"
        width = 22 + len(text) * CHAR
        if x > 8 and x + width > WIDTH - 8:
            x, row = 8.0, row + 1
        y = top + row * ROW
        fill = s.colour if s.points else "#777"
        parts.append(
            f"{_swatch(s, x, y - 4)}<text x='{x + (20 if s.points else 0)}' y='{y}' "
            f"fill='{fill}'>{html.escape(text)}</text>"
        )
        x += width + 10
    if not parts:
        return "", 0
    return f"<g class='legend'>{''.join(parts)}</g>", row + 1


def _tick_text(value: float) -> str:
    return f"{value:.3g}"


def _rect(box: Box) -> str:
    return (
        f"<rect class='plot-area' x='{box.left}' y='{box.top}' width='{box.right - box.left}' "
        f"height='{box.bottom - box.top}' fill='#fff' stroke='#999'/>"
    )


def _ticks(box: Box, axes: Axes, ticks_x: Sequence[tuple[float, str]]) -> str:
    """Light grid lines at the ticks and the ticks' labels: three on y, ``ticks_x`` on x."""
    parts = []
    low, high = axes.y
    for value in (low, (low + high) / 2, high):
        _, y = axes.place(axes.x[0], value, box)
        parts.append(
            f"<line x1='{box.left}' y1='{y}' x2='{box.right}' y2='{y}' stroke='#eee'/>"
            f"<text x='{box.left - 4}' y='{y + 4}' text-anchor='end'>{_tick_text(value)}</text>"
        )
    for value, label in ticks_x:
        x, _ = axes.place(value, axes.y[0], box)
        parts.append(
            f"<line x1='{x}' y1='{box.top}' x2='{x}' y2='{box.bottom}' stroke='#eee'/>"
            f"<text x='{x}' y='{box.bottom + 14}' text-anchor='middle'>{html.escape(label)}</text>"
        )
    return "".join(parts)


def _labels(title: str, labels: tuple[str, str], box: Box, height: float) -> str:
    middle = (box.top + box.bottom) / 2
    return (
        f"<text x='{WIDTH / 2}' y='16' text-anchor='middle' font-weight='600'>"
        f"{html.escape(title)}</text>"
        f"<text x='{(box.left + box.right) / 2}' y='{height - 8}' text-anchor='middle'>"
        f"{html.escape(labels[0])}</text>"
        f"<text x='12' y='{middle}' text-anchor='middle' "
        f"transform='rotate(-90 12 {middle})'>{html.escape(labels[1])}</text>"
    )


def _diagonal(diagonal: str, axes: Axes, box: Box) -> str:
    if not diagonal:
        return ""
    up = diagonal == "up"
    (x0, y0), (x1, y1) = axes.place(0, 0 if up else 1, box), axes.place(1, 1 if up else 0, box)
    return f"<line x1='{x0}' y1='{y0}' x2='{x1}' y2='{y1}' stroke='#999' stroke-dasharray='2 3'/>"


def _why(empty: str, box: Box) -> str:
    """The sentence saying why nothing is drawn, flowing as HTML inside the box."""
    pad = 10
    return (
        f"<foreignObject x='{box.left + pad}' y='{box.top + pad}' "
        f"width='{box.right - box.left - 2 * pad}' height='{box.bottom - box.top - 2 * pad}'>"
        f"<p class='empty'>{html.escape(empty)}</p></foreignObject>"
    )


def chart(
    title: str,
    labels: tuple[str, str],
    series: Sequence[Series],
    *,
    empty: str,
    axes: Axes = Axes(),
    diagonal: str = "",
    ticks_x: Sequence[tuple[float, str]] = UNIT_TICKS,
) -> str:
    """An SVG chart of ``series``; ``diagonal`` "up" or "down" draws the chance line.

    ``empty`` is the sentence the chart shows in its box when no series has a point.
    """
    drawn = [s for s in series if s.points]
    legend, rows = _legend(series, 36) if drawn else ("", 0)
    box = Box(LEFT, 28 + ROW * rows + 8, WIDTH - RIGHT, 28 + ROW * rows + 8 + PLOT_HEIGHT)
    height = box.bottom + BELOW
    if drawn:
        body = _ticks(box, axes, ticks_x) + _diagonal(diagonal, axes, box) + legend
        body += "".join(_series(s, axes, box) for s in drawn)
    else:
        body = _why(empty, box)
    return (
        f"<svg class='chart' width='{WIDTH}' height='{height}' viewBox='0 0 {WIDTH} {height}' "
        f"role='img' aria-label='{html.escape(title)}' font-size='{FONT}' "
        f"font-family='sans-serif'><title>{html.escape(title)}</title>"
        f"{_rect(box)}{_labels(title, labels, box, height)}{body}</svg>"
    )
