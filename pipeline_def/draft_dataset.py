"""Draft a dataset declaration from a CSV file, for people to review.

    python -m pipeline_def.draft_dataset NAME CSV LABEL POSITIVE [--overwrite]
    make dataset NAME=<name> CSV=<path> LABEL=<column> POSITIVE=<value>

Reads the table's statistics (TFDV, with the types ExampleGen will give each
column) and writes, for ``python local_runner.py --dataset NAME`` to run on:

- ``modules/datasets/NAME/__init__.py``: the declaration, one line per column with
  the kind chosen and why; the label is 1 where LABEL equals POSITIVE; a small table's
  training settings (``training_settings``);
- ``modules/datasets/NAME/schema.pbtxt``: the curated schema, from the inferred one;
- ``data/NAME.csv``: the sample, copied.

It prints one line per column: the kind chosen and why. Bad input (no such file,
an empty one, duplicate columns, a label that is not there, a POSITIVE value that
never occurs, one class only, too few rows, a name already taken) is one line on
stderr and exit 2, and nothing is written. Exit 0: the draft is written.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import keyword
import math
import re
import shutil
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from components import csv_files
from components.splits import TRAIN
from modules import datasets
from modules import features as F
from pipeline_def.config import DEFAULT_DATA_ROOT, DEFAULT_SPLIT
from pipeline_ops.cli.quiet import quiet_libraries

EXIT_OK, EXIT_BAD_INPUT = 0, 2
# Below this many rows a 2:1 split leaves too few examples to train on and judge.
MIN_ROWS = 100
# Each class needs examples in both splits.
MIN_PER_CLASS = 10
# Strings with more distinct values than this are hashed, not given a vocabulary.
MAX_VOCABULARY = 100
# Non-negative integers spanning at most this many values are codes (hours, days...).
MAX_RANGE_SPAN = 32
# Integers with at most this many distinct values, over a wider span, are codes too.
MAX_CODE_VALUES = 12
# Numbers with a skewness above this (and no negative value) are log-scaled.
HEAVY_TAIL_SKEW = 1.0
NUMERIC_BUCKETS = 10
# Slices: categorical columns with at most this many values, the strongest first.
MAX_SLICE_VALUES = 10
MAX_SLICES = 3
# Crosses: every pair of the strongest few categorical features.
CROSSED_FEATURES = 3
MAX_CROSS_BUCKETS = 1000
# Training settings of small tables. HParams' defaults were chosen on the taxi sample
# (15,002 rows, 9,000 to train on), where an epoch of 50 batches of 256 is about 1.4
# passes over the train split. On a table of a few thousand rows that epoch is several
# passes, and the model overfits between two of early stopping's looks: on credit_data
# (2,718 train rows) validation AUC peaked after the second epoch of 4.7 passes each.
# Below SMALL_TABLE_ROWS the draft trains in SMALL_TABLE_BATCH-row batches, in epochs of
# about one pass over the train split, with SMALL_TABLE_DROPOUT (see the README's
# figures: chosen on credit_data's validation split).
SMALL_TABLE_ROWS = 10_000
SMALL_TABLE_BATCH = 32
SMALL_TABLE_DROPOUT = 0.4
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*\Z")


class DraftError(ValueError):
    """The input cannot be drafted; the message says what and where."""


@dataclass(frozen=True)
class Table:
    """A CSV file's header and cells (as text), read once."""

    path: Path
    columns: tuple[str, ...]
    cells: dict[str, list[str]]
    # The file's CSV text as ExampleGen reads it: without a byte-order mark, unzipped.
    text: str

    @property
    def rows(self) -> int:
        """The number of data rows."""
        return len(self.cells[self.columns[0]])


def read_text(path: Path) -> str:
    """The CSV text of ``path`` as people export it: a BOM dropped, .csv.gz unzipped.

    DraftError for a missing file, one that is not UTF-8 or a broken gzip file.
    """
    if not path.is_file():
        raise DraftError(f"{path}: no such file")
    try:
        with path.open("rb") as raw, csv_files.gzip_errors(str(path)):
            data = csv_files.decompressed(raw, str(path)).read()
        return "".join(
            chunk.decode("utf-8") for chunk in csv_files.utf8_checked([data], str(path))
        ).removeprefix("\ufeff")
    except csv_files.CsvFormatError as err:
        raise DraftError(str(err)) from None


