"""What an entity's earlier periods say: three columns for each row, from the rows before it.

A panel's next period is about entities already known. Beside the entity's hashed id,
three numbers say what its earlier periods showed. Each is computed from rows of strictly
earlier periods only (never the row's own label, nor a later period), among the rows
the history is read from: ExampleGen's flat root or window, ``wide-deep-score``'s
``--history`` (by default the data root):

- ``<entity>_rows_before``: the entity's labelled rows in earlier periods;
- ``<entity>_rate_before``: the positive share of those (absent with none);
- ``<entity>_last``: the positive share of its latest earlier period with a label
  (absent with none).

ExampleGen adds them to each block before encoding it (``components.example_gen``), and
``wide-deep-score`` from the rows the model learned from. The rates are written as
decimals ("1.0"), so their kind is a float in every file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from data_layout.csv_examples import ColumnKind, read_batches, read_header
from data_layout.csv_files import CsvFormatError
from modules.features import HistoryColumns

# The added columns' kinds, in ``HistoryColumns.names`` order: a count, two shares.
KINDS = (ColumnKind.INT, ColumnKind.FLOAT, ColumnKind.FLOAT)


def of_files(
    columns: HistoryColumns, files: Sequence[str], names: list[str] | None = None
) -> EntityHistory:
    """The history of every row of the CSV ``files`` (their header ``names``, or each its own).

    CsvFormatError naming a file that lacks the entity, period or label column.
    """

    def batches() -> Iterator[pa.RecordBatch]:
        for path in files:
            header = names or read_header(path)
            for column in (columns.entity, columns.period, columns.label):
                if column not in header:
                    raise CsvFormatError(
                        f"{path}: no column {column!r}, which the entity's history is read from"
                    )
            yield from read_batches(path, header)

    return EntityHistory.of(columns, batches())


def _whole_numbers(values: pd.Series) -> pd.Series | None:
    """``values`` as integers where every one is a whole number; None where one is not."""
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all() and (numbers == numbers.round()).all():
        return numbers.astype("int64")
    return None


def _positive(labels: pd.Series, positive: str) -> pd.Series:
    """Whether each label cell is the positive value, compared as Transform compares it.

    Text stripped of spaces; where both are numbers, by value ("1.0" is "1").
    """
    text = labels.str.strip()
    numbers, wanted = pd.to_numeric(text, errors="coerce"), pd.to_numeric(positive, errors="coerce")
    if pd.notna(wanted):
        return (text == positive.strip()) | (numbers == wanted)
    return text == positive.strip()


class EntityHistory:
    """Each entity's labelled rows per period, summed once so any period's past reads at once.

    The periods' order is decided from the history's own periods: whole numbers by value
    where every one is, else text as written (ISO dates sort so). A row to extend whose
    period does not read that way (empty, or text among numbers) gets no history.
    """

    def __init__(self, columns: HistoryColumns, per_pair: pd.DataFrame) -> None:
        self.columns = columns
        numbers = _whole_numbers(per_pair["period"])
        self._numeric = numbers is not None or per_pair.empty
        keys = numbers if numbers is not None else per_pair["period"].astype(str)
        self._distinct = np.array(sorted(set(keys)), dtype=object)
        ranked = per_pair.assign(rank=self._rank(keys)).sort_values(["entity", "rank"])
        grouped = ranked.groupby("entity")
        ranked = ranked.assign(
            cum_rows=grouped["rows"].cumsum(),
            cum_positives=grouped["positives"].cumsum(),
            share=ranked["positives"] / ranked["rows"],
        )
        # merge_asof wants its key sorted on both sides.
        self._known = ranked[["entity", "rank", "cum_rows", "cum_positives", "share"]].sort_values(
            "rank"
        )

    def _rank(self, keys: pd.Series) -> np.ndarray:
        """Each key's place among the history's periods (-1: before them all or unreadable)."""
        return np.searchsorted(self._distinct, keys.to_numpy(dtype=object), side="left")

    @classmethod
    def of(cls, columns: HistoryColumns, batches: Iterable[pa.RecordBatch]) -> EntityHistory:
        """The history of the rows in ``batches`` (string columns, as CSV reads them)."""
        frames = [
            _frame(batch, (columns.entity, columns.period, columns.label)) for batch in batches
        ]
        rows = (
            pd.concat(frames, ignore_index=True)
            if frames
            else pd.DataFrame(columns=[columns.entity, columns.period, columns.label], dtype=object)
        )
        labelled = rows[rows[columns.label].notna() & (rows[columns.label].str.strip() != "")]
        labelled = labelled[labelled[columns.entity].notna() & labelled[columns.period].notna()]
        per_pair = (
            labelled.assign(positive=_positive(labelled[columns.label], columns.positive))
            .groupby([columns.entity, columns.period])["positive"]
            .agg(rows="size", positives="sum")
            .reset_index()
            .rename(columns={columns.entity: "entity", columns.period: "period"})
        )
        return cls(columns, per_pair)

    def add(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """``batch`` with the three columns (as text cells, null where absent) appended."""
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

    def _query_ranks(self, periods: pd.Series) -> np.ndarray:
        """For each period to read, the place of the newest history period strictly before it.

        -1 where none is, or where the period does not read as the history's periods do.
        """
        if self._numeric:
            numbers = pd.to_numeric(periods, errors="coerce")
            readable = numbers.notna() & (numbers == numbers.round())
            keys = numbers.where(readable, 0).astype("int64").astype(object)
        else:
            readable = periods.notna() & ~periods.astype(str).str.fullmatch(r"\s*")
            keys = periods.where(readable, "").astype(str)
        if not len(self._distinct):
            return np.full(len(periods), -1)
        return np.where(readable.to_numpy(), self._rank(keys) - 1, -1)

    def _before(self, query: pd.DataFrame) -> pd.DataFrame:
        """For each (entity, period) of ``query``, in its order: rows, rate and last before it."""
        asked = query.assign(rank=self._query_ranks(query["period"]), at=range(len(query)))
        asked["entity"] = asked["entity"].astype(object)
        merged = pd.merge_asof(
            asked.sort_values("rank"),
            self._known,
            on="rank",
            by="entity",
            # the newest period at or before the one just before the row's: never its own
            allow_exact_matches=True,
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
    """The ``names`` columns of ``batch`` as a DataFrame; KeyError naming an absent one."""
    missing = [n for n in names if n not in batch.schema.names]
    if missing:
        raise KeyError(f"no column {missing[0]!r} among {batch.schema.names}")
    return pd.DataFrame(
        {n: batch.column(batch.schema.get_field_index(n)).to_pandas() for n in names}
    )


def _rate_cell(value: float) -> str | None:
    """A share as a cell: six places at most, a decimal point always; None where absent."""
    if pd.isna(value):
        return None
    text = f"{value:.6f}".rstrip("0")
    return f"{text}0" if text.endswith(".") else text
