"""Draft a dataset declaration from a CSV file, for people to review.

    wide-deep-draft-dataset NAME CSV LABEL POSITIVE [--overwrite]
    make dataset NAME=<name> CSV=<path> LABEL=<column> POSITIVE=<value>

Reads the table's statistics (TFDV, with the types ExampleGen will give each
column) and writes, for ``wide-deep-run --dataset NAME`` to run on:

- ``datasets/NAME/__init__.py``: the declaration, one line per column with
  the kind chosen and why; the label is 1 where LABEL equals POSITIVE; a small table's
  training settings (``training_settings``);
- ``datasets/NAME/schema.pbtxt``: the curated schema, from the inferred one;
- ``data/NAME/NAME.csv``: the sample, copied into the dataset's data root.

Rows whose LABEL cell is empty are set aside (an unknown label is no negative): the
draft's statistics, kinds and AUCs see the labelled rows only, the copied sample holds
only them, and the curated schema requires the label, so that a later file with
empty labels stops at the ExampleValidator.

It prints one line per column: the kind chosen and why (numbers and dates written as
text: how they are read), and the rows set aside; then each cross chosen, with its
measured interaction, and the next best pairs left out; then whether boosted trees'
leaves join the wide part, and why; and a small table's training settings. Bad input
(no such file, an empty one, duplicate columns, a label that is not there, a
POSITIVE value that never occurs, one class only, too few (labelled) rows, a name
already taken) is one line on stderr and exit 2, and nothing is written. Exit 0: the
draft is written.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import datasets
from drafting.crosses import Crosses, choose_crosses, summary
from drafting.entity import Entity, find_entity, named_entity
from drafting.history import OfferedHistory, statistics_text, with_history
from drafting.period import Period, find_period, named_period
from drafting.render import curated_schema, render, statistics, tfdv_types
from drafting.rules import Choice, choose, history_feature, id_feature, training_settings
from drafting.table import (
    DraftError,
    Labelled,
    Table,
    check_label,
    check_name,
    read_table,
)
from drafting.trees import TreeGain, measure
from drafting.trees import summary as trees_summary
from modules.features import HistoryColumns
from pipeline_def.project_paths import DEFAULT_DATA_ROOT
from pipeline_ops import commands
from pipeline_ops.cli import scaffold
from pipeline_ops.cli.quiet import quiet_libraries

# The kinds a text column may be read as (numbers, dates): no list of values in the schema.
READ = ("numeric", "time")
# How many lines of rows set aside the draft names.
SHOWN_LINES = 5


def draft(
    name: str,
    csv_path: Path,
    label: str,
    positive: str,
    *,
    overwrite: bool = False,
    datasets_dir: Path = datasets.DATASETS_DIR,
    data_dir: Path = DEFAULT_DATA_ROOT,
    out: TextIO = sys.stdout,
    entity: str | None = None,
    test_period: str | None = None,
    entity_feature: bool | None = None,
) -> Path:
    """Check the input, draft the dataset and write it; the declaration's folder.

    ``entity`` names the column the rows are of, ``test_period`` the column whose newest
    value is the test split ("": none; None: the draft looks); ``entity_feature``: the
    entity's id and history are features (None: where most test entities have earlier
    rows). Every check precedes any write, and files are renamed into place.
    """
    check_name(name, datasets_dir, data_dir, csv_path, overwrite)
    labelled = check_label(read_table(csv_path), label, positive)
    splits = _splits(labelled.table, label, entity, test_period, entity_feature)
    labelled, history = _offer_history(labelled, splits, label, positive)
    table, labels = labelled.table, labelled.labels
    keyed, period, groups = splits.entity, splits.period, splits.groups(table)
    quiet_libraries()
    with tempfile.TemporaryDirectory(prefix=f"draft-{name}-") as tmp:
        # The sample as plain UTF-8 CSV: what TFDV reads here and ExampleGen later.
        plain = Path(tmp) / f"{name}.csv"
        plain.write_text(table.text, encoding="utf-8")
        stats = statistics(_statistics_file(plain, table, history))
        choices = _choices(labelled, label, tfdv_types(stats), splits, history)
        crosses = choose_crosses(table.cells, labels, choices, groups)
        trees = measure(table.cells, labels, choices, groups)
        source = render(
            name, table, label, positive, choices, crosses, trees, keyed, period, bool(history)
        )
        _check_declaration(source, name, csv_path)
        schema = _schema(stats, label, positive, table, choices, splits, history)
        folder = _write(name, source, schema, plain, csv_path, datasets_dir, data_dir)
    sample = data_dir / name / f"{name}.csv"
    _print_columns(labelled, label, positive, choices, sample, out)
    for line in [*splits.lines(table.rows), *([history.describe()] if history else [])]:
        print(f"  {line}", file=out)
    _print_measures(crosses, trees, table.rows, out)
    print(f"wrote {folder}/ and {sample}", file=out)
    return folder


def _schema(
    stats: object,
    label: str,
    positive: str,
    table: Table,
    choices: Sequence[Choice],
    splits: _Splits,
    history: OfferedHistory | None,
) -> str:
    """The curated schema, no skew comparator on what moves by design over periods."""
    read = [c.column for c in choices if c.kind in READ]
    moving = [s.column for s in (splits.entity, splits.period) if s is not None]
    moving += history.columns.names() if history else []
    return curated_schema(stats, label, positive, table, read, moving)


def _offer_history(
    labelled: Labelled, splits: _Splits, label: str, positive: str
) -> tuple[Labelled, OfferedHistory | None]:
    """The table with its entity's history columns, and their evidence.

    Where the entity is a feature of a test period's splits: the next period asks of
    entities seen before, and what their earlier periods say is theirs to learn.
    """
    if not (splits.entity_feature and splits.period and splits.entity):
        return labelled, None
    columns = HistoryColumns(splits.entity.column, splits.period.column, label, positive)
    return with_history(labelled, columns)


def _statistics_file(plain: Path, table: Table, history: OfferedHistory | None) -> Path:
    """The CSV file TFDV reads: the sample, with the history columns where offered."""
    if history is None:
        return plain
    with_columns = plain.with_name(f"statistics-{plain.name}")
    with_columns.write_text(statistics_text(table), encoding="utf-8")
    return with_columns


@dataclass(frozen=True)
class _Splits:
    """How the draft splits the rows: the entity keying them, the test period."""

    entity: Entity | None
    period: Period | None
    # The entity's column is a feature too (--entity-feature; by default with a period
    # whose entities have earlier rows).
    entity_feature: bool

    @property
    def role(self) -> str:
        """What the entity's column does where it is no feature."""
        return "a test period splits the rows" if self.period else "the splits are keyed by it"

    def groups(self, table: Table) -> list[str] | None:
        """Each row's entity, for held-out folds of whole entities as the run's splits hold."""
        return table.cells[self.entity.column] if self.entity else None

    def lines(self, rows: int) -> list[str]:
        """What the draft says of them, a line each."""
        lines = []
        if self.entity is not None and self.period is not None:
            # A period splits the rows alone; the entity is what the model may learn.
            feature = (
                f"a feature: {self.period.known_text()} (--no-entity-feature declines)"
                if self.entity_feature
                else "no feature (--no-entity-feature)"
                if 2 * self.period.known >= self.period.entities
                else f"no feature: {self.period.known_text()} (--entity-feature asks)"
            )
            lines.append(f"entity {self.entity.column}: {self.entity.why}; {feature}")
        elif self.entity is not None:
            also = "; a feature too (--entity-feature)" if self.entity_feature else ""
            lines.append(f"splits keyed by {self.entity.column}: {self.entity.why}{also}")
        if self.period is not None:
            lines.append(f"test split: {self.period.describe(rows)}")
            lines.append(
                f"validation split: the {self.period.column} before it; train: the older ones"
            )
        return lines


