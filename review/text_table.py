"""Terminal tables: columns as wide as their widest cell, the first left, the rest right."""

from __future__ import annotations

from typing import TextIO


def table_lines(rows: list[list[str]]) -> list[str]:
    """``rows`` (the heading first) as indented lines of aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        rest = zip(row[1:], widths[1:], strict=True)
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in rest]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def print_table(rows: list[list[str]], out: TextIO) -> None:
    """``rows`` (the heading first) printed as aligned columns."""
    for line in table_lines(rows):
        print(line, file=out)


def clipped(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, its end marked "~" where it was cut."""
    return text if len(text) <= width else text[: width - 1] + "~"
