"""The draft written out: the declaration module's source and the curated schema's text."""

from __future__ import annotations

import ast
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path

from drafting.crosses import Crosses
from drafting.entity import Entity
from drafting.period import Period
from drafting.rules import (
    SLICE_MAX_AUC_DROP,
    SMALL_TABLE_ROWS,
    Choice,
    label_name,
    literal,
    min_auc_of,
    slices_of,
    training_settings,
)
from drafting.table import Table
from drafting.trees import TreeGain
from drafting.trees import summary as trees_summary
from modules.features import SLICE_MIN_ROWS

# Each drafted skew comparator's threshold: the taxi's, whose shipped rows measure at most
# 0.05 against their own train split (datasets/taxi/schema.pbtxt).
SKEW_THRESHOLD = 0.1


def statistics(path: Path):  # noqa: ANN201 - a DatasetFeatureStatisticsList
    """TFDV's statistics of the CSV file, column types as ExampleGen infers them."""
    import tensorflow_data_validation as tfdv

    with tempfile.TemporaryDirectory(prefix="draft-stats-") as tmp:
        return tfdv.generate_statistics_from_csv(
            str(path), output_path=str(Path(tmp) / "stats.tfrecord")
        )


def curated_schema(
    stats,  # noqa: ANN001 - a DatasetFeatureStatisticsList
    label: str,
    positive: str,
    table: Table,
    read: Sequence[str] = (),
    moving: Sequence[str] = (),
) -> str:
    """The curated schema's text: the inferred schema, with the project's conventions.

    The label's column must hold a value in every row (the draft set aside the rows
    without one, and a later file with such rows stops at the ExampleValidator); the
    ``read`` columns, numbers or dates written as text, have no list of values. Every
    other column but the ``moving`` ones (the period and the entity, whose later rows
    differ from the training data's by design) gets a skew comparator, for the rows
    ``wide-deep-score`` scores (``SKEW_THRESHOLD``, as the taxi's): not the ``read``
    ones either, whose text is near unique per row, so that their shares say nothing.
    """
    import tensorflow_data_validation as tfdv
    from google.protobuf import text_format
    from tensorflow_metadata.proto.v0 import schema_pb2

    schema = tfdv.infer_schema(stats, infer_feature_shape=False)
    schema.default_environment.extend(["TRAINING", "SERVING"])
    free = {f.domain for f in schema.feature if f.name in read and f.HasField("domain")}
    for feature in schema.feature:
        complete = feature.name == label or all(table.cells[feature.name])
        feature.presence.CopyFrom(schema_pb2.FeaturePresence(min_fraction=1.0, min_count=1))
        feature.value_count.CopyFrom(schema_pb2.ValueCount(min=1 if complete else 0, max=1))
        if feature.type == schema_pb2.FLOAT:
            feature.float_domain.disallow_nan = True
            feature.float_domain.disallow_inf = True
        if feature.name == label:
            feature.not_in_environment.append("SERVING")
        elif feature.name not in (*moving, *read):
            _add_skew_comparator(feature)
        if feature.domain in free:
            feature.ClearField("domain")
    domains = [d for d in schema.string_domain if d.name not in free]
    del schema.string_domain[:]
    schema.string_domain.extend(domains)

    return _schema_header(table.path.name, label) + text_format.MessageToString(schema)


def _schema_header(file_name: str, label: str) -> str:
    """The comment heading a drafted schema: its conventions, for the reviewer."""
    return (
        f"# The curated schema of {file_name}, drafted by `make dataset` from TFDV's\n"
        '# inference on the sample: review it. Every column must exist; "value_count\n'
        '# { min: 1 max: 1 }" means its cells must hold a value, "{ max: 1 }" that they\n'
        f"# may be empty. The label's column ({label}) must hold one in every row, and is\n"
        "# absent when serving; string domains list the values seen (a new value is an\n"
        "# anomaly: add it here). Skew comparators judge the rows wide-deep-score scores\n"
        "# against the model's training data (L-infinity for text, Jensen-Shannon for\n"
        "# numbers); the period, the entity and the columns read from text have none.\n"
    )


def _add_skew_comparator(feature) -> None:  # noqa: ANN001 - a schema_pb2.Feature
    """L-infinity for a text column's shares, Jensen-Shannon for a number's, at SKEW_THRESHOLD."""
    from tensorflow_metadata.proto.v0 import schema_pb2

    comparator = feature.skew_comparator
    if feature.type == schema_pb2.BYTES:
        comparator.infinity_norm.threshold = SKEW_THRESHOLD
    else:
        comparator.jensen_shannon_divergence.threshold = SKEW_THRESHOLD


def tfdv_types(stats) -> dict[str, str]:  # noqa: ANN001 - a DatasetFeatureStatisticsList
    """Each column's type as TFDV read it (INT, FLOAT, STRING...), by name."""
    from tensorflow_metadata.proto.v0 import statistics_pb2

    kinds = statistics_pb2.FeatureNameStatistics.Type
    return {f.path.step[0]: kinds.Name(f.type) for f in stats.datasets[0].features}