def _splits(
    table: Table,
    label: str,
    entity: str | None,
    test_period: str | None,
    entity_feature: bool | None,
) -> _Splits:
    """The splits the flags ask for, or the draft finds; DraftError where they cannot be.

    Unless told, the entity is a feature where the test period's entities have earlier
    rows: the model is then chosen on the period before, where knowing them pays.
    """
    keyed = _entity(table, label, entity)
    if entity_feature and keyed is None:
        raise DraftError(f"{table.path}: --entity-feature, but no entity was found or named")
    period = _period(table, label, test_period, keyed)
    if entity_feature is None:  # most of the test period's entities were seen before
        entity_feature = period is not None and 2 * period.known >= period.entities > 0
    return _Splits(keyed, period, entity_feature)


def _entity(table: Table, label: str, named: str | None) -> Entity | None:
    """The entity the splits are keyed by: the one named, none (""), or the one found."""
    if named == "":
        return None
    return named_entity(table, named, label) if named else find_entity(table, label)


def _period(table: Table, label: str, named: str | None, entity: Entity | None) -> Period | None:
    """The period the test split is the newest of: the one named, none (""), or one found."""
    if named == "":
        return None
    return named_period(table, named, entity, label) if named else find_period(table, entity, label)


def _choices(
    labelled: Labelled,
    label: str,
    types: dict[str, str],
    splits: _Splits,
    history: OfferedHistory | None = None,
) -> list[Choice]:
    """Each column's kind but the label's, by the drafting rules, from TFDV's ``types``.

    The entity's column is no feature unless asked for (or a test period's entities
    have earlier rows): then its ids are hashed, whatever they look like (an id names,
    it does not measure). Nor is the test period's column, whose newest value no model
    would have seen in training.
    """
    table, labels = labelled.table, labelled.labels
    decided = {}
    if (entity := splits.entity) is not None:
        decided[entity.column] = (
            id_feature(entity.column, table.cells[entity.column], labels)
            if splits.entity_feature
            else Choice(entity.column, "unused", f"the entity ({entity.why}): {splits.role}")
        )
    for column in history.columns.names() if history else ():
        decided[column] = history_feature(column, table.cells[column], labels)
    if (period := splits.period) is not None:
        why = (
            f"the test period: its newest value ({period.newest}) is the test split, "
            "a value no model sees in training"
        )
        decided[period.column] = Choice(period.column, "unused", why)
    return [
        decided.get(column)
        or choose(column, table.cells[column], labels, types.get(column, "STRING"))
        for column in table.columns
        if column != label
    ]


