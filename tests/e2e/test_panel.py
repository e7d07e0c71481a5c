"""A table of repeated entities, for real: drafted, split by its entity, and the leak measured.

Customers observed several times, each with a planted effect of their own: a model
that has seen a customer's other rows knows the effect. Drafted as a user drafts it,
the customer is found, keys the splits and is no feature; drafted with --no-entity,
the rows are split one by one and the id is a (hashed) feature, and the test split
then asks how well a model recognizes customers it trained on. A panel with a period,
drafted likewise, is split by the compiled Kubeflow spec's own ExampleGen task
(``kubeflow.harness``): its test split is the newest year there too, and its validation
split the year before.
"""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path

import pytest
import tensorflow as tf
import yaml
from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2
from panel_table import PEOPLE, YEARS, panel
from project_copy import copy_project, run_in
from run_commands import TEST_TRAIN_STEPS

from data_layout.splits import TEST, TRAIN, VALIDATION
from pipeline_def import node_ids, stack

CUSTOMERS, VISITS = 400, 6


def _leaky_table(path: Path) -> Path:
    """Customers' visits: a strong effect per customer, weak signal in the other columns."""
    rng = random.Random(5)
    rows = []
    for customer in range(CUSTOMERS):
        effect, region = rng.gauss(0, 2.5), rng.choice(["north", "south", "east", "west"])
        for _ in range(VISITS):
            spend = rng.gauss(100, 30)
            z = effect + 0.01 * (spend - 100) + (0.3 if region == "north" else 0) - 1
            churned = rng.random() < 1 / (1 + math.exp(-z))
            rows.append([f"C{customer:05d}", region, round(spend, 2), rng.randint(0, 9),
                         "yes" if churned else "no"])  # fmt: skip
    rng.shuffle(rows)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["customer", "region", "spend", "calls", "churned"])
        writer.writerows(rows)
    return path


def _rows_by_split(examples: Path) -> dict[str, list[tf.train.Example]]:
    """The examples of each split of an Examples artifact's folder, read from its TFRecords."""
    found = {}
    for split in (TRAIN, VALIDATION, TEST):
        files = [str(p) for p in (examples / f"Split-{split}").iterdir()]
        records = tf.data.TFRecordDataset(files, compression_type="GZIP")
        found[split] = [tf.train.Example.FromString(r.numpy()) for r in records]
    return found


def _values(examples: list[tf.train.Example], column: str) -> set:
    """The values of ``column`` in ``examples`` (text decoded)."""
    features = [e.features.feature[column] for e in examples]
    return {f.int64_list.value[0] if f.int64_list.value else f.bytes_list.value[0].decode()
            for f in features}  # fmt: skip


def _customers_by_split(out: Path) -> dict[str, set[str]]:
    """The customers each split of the local run's Examples holds."""
    (examples,) = (out / "pipeline" / node_ids.EXAMPLE_GEN / "examples").iterdir()
    return {split: _values(rows, "customer") for split, rows in _rows_by_split(examples).items()}


