"""The entity a table's rows are of: a column whose values repeat and name, not measure.

Customers with several orders, patients with several visits, people observed each
year: a row split puts one entity's rows on both sides, and the test split then asks
how well a model recognizes entities it has seen. The draft recognizes such a column
by its evidence (values repeating over many rows, a name that says id, text codes too
many for a vocabulary), keys the splits by it, and leaves it out of the features.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from drafting.reading import read_numbers
from drafting.rules import MAX_VOCABULARY
from drafting.table import DraftError, Table
from pipeline_ops.session.local_run_settings import split_buckets_for

# Fewer entities than this and the column is a category (a payment type), not a key.
MIN_ENTITIES = 20
# Rows per entity on average from which a column counts as repeating.
MIN_ROWS_PER_ENTITY = 2.0
# One entity holding more than this share of the rows: the split cannot be balanced.
MAX_ENTITY_SHARE = 0.5
# Names that say the column identifies: "customer_id", "person nr", "PatientNo", "id_2",
# "customer"; not "account_length" or "number_vmail_messages", which measure.
ID_WORDS = frozenset({"id", "nr", "no", "num", "key", "number"})
ENTITY_WORDS = frozenset({
    "customer", "patient", "person", "user", "account", "member", "client", "machine",
    "device", "subject", "household", "firm", "store", "station",
})  # fmt: skip
# A name's words: "PatientNo" is patient, no; "person nr" is person, nr.
WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
SHOWN_LINES = 5
# A cell ExampleGen reads as an integer.
INTEGER = re.compile(r"\s*[+-]?\d+\s*")


@dataclass(frozen=True)
class Entity:
    """The column the splits are keyed by, and the evidence the draft gives for it."""

    column: str
    entities: int
    rows: int
    why: str

    @property
    def rows_per_entity(self) -> float:
        """How many rows an entity has on average."""
        return self.rows / self.entities


def name_words(column: str) -> list[str]:
    """A column name's words, lower-case, numbers left out: "PatientNo2" is patient, no."""
    return [w.lower() for w in WORDS.findall(column) if not w.isdigit()]


def names_an_id(column: str) -> bool:
    """Whether the name says the column identifies, by its words.

    An id word last ("person nr"), "id" first, or entity and id words only ("customer").
    """
    words = name_words(column)
    if not words:
        return False
    if words[-1] in ID_WORDS or words[0] == "id":
        return True
    return set(words) <= ENTITY_WORDS | ID_WORDS


def _evidence(column: str, values: list[str]) -> str | None:
    """Why ``values`` look like an entity's key; None when they do not."""
    present = [v for v in values if v]
    counts = Counter(present)
    if len(counts) < MIN_ENTITIES or len(present) < MIN_ROWS_PER_ENTITY * len(counts):
        return None
    repeats = (
        f"{len(counts)} values over {len(present)} rows, {len(present) / len(counts):.1f} each"
    )
    if names_an_id(column):
        return f"{repeats}; its name says it identifies"
    if not read_numbers(values) and len(counts) > MAX_VOCABULARY:
        return f"{repeats}; text codes, too many for a vocabulary"
    return None  # a repeating number (an age, a count) is a quantity, not a key


def find_entity(table: Table, label: str) -> Entity | None:
    """The column the table's rows are of, by its evidence (most entities first); None."""
    found = [
        (column, why)
        for column in table.columns
        if column != label and (why := _evidence(column, table.cells[column]))
    ]
    if not found:
        return None
    column, why = max(found, key=lambda f: len(set(table.cells[f[0]])))
    return checked(table, Entity(column, len(set(table.cells[column]) - {""}), table.rows, why))


def named_entity(table: Table, column: str, label: str) -> Entity:
    """The entity column a user named; DraftError when it is no column of the table."""
    if column not in table.columns or column == label:
        raise DraftError(
            f"{table.path}: --entity {column!r} is not a column of the table "
            f"(its columns: {', '.join(c for c in table.columns if c != label)})"
        )
    values = table.cells[column]
    entities = len(set(values) - {""})
    return checked(table, Entity(column, entities, table.rows, "named on the command line"))


def _empty_key_split(table: Table, column: str) -> str:
    """The split ExampleGen keys a row with an empty ``column`` into, as the runner splits."""
    # Both load TensorFlow: imported here, after the command's Keras choice.
    import tensorflow as tf

    from data_layout.split_router import SplitRouter

    # An empty cell is an empty list of the column's kind (integers, else bytes).
    empty = (
        tf.train.Feature(int64_list=tf.train.Int64List())
        if all(INTEGER.fullmatch(v) for v in table.cells[column] if v)
        else tf.train.Feature(bytes_list=tf.train.BytesList())
    )
    example = tf.train.Example(features=tf.train.Features(feature={column: empty}))
    buckets = split_buckets_for(table.path.stat().st_size)
    router = SplitRouter.of(buckets, column)
    return buckets[router(example.SerializeToString())][0]


def checked(table: Table, entity: Entity) -> Entity:
    """``entity``, or DraftError where it cannot key the splits: empty cells, one giant."""
    values = table.cells[entity.column]
    empty = [row for row, v in enumerate(values) if not v]
    if empty:
        lines = ", ".join(str(table.line(r)) for r in empty[:SHOWN_LINES])
        raise DraftError(
            f"{table.path}: the entity column {entity.column!r} is empty in {len(empty)} "
            f"rows (lines {lines}{', ...' if len(empty) > SHOWN_LINES else ''}): they would "
            f"all go to the {_empty_key_split(table, entity.column)} split, keyed by one "
            "empty value; fill them, or draft with --no-entity"
        )
    top, count = Counter(values).most_common(1)[0]
    if count > MAX_ENTITY_SHARE * len(values):
        raise DraftError(
            f"{table.path}: the entity {entity.column}={top!r} holds {count} of "
            f"{len(values)} rows: keyed by {entity.column!r} the split cannot be balanced; "
            "draft with --no-entity or name another with --entity"
        )
    return entity