def read_table(path: Path) -> Table:
    """The table at ``path``; DraftError for a missing, empty or malformed file."""
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise DraftError(f"{path}: the file is empty (no header row)")
    duplicates = sorted(name for name, n in Counter(header).items() if n > 1)
    if duplicates:
        raise DraftError(f"{path}: duplicate column name(s) {', '.join(duplicates)}")
    cells: dict[str, list[str]] = {name: [] for name in header}
    for line, row in enumerate(reader, start=2):
        if not row:
            continue  # an empty line, as at the end of many exports
        if len(row) != len(header):
            raise DraftError(
                f"{path}:{line}: a row has {len(row)} cells where the header has {len(header)}"
            )
        for name, value in zip(header, row, strict=True):
            cells[name].append(value.strip())
    table = Table(path, tuple(header), cells, text)
    if table.rows < MIN_ROWS:
        raise DraftError(
            f"{path}: too few rows to split: {table.rows}, at least {MIN_ROWS} are needed "
            "(a third of them judge the model)"
        )
    return table


def check_label(table: Table, label: str, positive: str) -> list[int]:
    """The 0/1 label of every row; DraftError when it cannot be learned."""
    if label not in table.cells:
        raise DraftError(
            f"{table.path}: no label column {label!r}; the columns are {', '.join(table.columns)}"
        )
    values = table.cells[label]
    counts = Counter(v for v in values if v)
    if positive not in counts:
        seen = ", ".join(repr(v) for v, _ in counts.most_common(10))
        raise DraftError(
            f"{table.path}: POSITIVE {positive!r} never occurs in column {label!r} "
            f"(its values: {seen or 'none'})"
        )
    labels = [int(v == positive) for v in values]
    positives = sum(labels)
    if positives == len(labels) or len(counts) < 2 and positives + values.count("") == len(labels):
        raise DraftError(
            f"{table.path}: the label {label} == {positive!r} has one class only "
            f"(every row is {'positive' if positives == len(labels) else 'negative'})"
        )
    fewest = min(positives, len(labels) - positives)
    if fewest < MIN_PER_CLASS:
        raise DraftError(
            f"{table.path}: too few rows to split: the label {label} == {positive!r} has "
            f"{fewest} row(s) of one class, at least {MIN_PER_CLASS} are needed"
        )
    return labels


def check_name(name: str, datasets_dir: Path, data_dir: Path, csv_path: Path, overwrite: bool):
    """DraftError unless ``name`` is a valid dataset name that is free (or may be replaced)."""
    if not NAME_PATTERN.match(name) or keyword.iskeyword(name):
        raise DraftError(
            f"NAME {name!r} must be lower-case letters, digits and _ , starting with a letter"
        )
    taken = [p for p in (datasets_dir / name, data_dir / f"{name}.csv") if p.exists()]
    taken = [p for p in taken if not (p.is_file() and p.samefile(csv_path))]
    if taken and not overwrite:
        raise DraftError(
            f"dataset {name!r} already exists ({', '.join(map(str, taken))}): choose another "
            "NAME, or add --overwrite (make dataset ... ARGS=--overwrite) to replace it"
        )


def kind_of(values: Sequence[str]) -> str:
    """``int``, ``float`` or ``string`` by ExampleGen's rule; ``empty`` without values."""
    present = [v for v in values if v]
    if not present:
        return "empty"
    for kind, parse in (("int", int), ("float", float)):
        try:
            [parse(v) for v in present]
        except ValueError:
            continue
        return kind
    return "string"


def rank_auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """ROC AUC of ``scores`` for ``labels`` (ties count half), at least 0.5 either way."""
    order = sorted(range(len(scores)), key=scores.__getitem__)
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    pos_ranks = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    auc = (pos_ranks - positives * (positives + 1) / 2) / (positives * negatives)
    return max(auc, 1.0 - auc)


def _category_auc(values: Sequence[str], labels: Sequence[int]) -> float:
    """AUC of each value's share of positives: how much the column alone separates."""
    totals: Counter[str] = Counter(values)
    hits: Counter[str] = Counter(v for v, y in zip(values, labels, strict=True) if y)
    return rank_auc([hits[v] / totals[v] for v in values], labels)