def _draft_and_run(
    project: Path, table: Path, name: str, out: Path, *flags: str, label: str = "churned"
) -> tuple:
    """Draft ``table`` as ``name`` (its ``label`` positive at "yes") and run the pipeline on
    it: the draft's lines, what the run printed, its summary."""
    drafted = run_in(
        project, "-m", "pipeline_ops.cli.draft_dataset", name, str(table), label, "yes", *flags
    )
    assert drafted.returncode == 0, drafted.stderr
    run = run_in(
        project, "local_runner.py", "--dataset", name, "--output-dir", str(out),
        "--train-steps", TEST_TRAIN_STEPS,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    return (
        drafted.stdout.splitlines(),
        run.stdout,
        json.loads((out / "run_summary.json").read_text()),
    )


@pytest.mark.slow
def test_the_entity_keeps_each_customer_in_one_split_and_a_row_split_flatters(tmp_path):
    project = copy_project(tmp_path / "project")
    table = _leaky_table(tmp_path / "visits.csv")

    lines, printed, grouped = _draft_and_run(project, table, "visits", tmp_path / "grouped")
    assert (
        f"  splits keyed by customer: {CUSTOMERS} values over {CUSTOMERS * VISITS} rows, "
        f"{VISITS:.1f} each; its name says it identifies" in lines
    )
    assert lines[1].split()[:2] == ["customer", "unused"], lines
    assert grouped["split_keyed_by"] == "customer" and grouped["test_period"] is None
    assert "  splits keyed by customer: each of its values in one split" in printed
    split = _customers_by_split(tmp_path / "grouped")
    assert all(split.values()), split
    assert not split[TRAIN] & split[VALIDATION]
    assert not split[TRAIN] & split[TEST] and not split[VALIDATION] & split[TEST]
    assert len(split[TRAIN] | split[VALIDATION] | split[TEST]) == CUSTOMERS

    # The next data comes without the entity's column: the run stops at ExampleGen,
    # naming the file and the column, and the serving model stays.
    data = project / "data" / "visits" / "visits.csv"
    with data.open(newline="") as f:
        kept = [row[1:] for row in csv.reader(f)]
    with data.open("w", newline="") as f:
        csv.writer(f).writerows(kept)
    serving = sorted(p.name for p in (tmp_path / "grouped" / "serving").iterdir())
    again = run_in(
        project, "local_runner.py", "--dataset", "visits", "--output-dir",
        str(tmp_path / "grouped"), "--train-steps", TEST_TRAIN_STEPS,
    )  # fmt: skip
    assert again.returncode == 1, again.stdout + again.stderr
    assert f"{data}: no column 'customer', the entity the splits are keyed by" in again.stderr
    assert sorted(p.name for p in (tmp_path / "grouped" / "serving").iterdir()) == serving
    failed = json.loads((tmp_path / "grouped" / "run_summary.json").read_text())
    assert failed["status"] == "failed" and failed["failed_component"] == node_ids.EXAMPLE_GEN

    lines, _, by_row = _draft_and_run(
        project, table, "visits_rows", tmp_path / "rows", "--no-entity"
    )
    assert lines[1].split()[:2] == ["customer", "hashed"], lines
    assert by_row["split_keyed_by"] is None
    leaked = _customers_by_split(tmp_path / "rows")
    assert len(leaked[TRAIN] & leaked[TEST]) > 0.8 * len(leaked[TEST])
    # The row split's test rows are of customers the model trained on: it scores higher
    # there than the grouped model does on customers it never saw.
    assert by_row["metrics"]["auc"] > grouped["metrics"]["auc"] + 0.03, (by_row, grouped)


def _compiled_tasks(out: Path) -> dict:
    """The tasks of the training package the harness compiled into ``out``."""
    spec = next(yaml.safe_load_all((out / "pipeline.yaml").read_text()))
    return spec["root"]["dag"]["tasks"]


def _kfp_examples(out: Path) -> Path:
    """The folder, in the harness's bucket, of the Examples its ML-Metadata recorded."""
    config = metadata_store_pb2.ConnectionConfig()
    config.sqlite.filename_uri = str(out / "metadata.sqlite")
    (examples,) = metadata_store.MetadataStore(config).get_artifacts_by_type("tfx.Examples")
    return out / "bucket" / examples.uri.removeprefix("s3://mlpipeline/")


@pytest.mark.slow
def test_on_kubeflow_a_panel_is_tested_on_the_newest_year_and_validated_on_the_one_before(
    tmp_path, image_seed
):
    project = copy_project(tmp_path / "project")
    table = panel(tmp_path / "panel.csv")
    drafted = run_in(
        project, "-m", "pipeline_ops.cli.draft_dataset", "panel", str(table), "left", "yes"
    )
    assert drafted.returncode == 0, drafted.stderr
    newest = 2015 + YEARS - 1
    assert f"  test split: the newest year, {newest} " in drafted.stdout

    out = image_seed(tmp_path / "kfp")
    # The compiled ExampleGen task alone: the splits are its own. The steps after it read
    # its Examples as the taxi's do (test_kfp_local) and as a panel's do locally (above);
    # here they would cost minutes.
    run = run_in(
        project, "-m", "kubeflow.harness", "--dataset", "panel", "--output-dir", str(out),
        "--until", node_ids.EXAMPLE_GEN,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert f" stopped after {node_ids.EXAMPLE_GEN}, as asked, in " in run.stdout
    assert "blessed" not in run.stdout and "pushed" not in run.stdout

    # The drafted dataset is in the build context: the seeded environment is refreshed.
    assert f"Image environment {out / f'image-env-{stack.name()}'}: installed\n" in run.stdout
    assert "Pipeline panel-wide-deep: run " in run.stdout
    summary = json.loads((out / "run_summary.json").read_text())
    assert summary["status"] == "stopped" and summary["pushed_model_path"] is None
    # One of the package's tasks ran: the one asked for, which needs no other.
    assert list(summary["components"]) == [node_ids.EXAMPLE_GEN], summary["components"]
    assert len(_compiled_tasks(out)) > 10
    # A period splits alone: the person keys nothing.
    assert summary["split_keyed_by"] is None, summary
    assert summary["test_period"] == f"year = {newest}", summary
    assert summary["validation_period"] == f"year = {newest - 1}", summary
    # The splits the compiled ExampleGen task wrote: the newest year is the test split,
    # the year before it validation, every person in each; the older years train.
    split = _rows_by_split(_kfp_examples(out))
    assert _values(split[TEST], "year") == {newest}
    assert _values(split[VALIDATION], "year") == {newest - 1}
    assert max(_values(split[TRAIN], "year")) == newest - 2
    for rows in split.values():
        assert len(_values(rows, "person nr")) == PEOPLE


def _test_split_scores(out: Path) -> dict[tuple[str, int], float]:
    """The pushed model's scores of the run's test split, as ExampleGen wrote its rows."""
    (examples,) = (out / "pipeline" / node_ids.EXAMPLE_GEN / "examples").iterdir()
    rows = _rows_by_split(examples)[TEST]
    (version,) = (out / "serving").iterdir()
    model = tf.saved_model.load(str(version))
    serve = model.signatures["serving_default"]
    examples = tf.constant([e.SerializeToString() for e in rows])
    probabilities = serve(examples=examples)["probability"].numpy().reshape(-1)
    return {
        (e.features.feature["person nr"].bytes_list.value[0].decode(),
         e.features.feature["year"].int64_list.value[0]): float(p)
        for e, p in zip(rows, probabilities, strict=True)
    }  # fmt: skip


@pytest.mark.slow
def test_a_panel_learns_each_person_s_past_and_scores_the_next_year_from_it(tmp_path):
    project = copy_project(tmp_path / "project")
    table = panel(tmp_path / "panel.csv")
    out = tmp_path / "out"
    _draft_and_run(project, table, "panel", out, label="left")
    assert "entity_history=True" in (project / "datasets" / "panel" / "__init__.py").read_text()
    newest = 2015 + YEARS - 1
    # The newest year's rows scored from the data file, their history read from the data
    # root by wide-deep-score: the scores the model gave the rows ExampleGen wrote.
    with table.open(newline="") as f:
        newest_rows = [r for r in csv.DictReader(f) if r["year"] == str(newest)]
    asked = tmp_path / "newest.csv"
    with asked.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["person nr", "year", "age", "income"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(newest_rows)
    scored = run_in(
        project, "-m", "pipeline_ops.cli.score", str(asked), str(tmp_path / "scores.csv"),
        "--dataset", "panel", "--output-dir", str(out),
    )  # fmt: skip
    assert scored.returncode == 0, scored.stdout + scored.stderr
    with (tmp_path / "scores.csv").open(newline="") as f:
        got = {(r["person nr"], newest): float(r["probability"]) for r in csv.DictReader(f)}
    wanted = _test_split_scores(out)
    assert got.keys() == wanted.keys() and len(got) == PEOPLE
    assert max(abs(got[k] - wanted[k]) for k in got) < 1e-5
    # Without the history the rows are scored otherwise: it is read, not ignored.
    empty = tmp_path / "no-history"
    empty.mkdir()
    (empty / "none.csv").write_text("person nr,year,age,income,left\n")
    blind = run_in(
        project, "-m", "pipeline_ops.cli.score", str(asked), str(tmp_path / "blind.csv"),
        "--dataset", "panel", "--output-dir", str(out), "--history", str(empty / "none.csv"),
    )  # fmt: skip
    assert blind.returncode == 0, blind.stdout + blind.stderr
    with (tmp_path / "blind.csv").open(newline="") as f:
        other = {(r["person nr"], newest): float(r["probability"]) for r in csv.DictReader(f)}
    assert max(abs(other[k] - wanted[k]) for k in other) > 1e-3