def _bracketed(
    opening: str, items: list[str], closing: str, indent: str, *, is_tuple: bool = False
) -> list[str]:
    """``opening`` items ``closing`` as ruff lays it out in 100 columns.

    One line if it fits; else the items on a line of their own; else one item a line,
    each with its comma. A tuple of one item keeps its comma wherever the item goes.
    """
    joined = ", ".join(items) + ("," if is_tuple and len(items) == 1 else "")
    line = f"{indent}{opening}{joined}{closing}"
    if len(line) <= 100:
        return [line]
    inner = indent + "    "
    if len(inner + joined) <= 100:
        return [f"{indent}{opening}", inner + joined, f"{indent}{closing}"]
    return [f"{indent}{opening}", *(f"{inner}{item}," for item in items), f"{indent}{closing}"]


def _call(source: str, indent: str) -> list[str]:
    """The call ``source`` as an element of a tuple, split as ruff formats a long one.

    Its arguments are read from the call's syntax tree, not by splitting on ", ": a
    column name may hold a comma.
    """
    call = ast.parse(source, mode="eval").body
    arguments = [ast.get_source_segment(source, a) for a in (*call.args, *call.keywords)]
    callee = ast.get_source_segment(source, call.func)
    return _bracketed(f"{callee}(", arguments, "),", indent)


def _comment(text: str, indent: str, *, split_hyphenated: bool = True) -> list[str]:
    """``text`` as comment lines that fit in 100 columns."""
    lines = textwrap.wrap(text, 98 - len(indent), break_on_hyphens=split_hyphenated)
    return [f"{indent}# {line}" for line in lines]


def _crosses(crosses: Crosses) -> list[str]:
    """The ``crosses=`` lines, each cross after its measured interaction."""
    if not crosses.chosen:
        return _comment(
            "No crosses: no pair of features predicts the label beyond both alone on held-out "
            "rows (drafting/crosses.py).",
            "    ",
        )
    lines = _comment(
        "Pairs of features whose cells predict the label beyond both alone, measured on "
        "held-out rows (drafting/crosses.py), strongest first.",
        "    ",
    )
    lines.append("    crosses=(")
    for m in crosses.chosen:
        # Feature names and "held-out" stay whole.
        lines += _comment(m.describe(), "        ", split_hyphenated=False)
        lines += _call(m.declaration(), "        ")
    return [*lines, "    ),"]


# The declaration's groups of columns, in the order it lists them, and the kinds
# (modules/features.py) each group's lines name, so that the module imports them.
_GROUP_KINDS = {
    "numeric": ("Numeric", "Scaling"),
    "integer_ranges": ("IntegerRange",),
    "vocabularies": ("Vocabulary",),
    "hashed": ("Hashed",),
    "timestamps": ("Timestamp", "TimeFormat"),
}


def _groups(choices: Sequence[Choice]) -> dict[str, list[Choice]]:
    """The choices by declaration group, every group present (empty when none chose it)."""
    return {group: [c for c in choices if c.group == group] for group in _GROUP_KINDS}


def _imports(
    groups: dict[str, list[Choice]],
    choices: Sequence[Choice],
    crosses: Crosses,
    tree_leaves: bool,
) -> set[str]:
    """The names the module imports from modules.features: only those its lines use."""
    used = {"DatasetDeclaration", "Label"} | ({"Cross"} if crosses.chosen else set())
    used |= {"TreeLeaves"} if tree_leaves else set()
    for group, members in groups.items():
        if members:
            used |= set(_GROUP_KINDS[group])
    return used | {name for c in choices for name in c.imports}


def _group_lines(groups: dict[str, list[Choice]]) -> list[str]:
    """Each non-empty group's tuple: every column's declaration after the reason for it."""
    lines = []
    for group, members in groups.items():
        if members:
            lines.append(f"    {group}=(")
            for c in members:
                lines += _comment(c.why, "        ")
                lines += _call(c.source, "        ")
            lines.append("    ),")
    return lines


def _slice_lines(choices: Sequence[Choice]) -> list[str]:
    """The ``slices=`` line, and the slice bound when there are slices to bound."""
    slices = [literal(s) for s in slices_of(choices)]
    lines = [
        "    # Low-cardinality categorical columns, strongest first.",
        *_bracketed("slices=(", slices, "),", "    ", is_tuple=True),
    ]
    if slices:
        lines += _comment(
            f"The slice bound: no slice of {SLICE_MIN_ROWS} test rows or more may lose more than "
            f"{SLICE_MAX_AUC_DROP} AUC against the serving model beyond its noise (the drafting "
            "rules).",
            "    ",
        )
        lines.append(f"    slice_max_auc_drop={SLICE_MAX_AUC_DROP},")
    return lines