def _skew(numbers: Sequence[float]) -> float:
    n = len(numbers)
    mean = sum(numbers) / n
    var = sum((x - mean) ** 2 for x in numbers) / n
    if var == 0:
        return 0.0
    return sum((x - mean) ** 3 for x in numbers) / n / var**1.5


@dataclass(frozen=True)
class Choice:
    """One column's draft: its declaration (Python source), kind and why."""

    column: str
    kind: str
    why: str
    source: str = ""  # the declaration's expression; empty for an unused column
    group: str = ""  # the Dataset field it goes in
    # What the column alone achieves on the label (AUC), and its categories if it
    # is categorical (for slices and crosses), else 0.
    auc: float = 0.5
    categories: int = 0
    feature: str = ""  # the categorical feature's name in crosses


def _missing_note(missing: int, rows: int) -> str:
    return f"; {missing} of {rows} cells missing: missing indicator" if missing else ""


def choose(name: str, values: list[str], labels: list[int], tfdv_type: str) -> Choice:
    """The kind of one column, by the drafting rules, and why."""
    rows = len(values)
    present = [v for v in values if v]
    missing = rows - len(present)
    distinct = len(set(present))
    flag = ", missing_indicator=True" if missing else ""
    if not present:
        return Choice(name, "unused", "empty in every row")
    if distinct == 1:
        return Choice(name, "unused", f"the same value ({present[0]!r}) in every row")
    filled = [v or "__missing__" for v in values]
    if tfdv_type == "STRING" or tfdv_type == "BYTES":
        if distinct == len(present) and distinct > MAX_VOCABULARY:
            return Choice(name, "unused", "a different value in every row: an id")
        if distinct > MAX_VOCABULARY:
            buckets = min(4096, 1 << math.ceil(math.log2(distinct)))
            return Choice(
                name, "hashed", f"text with {distinct} distinct values: {buckets} hash buckets"
                + _missing_note(missing, rows),
                f"Hashed({_q(name)}, {buckets}{flag})", "hashed",
            )  # fmt: skip
        top_k = max(10, distinct)
        return Choice(
            name, "vocabulary", f"text with {distinct} distinct values"
            + _missing_note(missing, rows),
            f"Vocabulary({_q(name)}, top_k={top_k}{flag})", "vocabularies",
            _category_auc(filled, labels), distinct + 1 + bool(missing), name,
        )  # fmt: skip
    numbers = [float(v) for v in present]
    low, high = min(numbers), max(numbers)
    if tfdv_type == "INT" and distinct == len(present) == high - low + 1 > MAX_VOCABULARY:
        return Choice(name, "unused", "consecutive integers, one per row: a row number")
    if tfdv_type == "INT" and low >= 0 and high - low + 1 <= MAX_RANGE_SPAN and not missing:
        low_i, high_i = int(low), int(high)
        return Choice(
            name, "integer range", f"small integer codes {low_i}..{high_i}",
            f"IntegerRange({_q(name)}, {low_i}, {high_i})", "integer_ranges",
            _category_auc(filled, labels), high_i - low_i + 2, name,
        )  # fmt: skip
    if tfdv_type == "INT" and distinct <= MAX_CODE_VALUES:
        # A few values over a wide span (loan terms in months: 12, 24, 36, ...): codes
        # the wide part one-hots and the deep part embeds. On credit_data's Time it
        # scored as the numeric did (test AUC 0.8501 against 0.8500, 3 seeds).
        return Choice(
            name, "vocabulary", f"integers with {distinct} distinct values "
            f"({int(low)}..{int(high)}): codes" + _missing_note(missing, rows),
            f"Vocabulary({_q(name)}, top_k={max(10, distinct)}{flag})", "vocabularies",
            _category_auc(filled, labels), distinct + 1 + bool(missing), name,
        )  # fmt: skip
    if tfdv_type == "INT" and low >= 1e9:
        buckets = min(4096, 1 << math.ceil(math.log2(distinct)))
        return Choice(
            name, "hashed", f"integer ids up to {int(high)} ({distinct} distinct): "
            f"{buckets} hash buckets" + _missing_note(missing, rows),
            f"Hashed({_q(name)}, {buckets}{flag})", "hashed",
        )  # fmt: skip
    skew = _skew(numbers)
    heavy = low >= 0 and skew > HEAVY_TAIL_SKEW
    scaling = "LOG_Z" if heavy else "Z"
    shape = f"skew {skew:.1f}: z-score"
    if heavy:
        shape = f"non-negative, skew {skew:.1f}: log1p, z-score"
    buckets = NUMERIC_BUCKETS if distinct > NUMERIC_BUCKETS else 0
    bucket_arg = f", bucket_count={buckets}, piecewise_linear=True" if buckets else ""
    bucket_note = f", {buckets} quantile buckets, piecewise-linear" if buckets else ""
    median = sorted(numbers)[len(numbers) // 2]
    auc = rank_auc([float(v) if v else median for v in values], labels)
    return Choice(
        name, "numeric",
        f"{tfdv_type.lower()}, {shape}{bucket_note}" + _missing_note(missing, rows),
        f"Numeric({_q(name)}, Scaling.{scaling}{flag}{bucket_arg})", "numeric",
        auc, buckets + 1 if buckets else 0, F.bucket_name(name) if buckets else "",
    )  # fmt: skip


def statistics(path: Path):  # noqa: ANN201 - a DatasetFeatureStatisticsList
    """TFDV's statistics of the CSV file, column types as ExampleGen infers them."""
    import tensorflow_data_validation as tfdv

    with tempfile.TemporaryDirectory(prefix="draft-stats-") as tmp:
        return tfdv.generate_statistics_from_csv(
            str(path), output_path=str(Path(tmp) / "stats.tfrecord")
        )


def curated_schema(stats, label: str, positive: str, table: Table) -> str:  # noqa: ANN001
    """The curated schema's text: the inferred schema, with the project's conventions."""
    import tensorflow_data_validation as tfdv
    from google.protobuf import text_format
    from tensorflow_metadata.proto.v0 import schema_pb2

    schema = tfdv.infer_schema(stats, infer_feature_shape=False)
    schema.default_environment.extend(["TRAINING", "SERVING"])
    for feature in schema.feature:
        complete = all(table.cells[feature.name])
        feature.presence.CopyFrom(schema_pb2.FeaturePresence(min_fraction=1.0, min_count=1))
        feature.value_count.CopyFrom(schema_pb2.ValueCount(min=1 if complete else 0, max=1))
        if feature.type == schema_pb2.FLOAT:
            feature.float_domain.disallow_nan = True
            feature.float_domain.disallow_inf = True
        if feature.name == label:
            feature.not_in_environment.append("SERVING")

    header = (
        f"# The curated schema of {table.path.name}, drafted by `make dataset` from TFDV's\n"
        '# inference on the sample: review it. Every column must exist; "value_count\n'
        '# { min: 1 max: 1 }" means its cells must hold a value, "{ max: 1 }" that they\n'
        f"# may be empty. The label's column ({label}) is absent when serving; string\n"
        "# domains list the values seen (a new value is an anomaly: add it here).\n"
    )
    return header + text_format.MessageToString(schema)


def _tfdv_types(stats) -> dict[str, str]:  # noqa: ANN001 - a DatasetFeatureStatisticsList
    from tensorflow_metadata.proto.v0 import statistics_pb2

    kinds = statistics_pb2.FeatureNameStatistics.Type
    return {f.path.step[0]: kinds.Name(f.type) for f in stats.datasets[0].features}


def min_auc_of(choices: Sequence[Choice]) -> float:
    """The AUC bound: the best single column's AUC, rounded down to 0.05.

    A model that does no better than one column alone is not worth pushing. Columns
    with many categories are left out: their in-sample share of positives overfits.
    """
    strong = [c.auc for c in choices if c.group == "numeric" or 0 < c.categories <= 20]
    return max(0.5, math.floor(max(strong, default=0.5) * 20) / 20)


def crosses_of(choices: Sequence[Choice]) -> list[str]:
    """Every pair of the strongest categorical features, as Cross declarations."""
    categorical = sorted((c for c in choices if c.feature), key=lambda c: -c.auc)
    crossed = categorical[:CROSSED_FEATURES]
    found = []
    for i, a in enumerate(crossed):
        for b in crossed[i + 1 :]:
            buckets = min(MAX_CROSS_BUCKETS, 2 * a.categories * b.categories)
            found.append(f"Cross(({_q(a.feature)}, {_q(b.feature)}), {buckets})")
    return found


def slices_of(choices: Sequence[Choice]) -> list[str]:
    """The strongest low-cardinality categorical columns: the Evaluator's slices."""
    small = [
        c for c in choices if c.group in ("vocabularies", "integer_ranges")
        and c.categories - 1 <= MAX_SLICE_VALUES
    ]  # fmt: skip
    return [c.column for c in sorted(small, key=lambda c: -c.auc)[:MAX_SLICES]]


def training_settings(rows: int) -> dict[str, int | float]:
    """The draft's hyperparameters (modules/hparams.py) for a table of ``rows`` rows.

    None at SMALL_TABLE_ROWS and above: HParams' defaults hold. Below, small batches,
    an epoch of about one pass over the train split (the split's share of ``rows``) and
    stronger dropout.
    """
    if rows >= SMALL_TABLE_ROWS:
        return {}
    train_share = dict(DEFAULT_SPLIT)[TRAIN] / sum(n for _, n in DEFAULT_SPLIT)
    train_rows = rows * train_share
    return {
        "batch_size": SMALL_TABLE_BATCH,
        "steps_per_epoch": max(1, round(train_rows / SMALL_TABLE_BATCH)),
        "dropout": SMALL_TABLE_DROPOUT,
    }


def label_name(label: str, positive: str) -> str:
    """The label feature's name, e.g. ``Status_is_bad``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", f"{label}_is_{positive}")


def _q(text: str) -> str:
    """A Python string literal in double quotes (as ruff formats them)."""
    return json.dumps(text)


def _call(source: str, indent: str) -> list[str]:
    """The call ``source`` as an element of a tuple, split as ruff formats a long one.

    Fits in 100 columns: one line. Else its arguments on a line of their own, or, if
    they do not fit there either, one argument a line.
    """
    line = f"{indent}{source},"
    if len(line) <= 100:
        return [line]
    callee, _, rest = source.partition("(")
    arguments = rest.removesuffix(")")
    inner = indent + "    "
    if len(inner + arguments) <= 100:
        return [f"{indent}{callee}(", inner + arguments, f"{indent}),"]
    parts = [inner + part + "," for part in arguments.split(", ")]
    return [f"{indent}{callee}(", *parts, f"{indent}),"]


def _comment(text: str, indent: str) -> list[str]:
    """``text`` as comment lines that fit in 100 columns."""
    return [f"{indent}# {line}" for line in textwrap.wrap(text, 98 - len(indent))]


def render(name: str, table: Table, label: str, positive: str, choices: Sequence[Choice]) -> str:
    """The declaration module's source, formatted as ruff formats it."""
    crosses = crosses_of(choices)
    groups = {
        group: [c for c in choices if c.group == group]
        for group in ("numeric", "integer_ranges", "vocabularies", "hashed")
    }
    kinds = {"numeric": ("Numeric", "Scaling"), "integer_ranges": ("IntegerRange",)}
    kinds |= {"vocabularies": ("Vocabulary",), "hashed": ("Hashed",)}
    used = {"Dataset", "Label"} | ({"Cross"} if crosses else set())
    for group, members in groups.items():
        if members:
            used |= set(kinds[group])
    body = [
        f"    name={_q(name)},",
        f"    label=Label({_q(label_name(label, positive))}, ({_q(label)},), "
        f"positive={_q(positive)}),",
    ]
    for group, members in groups.items():
        if members:
            body.append(f"    {group}=(")
            for c in members:
                body += _comment(c.why, "        ")
                body += _call(c.source, "        ")
            body.append("    ),")
    if crosses:
        body.append("    # Every pair of the three columns that alone best separate the label.")
        body.append("    crosses=(")
        body += [f"        {cross}," for cross in crosses]
        body.append("    ),")
    slices = [_q(s) for s in slices_of(choices)]
    body.append("    # Low-cardinality categorical columns, strongest first.")
    body.append(f"    slices=({', '.join(slices)}{',' if len(slices) == 1 else ''}),")
    unused = [c for c in choices if c.kind == "unused"]
    if unused:
        body.append("    unused_columns={")
        body += [f"        {_q(c.column)}: {_q(c.why)}," for c in unused]
        body.append("    },")
    body.append("    # The best single column's AUC, rounded down: the model must do better.")
    body.append(f"    min_auc={min_auc_of(choices)},")
    settings = training_settings(table.rows)
    if settings:
        body += _comment(
            f"{table.rows} rows, fewer than {SMALL_TABLE_ROWS:,}: small batches, an epoch of "
            "about one pass over the train split, stronger dropout (the drafting rules).",
            "    ",
        )
        pairs = ", ".join(f"{_q(k)}: {v!r}" for k, v in settings.items())
        body.append(f"    hparams={{{pairs}}},")
    head = [
        f'"""The {name} dataset: drafted by `make dataset` from {table.path.name}; review it.',
        "",
        f"The label is 1 where {label} == {positive!r}. Each column's kind was chosen by",
        "the drafting rules (pipeline_def/draft_dataset.py), and the comment says why;",
        "change a kind by editing its line (modules/features.py has the kinds).",
        '"""',
        "",
        "from modules.features import (",
        *[f"    {kind}," for kind in sorted(used)],
        ")",
        "",
        "DATASET = Dataset(",
    ]
    return "\n".join([*head, *body, ")"]) + "\n"


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
) -> Path:
    """Check the input, draft the dataset and write it; the declaration's folder.

    Every check comes before anything is written, and the files are written under
    temporary names first, then renamed: bad input leaves nothing behind.
    """
    check_name(name, datasets_dir, data_dir, csv_path, overwrite)
    table = read_table(csv_path)
    labels = check_label(table, label, positive)
    quiet_libraries()
    with tempfile.TemporaryDirectory(prefix=f"draft-{name}-") as tmp:
        # The sample as plain UTF-8 CSV: what TFDV reads here and ExampleGen later.
        plain = Path(tmp) / f"{name}.csv"
        plain.write_text(table.text, encoding="utf-8")
        stats = statistics(plain)
        types = _tfdv_types(stats)
        choices = [
            choose(column, table.cells[column], labels, types.get(column, "STRING"))
            for column in table.columns
            if column != label
        ]
        source = render(name, table, label, positive, choices)
        try:
            exec(compile(source, f"{name}/__init__.py", "exec"), {})  # noqa: S102 - our own draft
        except ValueError as err:
            raise DraftError(f"{csv_path}: {err} (rename the columns)") from None
        schema = curated_schema(stats, label, positive, table)
        folder = _write(name, source, schema, plain, csv_path, datasets_dir, data_dir)
    width = max(len(c.column) for c in choices)
    print(f"{table.rows} rows; label {label} == {positive!r}: {sum(labels)} positive", file=out)
    for c in choices:
        print(f"  {c.column:<{width}}  {c.kind:<13} {c.why}", file=out)
    settings = training_settings(table.rows)
    if settings:
        pairs = ", ".join(f"{k}={v}" for k, v in settings.items())
        print(f"  training settings for a small table: {pairs}", file=out)
    print(f"wrote {folder}/ and {data_dir / f'{name}.csv'}", file=out)
    return folder


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
    sample = data_dir / f"{name}.csv"
    if not (sample.is_file() and sample.samefile(csv_path)):
        data_dir.mkdir(parents=True, exist_ok=True)
        staged_csv = data_dir / f".{name}.csv.tmp"
        shutil.copyfile(plain, staged_csv)
        staged_csv.replace(sample)
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: draft, or one line and exit 2 on bad input."""
    parser = argparse.ArgumentParser(
        prog="python -m pipeline_def.draft_dataset", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("name", help="the dataset's name: lower-case letters, digits, _")
    parser.add_argument("csv", type=Path, help="the table, a CSV file with a header row")
    parser.add_argument("label", help="the label's column")
    parser.add_argument("positive", help="the label's positive value: label = column == value")
    parser.add_argument("--overwrite", action="store_true", help="replace a dataset of that name")
    parser.add_argument("--datasets-dir", type=Path, default=datasets.DATASETS_DIR)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_ROOT)
    args = parser.parse_args(argv)
    try:
        draft(
            args.name, args.csv, args.label, args.positive, overwrite=args.overwrite,
            datasets_dir=args.datasets_dir, data_dir=args.data_dir,
        )  # fmt: skip
    except (DraftError, UnicodeDecodeError, csv.Error) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"next: python local_runner.py --dataset {args.name}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
