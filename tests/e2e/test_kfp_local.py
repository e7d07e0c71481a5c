"""``make kfp-local`` for real: the compiled spec's tasks, run as KFP runs them, three times.

The data root holds span 0. The first run, with the ``span`` run-time parameter at its
default (``latest``, as a recurring run has it), reads span 0, has nothing serving and
is judged on the absolute bound; then the scoring package scores span 0 with the model
it pushed. The second, on span 0 again and given a fraction of
the train steps as a run-time parameter, reuses the cached schema step, trains a
weaker model (from scratch: the serving model learned this span) and is compared with
the model the first one pushed: above the absolute bound, but too far below the
serving model to be blessed. Then span 1 lands, and the third run, ``latest`` again,
reads it, starts from the first run's pushed model, read from the object store, and
replaces it. A run on
bad data stops at the validator, names the task and its log, and pushes nothing; a
scoring run of a span that is not there names its task and log.
"""

from __future__ import annotations

import csv
import importlib.metadata
import itertools
import json
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from conftest import SHIPPED_CSV
from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2

from pipeline_def import node_ids, stack
from pipeline_ops.session.summary import SUMMARY_FILE, RunSummary

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]
SERVING = Path("kfp-local/serving")  # the served models' keys in the store's mirror
# ExampleGen is never cached on Kubeflow (KFP skips the hook that fingerprints the
# files), so everything downstream of the data runs again; the schema step is reused.
CACHED_ON_SECOND_RUN = {node_ids.CURATED_SCHEMA}
SPAN_ROWS = 3000
SCORING = "taxi-wide-deep-scoring"


def _harness(data_root: Path, output_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kubeflow.harness", "--output-dir", str(output_dir),
         "--data-root", str(data_root), *extra],
        cwd=PROJECT, capture_output=True, text=True, timeout=1200, check=False,
    )  # fmt: skip


def _summary(output_dir: Path) -> dict:
    return json.loads((output_dir / SUMMARY_FILE).read_text())


