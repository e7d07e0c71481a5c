"""A declaration drafted from columns held in memory, as ``make dataset`` drafts it."""

from __future__ import annotations

from pathlib import Path

from drafting import render, rules, trees
from drafting.crosses import choose_crosses
from drafting.table import Table
from modules import features


def drafted_source(columns: dict[str, list[str]], labels: list[int]) -> str:
    """The Python a draft of these columns writes (label column ``y``, positive ``bad``)."""
    choices = [rules.choose(n, v, labels, "STRING") for n, v in columns.items()]
    cells = {**columns, "y": ["bad" if y else "good" for y in labels]}
    table = Table(Path("t.csv"), tuple(cells), cells, "")
    crosses = choose_crosses(cells, labels, choices)
    return render.render(
        "t", table, "y", "bad", choices, crosses, trees.measure(cells, labels, choices)
    )


def drafted(columns: dict[str, list[str]], labels: list[int]) -> features.DatasetDeclaration:
    """The DatasetDeclaration a draft of these columns declares (its source run as Python)."""
    namespace: dict = {}
    exec(drafted_source(columns, labels), namespace)  # noqa: S102 - our draft
    return namespace["DATASET"]
