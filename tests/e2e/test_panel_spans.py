"""A panel landing span by span, learned by the cron line: the entity's splits hold across spans.

People observed year after year, two years a span, drafted with the person as its entity
(the new-entity question: no test period). Spans land one by one and the documented cron
line (``--span latest --window 2``, TFX's cache on) runs once two have landed, then on
each later one, so every run reads a full window: spans 1 and 2, then 2 and 3 (span 2 the
newest of the one, the older of the other). In the Examples each run's ExampleGen wrote:
no person of the run's validation or test split has a row in its train split, from either
span of the window, and a row of a span keeps its split when the window moves on (no
held-out row of an older span joins train). A window not yet full, and a split kept as a
window grows, are ExampleGen's own tests (tests/components/example_gen).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import tensorflow as tf
from panel_table import PEOPLE, YEARS, panel
from project_copy import copy_project, run_in
from run_commands import TEST_TRAIN_STEPS

from data_layout.spans import SUCCESS_MARKER
from data_layout.splits import TEST, TRAIN, VALIDATION
from pipeline_def import node_ids

pytestmark = pytest.mark.slow
YEARS_PER_SPAN = 2
SPANS = YEARS // YEARS_PER_SPAN
WINDOW = 2  # the cron line's --window; it first fires when that many spans have landed
PERSON = "person nr"


def _rows(examples: Path, split: str) -> list[tuple[str, int]]:
    """Each row of ``split`` in an Examples folder as (person, age): a row's identity here."""
    files = [str(p) for p in (examples / f"Split-{split}").iterdir()]
    rows = []
    for record in tf.data.TFRecordDataset(files, compression_type="GZIP"):
        feature = tf.train.Example.FromString(record.numpy()).features.feature
        person = feature[PERSON].bytes_list.value[0].decode()
        rows.append((person, feature["age"].int64_list.value[0]))
    return rows


def _splits(examples: Path) -> dict[tuple[str, int], str]:
    """The split of each row of an Examples folder."""
    return {row: split for split in (TRAIN, VALIDATION, TEST) for row in _rows(examples, split)}


def _land(root: Path, span: int, header: list[str], rows: list[list[str]]) -> None:
    """Span folder ``span-<span>/`` written as a batch job writes it, its marker last."""
    folder = root / f"span-{span}"
    folder.mkdir(parents=True)
    with (folder / "part-00000.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    (folder / SUCCESS_MARKER).touch()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """The Examples folder of each cron firing's run, oldest first: one per span landed
    from the ``WINDOW``-th on."""
    tmp = tmp_path_factory.mktemp("panel-spans")
    project = copy_project(tmp / "project")
    table = panel(tmp / "panel.csv")
    drafted = run_in(
        project, "-m", "pipeline_ops.cli.draft_dataset", "panel", str(table), "left", "yes",
        "--no-test-period",
    )  # fmt: skip
    assert drafted.returncode == 0, drafted.stderr
    with table.open(newline="") as f:
        header, *rows = list(csv.reader(f))
    year = header.index("year")
    root, out = tmp / "arriving", tmp / "out"
    for span in range(1, SPANS + 1):
        first = 2015 + (span - 1) * YEARS_PER_SPAN
        _land(root, span, header, [r for r in rows if first <= int(r[year]) < first + 2])
        if span < WINDOW:
            # A firing on fewer spans than the window reads no older span: a run spared.
            continue
        fired = run_in(
            project, "local_runner.py", "--dataset", "panel", "--data-root", str(root),
            "--span", "latest", "--window", str(WINDOW), "--output-dir", str(out),
            "--train-steps", TEST_TRAIN_STEPS,
        )  # fmt: skip
        assert fired.returncode == 0, fired.stdout + fired.stderr
    examples = out / "pipeline" / node_ids.EXAMPLE_GEN / "examples"
    return sorted(examples.iterdir(), key=lambda p: int(p.name))


def test_no_held_out_person_has_a_row_in_train_from_any_span_of_the_window(runs):
    assert len(runs) == SPANS - WINDOW + 1
    for examples in runs:
        train = {person for person, _ in _rows(examples, TRAIN)}
        held_out = {p for split in (VALIDATION, TEST) for p, _ in _rows(examples, split)}
        assert train and held_out and not train & held_out, examples
        # Each run trained on two spans: four years of the people it trained on, so the
        # older span was read and its rows kept apart too.
        ages = {}
        for person, age in _rows(examples, TRAIN):
            ages.setdefault(person, set()).add(age)
        assert max(len(a) for a in ages.values()) == WINDOW * YEARS_PER_SPAN, examples
        assert len(ages) < PEOPLE, examples


def test_a_row_keeps_its_split_as_the_window_moves_on(runs):
    for before, after in zip(runs, runs[1:], strict=False):
        was, now = _splits(before), _splits(after)
        both = was.keys() & now.keys()  # rows of the span both windows hold
        # That span's train rows: about three fifths of its people's rows.
        assert len(both) > 0.4 * PEOPLE * YEARS_PER_SPAN, (before, after)
        moved = {row: (was[row], now[row]) for row in both if was[row] != now[row]}
        assert not moved, moved