def _check_declaration(source: str, name: str, csv_path: Path) -> None:
    """Run the drafted ``source``: DraftError when the declaration refuses the columns."""
    try:
        exec(compile(source, f"{name}/__init__.py", "exec"), {})  # noqa: S102 - our own draft
    except ValueError as err:
        raise DraftError(f"{csv_path}: {err} (rename the columns)") from None


def _print_columns(
    labelled: Labelled,
    label: str,
    positive: str,
    choices: Sequence[Choice],
    sample: Path,
    out: TextIO,
) -> None:
    """The rows and positives, the rows set aside, then each column's kind and why."""
    table, labels = labelled.table, labelled.labels
    width = max(len(c.column) for c in choices)
    print(f"{table.rows} rows; label {label} == {positive!r}: {sum(labels)} positive", file=out)
    if labelled.unlabelled:
        print(f"  {_set_aside(label, labelled.unlabelled)}, not in {sample}", file=out)
    for c in choices:
        print(f"  {c.column:<{width}}  {c.kind:<13} {c.why}", file=out)


def _print_measures(crosses: Crosses, trees: TreeGain | None, rows: int, out: TextIO) -> None:
    """The crosses chosen and left out, the trees' verdict, a small table's settings."""
    for line in summary(crosses):
        print(f"  {line}", file=out)
    print(f"  {trees_summary(trees)}", file=out)
    settings = training_settings(rows)
    if settings:
        pairs = ", ".join(f"{k}={v}" for k, v in settings.items())
        print(f"  training settings for a small table: {pairs}", file=out)


