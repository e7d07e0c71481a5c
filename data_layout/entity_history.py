"""What an entity's earlier periods say: three columns for each row, from the rows before it.

A panel's next period is about entities already known. Beside the entity's hashed id,
three numbers say what its earlier periods showed. Each is computed from rows of strictly
earlier periods only (never the row's own label, nor a later period), so a row gets the
same values when it is trained on, judged, or scored a period later:

- ``<entity>_rows_before``: the entity's labelled rows in earlier periods;
- ``<entity>_rate_before``: the positive share of those (absent with none);
- ``<entity>_last``: the positive share of its latest earlier period with a label
  (absent with none).

ExampleGen adds them to each block before encoding it (``components.example_gen``), and
``wide-deep-score`` from the rows the model learned from. The rates are written as
decimals ("1.0"), so their kind is a float in every file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
import pyarrow as pa

from data_layout.csv_examples import ColumnKind, read_batches, read_header
from modules.features import HistoryColumns

# The added columns' kinds, in ``HistoryColumns.names`` order: a count, two shares.
KINDS = (ColumnKind.INT, ColumnKind.FLOAT, ColumnKind.FLOAT)


def of_files(
    columns: HistoryColumns, files: Sequence[str], names: list[str] | None = None
) -> EntityHistory:
    """The history of every row of the CSV ``files`` (their header ``names``, or each its own)."""
    return EntityHistory.of(
        columns,
        (b for path in files for b in read_batches(path, names or read_header(path))),
    )


def _period_order(values: pd.Series) -> pd.Series:
    """Keys that sort the period cells as time runs: integers by value, else text as written."""
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all() and (numbers == numbers.round()).all():
        return numbers.astype("int64")
    return values.astype(str)


class EntityHistory:
    """Each entity's labelled rows per period, summed so that any period's past reads at once."""

    def __init__(self, columns: HistoryColumns, periods: pd.DataFrame) -> None:
        self.columns = columns
        self._periods = periods  # entity, period, rows, positives: one line per pair

    @classmethod
    def of(cls, columns: HistoryColumns, batches: Iterable[pa.RecordBatch]) -> EntityHistory:
        """The history of the rows in ``batches`` (string columns, as CSV reads them)."""
        frames = [
            _frame(batch, (columns.entity, columns.period, columns.label)) for batch in batches
        ]
        rows = (
            pd.concat(frames, ignore_index=True)
            if frames
            else pd.DataFrame(columns=[columns.entity, columns.period, columns.label])
        )
        labelled = rows[rows[columns.label].notna() & (rows[columns.label] != "")]
        per_pair = (
            labelled.assign(positive=labelled[columns.label] == columns.positive)
            .groupby([columns.entity, columns.period])["positive"]
            .agg(rows="size", positives="sum")
            .reset_index()
            .rename(columns={columns.entity: "entity", columns.period: "period"})
        )
        return cls(columns, per_pair)

    def add(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """``batch`` with the three columns (as text cells, "" where absent) appended."""
        c = self.columns
        query = _frame(batch, (c.entity, c.period))
        query.columns = ["entity", "period"]
        found = self._before(query)
        arrays = [pa.array(found["rows"].map(str).tolist(), pa.string())] + [
            pa.array(found[name].map(_rate_cell).tolist(), pa.string()) for name in ("rate", "last")
        ]
        return pa.RecordBatch.from_arrays(
            [*batch.columns, *arrays], names=[*batch.schema.names, *c.names()]
        )

    def _before(self, query: pd.DataFrame) -> pd.DataFrame:
        """For each (entity, period) of ``query``, in its order: rows, rate and last before it."""
        known = self._periods
        order = _period_order(pd.concat([known["period"], query["period"]], ignore_index=True))
        known = known.assign(key=order.iloc[: len(known)].to_numpy())
        asked = query.assign(key=order.iloc[len(known) :].to_numpy(), at=range(len(query)))
        ranks = {v: i for i, v in enumerate(sorted(set(order)))}
        known = known.assign(rank=known["key"].map(ranks)).sort_values(["entity", "rank"])
        grouped = known.groupby("entity")
        known = known.assign(
            cum_rows=grouped["rows"].cumsum(),
            cum_positives=grouped["positives"].cumsum(),
            share=known["positives"] / known["rows"],
        )
        asked = asked.assign(rank=asked["key"].map(ranks)).sort_values("rank")
        merged = pd.merge_asof(
            asked,
            known[["entity", "rank", "cum_rows", "cum_positives", "share"]].sort_values("rank"),
            on="rank",
            by="entity",
            allow_exact_matches=False,  # strictly earlier periods: never the row's own
        ).sort_values("at")
        rows = merged["cum_rows"].fillna(0)
        return pd.DataFrame(
            {
                "rows": rows.astype("int64"),
                "rate": (merged["cum_positives"] / merged["cum_rows"]).where(rows > 0),
                "last": merged["share"],
            }
        ).reset_index(drop=True)


def _frame(batch: pa.RecordBatch, names: tuple[str, ...]) -> pd.DataFrame:
    """The ``names`` columns of ``batch`` as a DataFrame (old pyarrow has no ``select``)."""
    return pd.DataFrame(
        {n: batch.column(batch.schema.get_field_index(n)).to_pandas() for n in names}
    )


def _rate_cell(value: float) -> str | None:
    """A share as a cell: six places at most, a decimal point always; None where absent."""
    if pd.isna(value):
        return None
    return f"{value:.6f}".rstrip("0").rstrip(".") + (".0" if float(value).is_integer() else "")
