"""What an entity's earlier periods say, offered as features where a panel's test period asks.

The next period's rows are of entities already seen: beside the hashed id, the draft
adds the columns ExampleGen will compute for every row (``data_layout.entity_history``:
the entity's labelled rows before the row's period, their positive rate, its latest
period's rate) to the table it drafts from, so that they are typed, measured and in the
curated schema like any column; the data file keeps the table as it came.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace

import pyarrow as pa

from drafting.table import Labelled, Table
from modules.features import HistoryColumns


@dataclass(frozen=True)
class OfferedHistory:
    """The history columns offered, and the evidence for them."""

    columns: HistoryColumns
    # Rows with an earlier period, and how many of them the latest period's rate
    # (rounded) gets right: how much a person's past says of their next period.
    seen: int
    agree: int

    def describe(self) -> str:
        """``entity history: nr_last (...) gets the label right in 2,951 of 3,815 rows ...``."""
        rows, _, last = self.columns.names()
        return (
            f"entity history: {', '.join(self.columns.names())}, from earlier periods only; "
            f"{last} alone gets the label right in {self.agree:,} of the {self.seen:,} rows "
            f"with an earlier period ({self.agree / max(self.seen, 1):.0%})"
        )


def with_history(labelled: Labelled, columns: HistoryColumns) -> tuple[Labelled, OfferedHistory]:
    """``labelled`` with the history columns added to its table, and the evidence."""
    # Here, not at the top: the history reads through Beam's file systems, and Beam
    # takes seconds to import, which ``wide-deep-draft-dataset --help`` need not wait for.
    from data_layout.entity_history import EntityHistory

    table = labelled.table
    cells = [pa.array([v or None for v in table.cells[c]], pa.string()) for c in table.columns]
    rows = pa.RecordBatch.from_arrays(cells, list(table.columns))
    batch = EntityHistory.of(columns, [rows]).add(rows)
    added = {
        n: [
            "" if v is None else v
            for v in batch.column(batch.schema.get_field_index(n)).to_pylist()
        ]
        for n in columns.names()
    }
    last = added[columns.names()[2]]
    seen = [(float(v) >= 0.5, y) for v, y in zip(last, labelled.labels, strict=True) if v]
    extended = replace(
        table, columns=(*table.columns, *columns.names()), cells={**table.cells, **added}
    )
    offered = OfferedHistory(columns, len(seen), sum(p == bool(y) for p, y in seen))
    return replace(labelled, table=extended), offered


def statistics_text(table: Table) -> str:
    """The table's cells as CSV text, the added columns included (what TFDV reads)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(zip(*(table.cells[c] for c in table.columns), strict=True))
    return out.getvalue()
