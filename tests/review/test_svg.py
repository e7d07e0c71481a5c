"""The page's SVG charts as markup: interval bars, the legend above the box, empty charts.

Pure Python, no browser: the SVG's own coordinates, read back with a regular
expression (tests/review/test_page_layout.py checks the same in Chromium).
"""

from __future__ import annotations

import re

from review.svg import Series, chart

RED, BLUE = "#a00", "#00a"


def _box(svg: str) -> tuple[float, float, float, float]:
    """The plotted area: left, top, right, bottom."""
    found = re.search(
        r"<rect class='plot-area' x='([\d.]+)' y='([\d.]+)' width='([\d.]+)' height='([\d.]+)'",
        svg,
    )
    left, top, width, height = map(float, found.groups())
    return left, top, left + width, top + height


def test_each_point_gets_a_bar_from_its_low_to_its_high():
    svg = chart(
        "c",
        ("x", "y"),
        [Series("m", [(0.5, 0.5), (1.0, 1.0)], RED, marker="dot", bars=[(0.0, 1.0), (0.9, 1.0)])],
        empty="nothing",
    )
    left, top, right, bottom = _box(svg)
    bars = re.findall(r"<path class='bar' d='M([\d.]+),([\d.]+)V([\d.]+)", svg)
    assert [tuple(map(float, b)) for b in bars] == [
        ((left + right) / 2, top, bottom),  # 0 to 1: the box's height, at x 0.5
        (right, top, bottom - 0.9 * (bottom - top)),
    ]
    assert len(re.findall(r"<circle class='point'", svg)) == 2


def test_the_legend_sits_above_the_box_however_many_rows_it_takes():
    many = [Series(f"a rather long model name {i}", [(0, 0), (1, 1)], BLUE) for i in range(6)]
    for series in (many[:1], many):
        svg = chart("c", ("x", "y"), series, empty="nothing")
        legend = re.search(r"<g class='legend'>(.*?)</g>", svg).group(1)
        lowest = max(float(y) for y in re.findall(r"<text x='[\d.]+' y='([\d.]+)'", legend))
        assert lowest + 4 < _box(svg)[1]  # the text's descent clear of the box
    assert len(set(re.findall(r"<text x='[\d.]+' y='([\d.]+)'", legend))) > 1  # wrapped


def test_a_chart_without_points_keeps_its_frame_and_says_why():
    svg = chart(
        "ROC curve",
        ("x", "y"),
        [Series("candidate", [], BLUE), Series("serving", [], RED)],
        empty="No ROC curve: all 20 rows of the slice are negative.",
    )
    assert "<rect class='plot-area'" in svg
    assert "<p class='empty'>No ROC curve: all 20 rows of the slice are negative.</p>" in svg
    assert "<polyline" not in svg and "class='legend'" not in svg


def test_a_lone_point_is_drawn_and_a_missing_model_named_in_the_legend():
    svg = chart(
        "AUC",
        ("run", "AUC"),
        [Series("candidate", [(0, 0.9)], BLUE), Series("serving", [], RED, missing="none")],
        empty="nothing",
    )
    assert len(re.findall(r"<circle class='point'", svg)) == 1  # a polyline of one point: none
    assert ">serving: none</text>" in svg