def _task_lines(stdout: str) -> dict[str, str]:
    """The training run's task states (the lines before the scoring run's)."""
    found = {}
    for line in stdout.split(f"Pipeline {SCORING}:")[0].splitlines():
        match = re.fullmatch(r"  (\S+)\s+(ran|cached|failed)\s+[\d.]+ s", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def _served(output_dir: Path) -> list[str]:
    folder = output_dir / "bucket" / SERVING
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _land_span(root: Path, span: int, rows: int) -> None:
    """span-<span>/: the shipped sample's ``rows`` rows after the spans before it."""
    with SHIPPED_CSV.open(newline="") as src:
        reader = csv.DictReader(src)
        header = list(reader.fieldnames)
        table = list(itertools.islice(reader, span * rows, (span + 1) * rows))
    (root / f"span-{span}").mkdir(parents=True)
    with (root / f"span-{span}" / "taxi.csv").open("w", newline="") as dst:
        writer = csv.DictWriter(dst, header)
        writer.writeheader()
        writer.writerows(table)


def _without_fare(root: Path, rows: int) -> Path:
    """A flat data root of the shipped sample's first ``rows`` rows, its fare column dropped."""
    root.mkdir()
    with SHIPPED_CSV.open(newline="") as src:
        table = [row for _, row in zip(range(rows), csv.DictReader(src), strict=False)]
    with (root / "taxi.csv").open("w", newline="") as dst:
        writer = csv.DictWriter(dst, [c for c in table[0] if c != "fare"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(table)
    return root


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory, image_seed
) -> tuple[Path, subprocess.CompletedProcess, dict, subprocess.CompletedProcess, Path]:
    """The first two runs on one output dir: (dir, first, first's summary, second, data)."""
    data = tmp_path_factory.mktemp("kfp-data")
    _land_span(data, 0, SPAN_ROWS)
    out = image_seed(tmp_path_factory.mktemp("kfp-local"))
    first = _harness(data, out, "--train-steps", "200")
    assert first.returncode == 0, first.stdout + first.stderr
    first_summary = _summary(out)
    # A worse candidate for sure: two training steps. The bound is lowered so that
    # only the comparison with the served model, on the same test rows, fails.
    second = _harness(
        data, out, "--span", "0", "--train-steps", "2", "--min-auc", "0.3", "--only", "training"
    )
    assert second.returncode == 0, second.stdout + second.stderr
    return out, first, first_summary, second, data


@pytest.fixture(scope="module")
def next_span(runs) -> tuple[subprocess.CompletedProcess, dict, list[str]]:
    """Span 1 lands; a third run on the newest span: (process, summary, versions before)."""
    out, *_, data = runs
    before = _served(out)
    _land_span(data, 1, SPAN_ROWS)
    third = _harness(data, out, "--train-steps", "200", "--only", "training")
    assert third.returncode == 0, third.stdout + third.stderr
    return third, _summary(out), before


def test_the_image_has_no_command_whose_module_it_lacks(runs):
    # The runners and pipeline_ops stay out of the image: so do their commands.
    declared = importlib.metadata.distribution("wide-deep-tfx").entry_points
    commands = [e.name for e in declared if e.group == "console_scripts"]
    assert commands
    image_bin = runs[0] / f"image-env-{stack.name()}" / "bin"
    assert (image_bin / "python").exists()
    assert [name for name in commands if (image_bin / name).exists()] == []


def test_the_image_environment_is_reused_while_its_build_context_is_unchanged(runs):
    # image_seed gave the output dir an environment installed from this same context.
    # (Not next_span here: the tests before it read the second run's summary.)
    out, first, _, second, _ = runs
    line = f"Image environment {out / f'image-env-{stack.name()}'}: reused (its build context "
    for run in (first, second):
        assert line in run.stdout, run.stdout[:2000]


def test_the_first_run_runs_every_task_and_is_judged_on_the_bound(runs):
    out, first, summary, *_ = runs
    assert _task_lines(first.stdout) == dict.fromkeys(node_ids.NODE_IDS, "ran")
    assert summary["status"] == "succeeded" and summary["baseline"] is None
    assert summary["span"] == 0 and summary["warm_started_from"] is None
    assert summary["blessed"] is True and summary["already_serving"] is False
    assert 0.85 < summary["metrics"]["auc"] <= 1.0
    assert summary["pushed_model_path"].startswith("s3://mlpipeline/kfp-local/serving/")
    # The local runner's format, field for field.
    assert set(summary) == {f.name for f in fields(RunSummary)}
    # What the image's steps ran on: the image installs the same lock.
    assert summary["stack"]["tfx"] == importlib.metadata.version("tfx")
    assert summary["stack"]["libc"].startswith("glibc ")
    store = metadata_store.MetadataStore(_sqlite(out / "metadata.sqlite"))
    (run,) = store.get_contexts_by_type("system.PipelineRun")[:1]
    assert json.loads(run.custom_properties["stack"].string_value) == summary["stack"]
    assert set(summary["components"]) == set(node_ids.NODE_IDS)


def test_no_beam_step_builds_a_package_of_tfx_or_is_handed_its_program_path(runs):
    # With no Beam argument compiled in, TFX has nothing to ship to a remote runner.
    for step in ("CsvExampleGen", "StatisticsGen", "Transform", "Evaluator"):
        log = (runs[0] / "logs" / f"{step}.log").read_text()
        assert "Starting executor" in log
        assert "Attempting to infer TFX Python dependency" not in log
        assert "Discarding unparseable args" not in log


def test_the_second_run_reuses_the_cache_and_is_gated_by_the_model_served(runs):
    out, _, first_summary, second, _ = runs
    states = _task_lines(second.stdout)
    assert {t for t, s in states.items() if s == "cached"} == CACHED_ON_SECOND_RUN
    assert (
        states[node_ids.SERVING_BASELINE]
        == states[node_ids.TRAINER]
        == states[node_ids.PUSHER]
        == "ran"
    )
    summary = _summary(out)
    first_version = first_summary["pushed_model_path"].rsplit("/", 1)[1]
    assert summary["baseline"] == first_version
    assert f"NOT blessed against serving version {first_version}" in second.stdout
    # Above the (lowered) absolute bound, more than max_auc_drop below the model serving.
    assert 0.3 <= summary["metrics"]["auc"] < first_summary["metrics"]["auc"] - 0.01
    assert summary["blessed"] is False and summary["pushed_model_path"] is None
    assert summary["warm_start_note"] == "the serving model learned span 0 already"
    assert _served(out) == [first_version]


def test_the_next_span_starts_from_the_model_served_on_the_object_store(runs, next_span):
    out, _, first_summary, *_ = runs
    third, summary, before = next_span
    first_version = first_summary["pushed_model_path"].rsplit("/", 1)[1]
    assert before == [first_version]
    assert summary["span"] == 1 and summary["baseline"] == first_version
    assert summary["warm_started_from"] == first_version, summary["warm_start_note"]
    assert summary["blessed"] is True
    (pushed,) = set(_served(out)) - set(before)
    assert summary["pushed_model_path"].endswith(f"/{pushed}")


def test_the_served_model_keeps_its_training_statistics(runs):
    out, *_ = runs
    for version in _served(out):
        stats = out / "bucket" / SERVING / version / "assets.extra/training_statistics/Split-train"
        assert (stats / "FeatureStats.pb").stat().st_size > 1000


def _ui_artifacts(out: Path) -> list[tuple[str, str, dict[str, object]]]:
    """(type, URI, custom properties) of every artifact KFP's UI draws, as recorded."""
    store = metadata_store.MetadataStore(_sqlite(out / "metadata.sqlite"))
    found = []
    for type_name in ("system.HTML", "system.Metrics"):
        for artifact in store.get_artifacts_by_type(type_name):
            values = {k: getattr(v, v.WhichOneof("value")) for k, v in
                      artifact.custom_properties.items()}  # fmt: skip
            found.append((type_name, artifact.uri, values))
    return found


def _sqlite(path: Path) -> metadata_store_pb2.ConnectionConfig:
    config = metadata_store_pb2.ConnectionConfig()
    config.sqlite.filename_uri = str(path)
    config.sqlite.connection_mode = metadata_store_pb2.SqliteMetadataSourceConfig.READONLY
    return config


def test_the_review_and_its_headline_are_what_kfps_ui_draws(runs, next_span):
    out, *_ = runs
    drawn = _ui_artifacts(out)
    pages = [(uri, props) for kind, uri, props in drawn if kind == "system.HTML"]
    headlines = [props for kind, _, props in drawn if kind == "system.Metrics"]
    assert len(pages) == len(headlines) == 3  # one review per run that reached it
    # MetricsVisualizations.tsx draws only artifacts with a display_name.
    assert {p["display_name"] for _, p in pages} == {"report"}
    assert {p["display_name"] for p in headlines} == {"headline"}
    for uri, _ in pages:  # the HTML viewer reads the file at the URI itself
        page = (out / "bucket" / uri.removeprefix("s3://mlpipeline/")).read_text()
        assert page.startswith("<!DOCTYPE html>") and "taxi-wide-deep" in page
        # The run's id, as KFP's driver substitutes {{$.pipeline_job_uuid}} (resolve.go).
        assert re.search(r"run <b>run-\d{8}-\d{6}</b>", page), page[:600]
    assert sorted(h["blessed"] for h in headlines) == [0.0, 1.0, 1.0]
    assert all(0.0 < h["auc"] <= 1.0 for h in headlines)
    compared = [h for h in headlines if "serving_auc" in h]
    assert len(compared) == 2 and all(h["auc_change_low"] <= h["auc_change_high"] for h in compared)


def test_the_reports_say_what_the_blessings_say(runs, next_span):
    out, *_ = runs
    reports = [(out / "bucket" / uri.removeprefix("s3://mlpipeline/")).read_text()
               for kind, uri, _ in _ui_artifacts(out) if kind == "system.HTML"]  # fmt: skip
    verdicts = sorted("NOT BLESSED" in text for text in reports)
    assert verdicts == [False, False, True]  # the first and third runs', the gated second's
    (gated,) = [text for text in reports if "NOT BLESSED" in text]
    assert ">change<" in gated and ">FAIL<" in gated, "the failed change check is shown"


def test_a_task_that_fails_is_named_with_its_log_and_nothing_is_pushed(runs, next_span, tmp_path):
    out, *_ = runs
    before = _served(out)
    result = _harness(_without_fare(tmp_path / "bad", 2000), out)
    assert result.returncode == 1, result.stdout + result.stderr
    (error,) = result.stderr.strip().splitlines()
    log = out / "logs" / f"{node_ids.EXAMPLE_VALIDATOR}.log"
    assert error == f"error: {node_ids.EXAMPLE_VALIDATOR} failed (exit 1): see {log}"
    assert "fare: Column is completely missing" in log.read_text()
    states = _task_lines(result.stdout)
    assert states[node_ids.EXAMPLE_GEN] == "ran"  # new files under the same root: read again
    assert node_ids.PUSHER not in states
    summary = _summary(out)
    assert (
        summary["status"] == "failed" and summary["failed_component"] == node_ids.EXAMPLE_VALIDATOR
    )
    assert summary["pushed_model_path"] is None
    assert _served(out) == before


def _scoring_records(out: Path) -> list[dict[str, object]]:
    """The custom properties of each scoring run's skew artifact, with its URI."""
    store = metadata_store.MetadataStore(_sqlite(out / "metadata.sqlite"))
    return [
        {
            "uri": a.uri,
            **{k: getattr(v, v.WhichOneof("value")) for k, v in a.custom_properties.items()},
        }  # fmt: skip
        for a in store.get_artifacts_by_type("wide_deep.ScoringSkew")
    ]


def test_the_scoring_package_scores_the_span_with_the_model_the_first_run_pushed(runs, tmp_path):
    out, first, summary, _, data = runs
    version = summary["pushed_model_path"].rsplit("/", 1)[1]
    scoring = first.stdout.split(f"Pipeline {SCORING}:")[1]
    assert re.search(r"  ServingBaseline\s+ran .*\n  BatchScorer\s+ran ", scoring)
    assert f"scored {SPAN_ROWS:,} rows of span 0 with serving version {version}" in scoring
    assert "no feature over its threshold" in scoring  # the rows it learned from
    (record,) = _scoring_records(out)
    assert (record["span"], record["serving_version"]) == (0, version)
    assert (record["scored_rows"], record["over"]) == (SPAN_ROWS, "")
    # The scores on the object store are the pushed model's, row for row, as
    # wide-deep-score computes them on this machine.
    (scores,) = (out / "bucket" / "kfp-local" / "root" / "BatchScorer").glob("*/scores/scores.csv")
    model = out / "bucket" / SERVING / version
    local = tmp_path / "local.csv"
    command = [str(Path(sys.executable).parent / "wide-deep-score"), str(data / "span-0"),
               str(local), "--model", str(model), "--output-dir", str(tmp_path)]  # fmt: skip
    scored_here = subprocess.run(command, capture_output=True, text=True, check=False)
    assert scored_here.returncode == 0, scored_here.stderr
    with scores.open() as a, local.open() as b:
        on_kubeflow, here = list(csv.DictReader(a)), list(csv.DictReader(b))
    assert len(on_kubeflow) == len(here) == SPAN_ROWS
    key = "tip_probability"
    differences = [
        abs(float(x[key]) - float(y[key])) for x, y in zip(on_kubeflow, here, strict=True)
    ]
    assert max(differences) < 1e-6


def test_a_scoring_run_of_rows_without_a_feature_names_the_column_file_task_and_log(
    runs, next_span, tmp_path
):
    out, *_ = runs
    before = _scoring_records(out)
    result = _harness(_without_fare(tmp_path / "bad", 100), out, "--only", "scoring")
    assert result.returncode == 1, result.stdout + result.stderr
    log = out / "logs" / "scoring" / f"{node_ids.BATCH_SCORER}.log"
    (error,) = result.stderr.strip().splitlines()
    assert error == f"error: {node_ids.BATCH_SCORER} failed (exit 1): see {log}"
    # The file by its name on the object store, not the step's local copy of it.
    assert "s3://mlpipeline/kfp-local/data/taxi.csv: no column 'fare'" in log.read_text()
    assert f"FAILED in {node_ids.BATCH_SCORER}" in result.stdout
    assert _scoring_records(out) == before  # nothing recorded as scored
