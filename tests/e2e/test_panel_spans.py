"""A panel landing span by span, learned by the cron line: the entity's splits hold across spans.

People observed year after year, two years a span, drafted with the person as its entity
(the new-entity question: no test period). Each span lands and the documented cron line
runs (``--span latest --window 2``, TFX's cache on), so the last runs read a window of two
spans. In the Examples each run's ExampleGen wrote: no person of the run's validation or
test split has a row in its train split, from either span of the window, and a row of a
span keeps its split when the window moves on (no held-out row of an older span joins
train).
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
    """The Examples folder of each cron firing's run, as its span landed, oldest first."""
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
    for span in range(1, YEARS // YEARS_PER_SPAN + 1):
        first = 2015 + (span - 1) * YEARS_PER_SPAN
        _land(root, span, header, [r for r in rows if first <= int(r[year]) < first + 2])
        fired = run_in(
            project, "local_runner.py", "--dataset", "panel", "--data-root", str(root),
            "--span", "latest", "--window", "2", "--output-dir", str(out),
            "--train-steps", TEST_TRAIN_STEPS,
        )  # fmt: skip
        assert fired.returncode == 0, fired.stdout + fired.stderr
    examples = out / "pipeline" / node_ids.EXAMPLE_GEN / "examples"
    return sorted(examples.iterdir(), key=lambda p: int(p.name))


def test_no_held_out_person_has_a_row_in_train_from_any_span_of_the_window(runs):
    assert len(runs) == YEARS // YEARS_PER_SPAN
    for examples in runs:
        train = {person for person, _ in _rows(examples, TRAIN)}
        held_out = {p for split in (VALIDATION, TEST) for p, _ in _rows(examples, split)}
        assert train and held_out and not train & held_out, examples
    # The last runs trained on two spans: four years of the people they trained on.
    ages = {}
    for person, age in _rows(runs[-1], TRAIN):
        ages.setdefault(person, set()).add(age)
    assert max(len(a) for a in ages.values()) == 2 * YEARS_PER_SPAN
    assert len(ages) < PEOPLE


def test_a_row_keeps_its_split_as_the_window_moves_on(runs):
    for before, after in zip(runs, runs[1:], strict=False):
        was, now = _splits(before), _splits(after)
        both = was.keys() & now.keys()  # rows of the span both windows hold
        # That span's train rows: about three fifths of its people's rows.
        assert len(both) > 0.4 * PEOPLE * YEARS_PER_SPAN, (before, after)
        moved = {row: (was[row], now[row]) for row in both if was[row] != now[row]}
        assert not moved, moved