def _set_aside(label: str, lines: Sequence[int]) -> str:
    """What the draft says of the rows without a label: how many, and the first lines."""
    shown = ", ".join(map(str, lines[:SHOWN_LINES])) + (", ..." if len(lines) > SHOWN_LINES else "")
    rows = f"{len(lines)} row{'s' if len(lines) > 1 else ''}"
    return f"{rows} without a {label} set aside (line{'s' if len(lines) > 1 else ''} {shown})"


def _write(
    name: str,
    source: str,
    schema: str,
    plain: Path,
    csv_path: Path,
    datasets_dir: Path,
    data_dir: Path,
) -> Path:
    """Write the declaration, its schema and the sample, each staged then renamed."""
    folder = datasets_dir / name
    datasets_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=datasets_dir))
    staging.chmod(0o755)  # mkdtemp's folder is private; a package folder is not
    (staging / "__init__.py").write_text(source)
    (staging / datasets.SCHEMA_FILE).write_text(schema)
    sample = data_dir / name / f"{name}.csv"
    if not (sample.is_file() and sample.samefile(csv_path)):
        sample.parent.mkdir(parents=True, exist_ok=True)
        staged_csv = sample.parent / f".{name}.csv.tmp"
        shutil.copyfile(plain, staged_csv)
        staged_csv.replace(sample)
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    return folder


def _add_split_options(parser: argparse.ArgumentParser) -> None:
    """The flags that name or decline the entity, its feature and the test period."""
    whose = parser.add_mutually_exclusive_group()
    whose.add_argument(
        "--entity", default=None, help="the column the rows are of (default: the draft looks)"
    )
    whose.add_argument(
        "--no-entity", dest="entity", action="store_const", const="",
        help="the rows are of no entity: split them one by one",
    )  # fmt: skip
    learns = parser.add_mutually_exclusive_group()
    learns.add_argument(
        "--entity-feature", action="store_true", default=None,
        help="the entity's column is a feature too (default: with a test period whose "
        "entities have earlier rows)",
    )  # fmt: skip
    learns.add_argument(
        "--no-entity-feature", dest="entity_feature", action="store_false",
        help="the entity's column is no feature, even with a test period",
    )  # fmt: skip
    parser.set_defaults(entity_feature=None)  # None: the draft decides
    when = parser.add_mutually_exclusive_group()
    when.add_argument(
        "--test-period", default=None, metavar="COLUMN",
        help="the period column whose newest value is the test split "
        "(default: the draft looks, in a table with an entity)",
    )  # fmt: skip
    when.add_argument(
        "--no-test-period", dest="test_period", action="store_const", const="",
        help="no period test split: the test split is hashed like the others",
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: draft, or one line and exit 2 on bad input."""
    parser = scaffold.parser_for(commands.DRAFT_DATASET, __doc__)
    parser.add_argument("name", help="the dataset's name: lower-case letters, digits, _")
    parser.add_argument("csv", type=Path, help="the table, a CSV file with a header row")
    parser.add_argument("label", help="the label's column")
    parser.add_argument("positive", help="the label's positive value: label = column == value")
    parser.add_argument("--overwrite", action="store_true", help="replace a dataset of that name")
    parser.add_argument("--datasets-dir", type=Path, default=datasets.DATASETS_DIR)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_ROOT)
    _add_split_options(parser)
    args = parser.parse_args(argv)

    def body() -> int:
        with scaffold.bad_input(DraftError, UnicodeDecodeError, csv.Error):
            draft(
                args.name, args.csv, args.label, args.positive, overwrite=args.overwrite,
                datasets_dir=args.datasets_dir, data_dir=args.data_dir, entity=args.entity,
                test_period=args.test_period, entity_feature=args.entity_feature,
            )  # fmt: skip
        print(f"next: {commands.command_line(commands.RUN)} --dataset {args.name}")
        return commands.EXIT_OK

    return scaffold.execute(body, quiet=False)


if __name__ == "__main__":
    sys.exit(main())
