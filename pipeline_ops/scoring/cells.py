"""Blocks of text cells as the serialized ``tf.Example``s the model's ``serving_default`` reads.

Each column is read as the curated schema types it, by ExampleGen's reading of cells
(``data_layout.csv_examples.encode_for_model``): the same cell becomes the same value as
in training (an integer column takes ``10.0``, as training does; an empty cell is a
missing value). A cell that cannot be read so is a ScoringInputError naming its row and
column, as the validator stops training data with text in a number's column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from data_layout.csv_examples import ColumnKind, encode_for_model
from pipeline_ops.scoring.inputs import Block, ScoringInputError

_WANTED = {ColumnKind.INT: "an integer", ColumnKind.FLOAT: "a number"}


def _one(column: pa.Array, name: str, kind: ColumnKind) -> bool:
    """Whether ``column`` (a cell or more) reads as ``kind``."""
    try:
        encode_for_model(pa.RecordBatch.from_arrays([column], [name]), (kind,))
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


def examples(block: Block, columns: Sequence[str], kinds: Mapping[str, ColumnKind]) -> list[bytes]:
    """The block's rows as serialized examples of ``columns``, each of its schema kind."""
    cells = pa.RecordBatch.from_arrays([block.cells.column(c) for c in columns], list(columns))
    try:
        return encode_for_model(cells, tuple(kinds[c] for c in columns))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise ScoringInputError(_unreadable(block, columns, kinds)) from None
