"""Blocks of text cells as the value lists the model reads (its ``tf.Example`` features).

Each column is read as the curated schema types it, by ExampleGen's reading of cells
(``data_layout.csv_examples.typed_lists``): the same cell becomes the same value as
in training (an integer column takes ``10.0``, as training does; an empty cell is a
missing value). A cell that cannot be read so is a ScoringInputError naming its row and
column, as the validator stops training data with text in a number's column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from data_layout.csv_examples import ColumnKind, typed_lists
from scoring.inputs import Block, ScoringInputError

_WANTED = {ColumnKind.INT: "an integer", ColumnKind.FLOAT: "a number"}


def _one(column: pa.Array, name: str, kind: ColumnKind) -> bool:
    """Whether ``column`` (a cell or more) reads as ``kind``."""
    try:
        typed_lists(pa.RecordBatch.from_arrays([column], [name]), (kind,))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def _unreadable(block: Block, columns: Sequence[str], kinds: Mapping[str, ColumnKind]) -> str:
    """The first cell of ``block`` that its column's kind cannot read, in words."""
    for name in columns:
        column = block.cells.column(name)
        if _one(column, name, kinds[name]):
            continue
        for index in range(len(column)):
            if not _one(column.slice(index, 1), name, kinds[name]):
                value = column[index].as_py()
                return (
                    f"{block.path}: row {block.first_row + index}, column {name!r}: "
                    f"{value!r} is not {_WANTED[kinds[name]]}, as the schema reads it"
                )
    return f"{block.path}: rows {block.first_row}+: a cell that cannot be read"


def typed(block: Block, columns: Sequence[str], kinds: Mapping[str, ColumnKind]) -> pa.RecordBatch:
    """The block's ``columns`` as value lists of their schema kinds, as training reads them."""
    cells = pa.RecordBatch.from_arrays([block.cells.column(c) for c in columns], list(columns))
    try:
        return typed_lists(cells, tuple(kinds[c] for c in columns))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise ScoringInputError(_unreadable(block, columns, kinds)) from None