def _unused_lines(choices: Sequence[Choice]) -> list[str]:
    """The ``unused_columns=`` dict, each column left out with why; none if none is."""
    unused = [c for c in choices if c.kind == "unused"]
    if not unused:
        return []
    entries = [f"        {literal(c.column)}: {literal(c.why)}," for c in unused]
    return ["    unused_columns={", *entries, "    },"]


def _entity_lines(entity: Entity | None, period: Period | None) -> list[str]:
    """The ``entity=`` line with its evidence; none without an entity."""
    if entity is None:
        return []
    where = (
        "rows in every split, a period each, so the model may learn each entity"
        if period
        else "rows in one split, so the test split asks about new ones"
    )
    why = (
        f"The rows are of {entity.entities} entities ({entity.rows_per_entity:.1f} rows "
        f"each): each entity's {where}."
    )
    return [*_comment(why, "    "), f"    entity={literal(entity.column)},"]


def _period_lines(period: Period | None) -> list[str]:
    """The ``test_period=`` line with what it asks; none without a period."""
    if period is None:
        return []
    why = (
        f"The test split is the newest {period.column} in the data (here {period.newest}, "
        f"{period.rows} rows): how a model does on the next period, as production asks. "
        f"Validation is the {period.column} before it, and the older ones train."
    )
    return [*_comment(why, "    "), f"    test_period={literal(period.column)},"]


def _history_lines() -> list[str]:
    """The ``entity_history=`` line, with what ExampleGen computes."""
    why = (
        "ExampleGen adds what each entity's earlier periods say to every row (its labelled "
        "rows before the row's period, their positive rate, its latest period's rate), "
        "never from the row's own label or a later period."
    )
    return [*_comment(why, "    "), "    entity_history=True,"]


def _tree_lines(trees: TreeGain) -> list[str]:
    """The ``tree_leaves=`` line, after the measured gain that asks for it."""
    why = trees_summary(trees)
    lines = _comment(f"{why[:1].upper()}{why[1:]} (drafting/trees.py).", "    ")
    return [*lines, "    tree_leaves=TreeLeaves(),"]


def _settings_lines(rows: int) -> list[str]:
    """A small table's ``hparams=`` (the drafting rules' training settings); none if large."""
    settings = training_settings(rows)
    if not settings:
        return []
    lines = _comment(
        f"{rows} rows, fewer than {SMALL_TABLE_ROWS:,}: small batches, an epoch of "
        "about one pass over the train split, stronger dropout, an average of models trained "
        "apart, a faster wide part (the drafting rules).",
        "    ",
    )
    pairs = [f"{literal(k)}: {v!r}" for k, v in settings.items()]
    line = f"    hparams={{{', '.join(pairs)}}},"
    if len(line) > 100:  # as ruff splits it: an entry a line
        return [*lines, "    hparams={", *(f"        {pair}," for pair in pairs), "    },"]
    return [*lines, line]


def _head(name: str, table: Table, label: str, positive: str, used: set[str]) -> list[str]:
    """The module's docstring and imports, up to the opening of the declaration."""
    return [
        f'"""The {name} dataset: drafted by `make dataset` from {table.path.name}; review it.',
        "",
        f"The label is 1 where {label} == {positive!r}. Each column's kind was chosen by",
        "the drafting rules (drafting/rules.py), and the comment says why;",
        "change a kind by editing its line (modules/features.py has the kinds).",
        '"""',
        "",
        "from modules.features import (",
        *[f"    {kind}," for kind in sorted(used)],
        ")",
        "",
        "DATASET = DatasetDeclaration(",
    ]


def render(
    name: str,
    table: Table,
    label: str,
    positive: str,
    choices: Sequence[Choice],
    crosses: Crosses,
    trees: TreeGain | None,
    entity: Entity | None = None,
    period: Period | None = None,
    history: bool = False,
) -> str:
    """The declaration module's source, formatted as ruff formats it, with ``crosses``.

    With tree leaves when ``trees`` measured a gain that asks for them, the ``entity``
    the splits are keyed by and the ``period`` whose newest value is the test split;
    ``history``: ExampleGen adds the entity's history columns to each row.
    """
    groups = _groups(choices)
    leaves = trees.leaves() if trees else None
    body = [
        f"    name={literal(name)},",
        f"    label=Label({literal(label_name(label, positive))}, ({literal(label)},), "
        f"positive={literal(positive)}),",
        *_group_lines(groups),
        *_crosses(crosses),
        *_slice_lines(choices),
        *_unused_lines(choices),
        *_entity_lines(entity, period),
        *_period_lines(period),
        *(_history_lines() if history else []),
        "    # The best single column's AUC, rounded down: the model must do better.",
        f"    min_auc={min_auc_of(choices)},",
        *(_tree_lines(trees) if leaves else []),
        *_settings_lines(table.rows),
    ]
    head = _head(name, table, label, positive, _imports(groups, choices, crosses, bool(leaves)))
    return "\n".join([*head, *body, ")"]) + "\n"
