"""Small charts as inline SVG: lines and points on a square of axes, no library, no network.

The review page draws its per-slice curves and its history with these: an SVG
element per chart, written into the page, so the page opens anywhere (a Kubeflow
artifact viewer, a mail attachment) with nothing to fetch.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT, MARGIN = 320, 260, 40
# Candidate and serving model keep the same colours in every chart on the page.
COLOURS = {"candidate": "#1f5fa8", "serving": "#d9822b"}
# A curve of 200 thresholds drawn in a 240-pixel box needs no more points than this.
MAX_POINTS = 80


@dataclass(frozen=True)
class Series:
    """One line (or set of points) of a chart."""

    label: str
    points: Sequence[tuple[float, float]]
    colour: str
    dots: bool = False  # points marked, as for a run-by-run history
    dashed: bool = False


def thin(
    points: Sequence[tuple[float, float]], most: int = MAX_POINTS
) -> list[tuple[float, float]]:
    """At most ``most`` points, evenly picked, keeping the first and the last."""
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


@dataclass(frozen=True)
class Axes:
    """The data range a chart maps onto its box."""

    x: tuple[float, float] = (0.0, 1.0)
    y: tuple[float, float] = (0.0, 1.0)

    def place(self, x: float, y: float) -> tuple[float, float]:
        """Pixel position of a data point."""
        span_x = (self.x[1] - self.x[0]) or 1.0
        span_y = (self.y[1] - self.y[0]) or 1.0
        px = MARGIN + (x - self.x[0]) / span_x * (WIDTH - 2 * MARGIN)
        py = HEIGHT - MARGIN - (y - self.y[0]) / span_y * (HEIGHT - 2 * MARGIN)
        return round(px, 1), round(py, 1)


def _polyline(series: Series, axes: Axes) -> str:
    coords = " ".join(f"{x},{y}" for x, y in (axes.place(*p) for p in thin(series.points)))
    dash = " stroke-dasharray='5 3'" if series.dashed else ""
    line = (
        f"<polyline class='series' data-label='{html.escape(series.label)}' points='{coords}' "
        f"fill='none' stroke='{series.colour}' stroke-width='2'{dash}/>"
    )
    if not series.dots:
        return line
    dots = "".join(
        f"<circle cx='{x}' cy='{y}' r='3.5' fill='{series.colour}'/>"
        for x, y in (axes.place(*p) for p in series.points)
    )
    return line + dots


def _frame(title: str, labels: tuple[str, str], axes: Axes, ticks_x: Sequence[str]) -> str:
    left, bottom, right, top = MARGIN, HEIGHT - MARGIN, WIDTH - MARGIN, MARGIN
    parts = [
        f"<rect x='{left}' y='{top}' width='{right - left}' height='{bottom - top}' "
        "fill='#fff' stroke='#999'/>",
        f"<text x='{WIDTH / 2}' y='16' text-anchor='middle' font-weight='600'>"
        f"{html.escape(title)}</text>",
        f"<text x='{WIDTH / 2}' y='{HEIGHT - 6}' text-anchor='middle'>"
        f"{html.escape(labels[0])}</text>",
        f"<text x='12' y='{HEIGHT / 2}' text-anchor='middle' "
        f"transform='rotate(-90 12 {HEIGHT / 2})'>{html.escape(labels[1])}</text>",
        f"<text x='{left - 4}' y='{bottom}' text-anchor='end'>{axes.y[0]:.2f}</text>",
        f"<text x='{left - 4}' y='{top + 8}' text-anchor='end'>{axes.y[1]:.2f}</text>",
    ]
    if ticks_x:
        parts.append(f"<text x='{left}' y='{bottom + 14}'>{html.escape(ticks_x[0])}</text>")
        parts.append(
            f"<text x='{right}' y='{bottom + 14}' text-anchor='end'>"
            f"{html.escape(ticks_x[-1])}</text>"
        )
    return "".join(parts)


def chart(
    title: str,
    labels: tuple[str, str],
    series: Sequence[Series],
    axes: Axes = Axes(),
    diagonal: str = "",
    ticks_x: Sequence[str] = ("0", "1"),
) -> str:
    """An SVG chart of ``series``; ``diagonal`` "up" or "down" draws the chance line."""
    guide = ""
    if diagonal:
        up = diagonal == "up"
        (x0, y0), (x1, y1) = axes.place(0, 0 if up else 1), axes.place(1, 1 if up else 0)
        guide = (
            f"<line x1='{x0}' y1='{y0}' x2='{x1}' y2='{y1}' stroke='#bbb' stroke-dasharray='2 3'/>"
        )
    legend = "".join(
        f"<text x='{MARGIN + 6}' y='{MARGIN + 14 + 14 * i}' fill='{s.colour}'>"
        f"{html.escape(s.label)}</text>"
        for i, s in enumerate(series)
    )
    body = "".join(_polyline(s, axes) for s in series if s.points)
    return (
        f"<svg width='{WIDTH}' height='{HEIGHT}' "
        f"viewBox='0 0 {WIDTH} {HEIGHT}' role='img' aria-label='{html.escape(title)}' "
        f"font-size='11' font-family='sans-serif'>"
        f"{_frame(title, labels, axes, ticks_x)}{guide}{body}{legend}</svg>"
    )
