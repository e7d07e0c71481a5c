"""Shared fixtures: small slices of the shipped data, Transform run for real, a model exported."""

from __future__ import annotations

from startup import process

# The test process, as every process of the product, chooses Keras 2 before TensorFlow loads.
process.prepare()

# ruff: noqa: E402 - the imports below come after that choice

import csv
import importlib
import itertools
import math
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from run_commands import free_port, runner_command
from shared_once import shared_folder

from datasets.taxi import DATASET as TAXI
from modules import features
from pipeline_def.project_paths import sample_csv

# TensorFlow, Transform and the model code load where a fixture needs them: a test process
# that needs none starts in a second (tests/test_pytest_setup.py starts several).
if TYPE_CHECKING:
    import tensorflow as tf
    import tensorflow_transform as tft

    from serving.sample import ScoredSample

SHIPPED_CSV = sample_csv("taxi")
RunPipeline = Callable[..., subprocess.CompletedProcess]


def write_head(rows: int, folder: Path) -> Path:
    """Write the header and the first ``rows`` rows of the shipped CSV into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "taxi.csv"
    with SHIPPED_CSV.open(newline="") as src, target.open("w", newline="") as dst:
        for i, line in enumerate(src):
            if i > rows:
                break
            dst.write(line)
    return target


def save_scaler(folder: Path, weight: float) -> str:
    """Save a tiny SavedModel whose ``f(x)`` is ``x * weight`` at ``folder``; its path."""
    import tensorflow as tf

    module = tf.Module()
    module.w = tf.Variable(weight)
    module.f = tf.function(lambda x: x * module.w, input_signature=[tf.TensorSpec([], tf.float32)])
    tf.saved_model.save(module, str(folder))
    return str(folder)


@pytest.fixture(scope="session")
def sample_rows() -> list[dict[str, str]]:
    """The first 400 rows of the shipped data, as CSV strings by column."""
    with SHIPPED_CSV.open(newline="") as f:
        reader = csv.DictReader(f)
        return list(itertools.islice(reader, 400))


@pytest.fixture(scope="session")
def small_data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data root holding the first 5,000 rows of the shipped data."""
    root = tmp_path_factory.mktemp("data")
    write_head(5000, root)
    return root


def _kind(values: list[str]) -> tf.dtypes.DType:
    """The type CsvExampleGen infers for a column: int, else float, else string."""
    import tensorflow as tf

    present = [v for v in values if v != ""]
    for dtype, parse in ((tf.int64, int), (tf.float32, float)):
        try:
            [parse(v) for v in present]
        except ValueError:
            continue
        return dtype
    return tf.string


def _instance(row: dict[str, str], spec: dict) -> dict[str, list]:
    import tensorflow as tf

    parse = {tf.int64: int, tf.float32: float, tf.string: str}
    return {
        name: [parse[f.dtype](row[name])] if row[name] != "" else [] for name, f in spec.items()
    }


@dataclass
class TransformRun:
    """Rows through a real tf.Transform analysis, and what it wrote."""

    raw: list[dict[str, str]]  # the CSV rows
    instances: list[dict[str, list]]  # the rows as fed to Transform
    rows: list[dict]  # the transformed rows
    spec: dict  # the raw feature spec (every column optional, as in the pipeline)
    output: tft.TFTransformOutput
    vocab_sizes: dict[str, int]
    nan_row: int = 0  # this row's fare is NaN: it must count as missing


@pytest.fixture(scope="session")
def transformed(sample_rows, tmp_path_factory) -> TransformRun:
    """The sample rows through AnalyzeAndTransformDataset(preprocessing_fn), in process."""
    import tensorflow as tf
    from transform_run import analyze_and_write

    from modules.preprocessing import preprocessing_fn

    spec = {c: tf.io.VarLenFeature(_kind([r[c] for r in sample_rows])) for c in sample_rows[0]}
    instances = [_instance(row, spec) for row in sample_rows]
    instances[0]["fare"] = [math.nan]
    rows, _, output = analyze_and_write(preprocessing_fn, instances, spec, tmp_path_factory)
    vocab_sizes = {
        v.name: output.vocabulary_size_by_name(features.vocabulary_file(v.name))
        for v in TAXI.vocabularies
    }
    return TransformRun(sample_rows, instances, rows, spec, output, vocab_sizes)


def _run_local_runner(
    data_root: Path, output_dir: Path, *extra: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        runner_command(data_root, output_dir, *extra),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="session")
def run_pipeline() -> RunPipeline:
    """Runs ``local_runner.py`` in a subprocess: (data root, output dir, *more flags), 300 steps."""
    return _run_local_runner


@pytest.fixture(scope="session")
def first_run(small_data_root, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """One real pipeline run on the small data: (output dir, the finished process)."""
    output_dir = tmp_path_factory.mktemp("e2e")
    result = _run_local_runner(small_data_root, output_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    return output_dir, result


@pytest.fixture(scope="session")
def failed_run(
    sample_rows, tmp_path_factory, run_pipeline
) -> tuple[Path, subprocess.CompletedProcess]:
    """A real run on data without the fare column, stopped by the validator: (output, process).

    Each step it runs is profiled into ``profile/`` beside the output dir.
    """
    root = tmp_path_factory.mktemp("failed")
    (root / "data").mkdir()
    with (root / "data" / "taxi.csv").open("w", newline="") as f:
        writer = csv.DictWriter(
            f, [c for c in sample_rows[0] if c != "fare"], extrasaction="ignore"
        )
        writer.writeheader()
        writer.writerows(sample_rows)
    return root / "out", run_pipeline(
        root / "data", root / "out", "--profile", str(root / "profile")
    )


@pytest.fixture(scope="session")
def mysql_server(tmp_path_factory) -> Iterator[str]:
    """A throwaway MariaDB server on 127.0.0.1; yields its mysql:// metadata URI.

    Uses Debian's mariadb-server (installed by ``make system-deps``); skips, saying
    so, where the package is missing.
    """
    server = shutil.which("mariadbd") or (
        Path("/usr/sbin/mariadbd") if Path("/usr/sbin/mariadbd").exists() else None
    )
    install = shutil.which("mariadb-install-db")
    if not (server and install):
        pytest.skip("Debian's mariadb-server is not installed (make system-deps installs it)")
    data = tmp_path_factory.mktemp("mariadb")
    subprocess.run(
        [install, "--no-defaults", f"--datadir={data}", "--auth-root-authentication-method=normal",
         "--skip-test-db"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    port = free_port()
    process = subprocess.Popen(
        [str(server), "--no-defaults", f"--datadir={data}", f"--port={port}",
         "--bind-address=127.0.0.1", f"--socket={data}/sock", "--user=root",
         "--skip-grant-tables", SNAPSHOT_ISOLATION_OFF],
        stdout=subprocess.DEVNULL, stderr=(data / "server.log").open("w"),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"MariaDB did not start: {(data / 'server.log').read_text()[-2000:]}")
        time.sleep(0.2)
    yield f"mysql://root@127.0.0.1:{port}/mlmd"
    process.terminate()
    process.wait(timeout=60)


# What docs/how-to/shared-metadata-store.md asks of a MariaDB 11.6 or newer (Debian 13's
# 11.8): ml-metadata's locking reads abort under its snapshot isolation while another run
# writes. "loose-": MariaDB 10.11 (Debian 12's) before 10.11.8 has no such option.
SNAPSHOT_ISOLATION_OFF = "--loose-innodb-snapshot-isolation=OFF"


def _serving_listing(serving: Path) -> dict[str, list[str]]:
    return {v.name: sorted(p.name for p in v.rglob("*")) for v in sorted(serving.iterdir())}


@pytest.fixture(scope="session")
def regression(first_run, small_data_root, tmp_path_factory) -> tuple[Path, dict, dict]:
    """A copy of the first run's store and serving dir, then a run that hardly trains.

    Returns (output dir, serving listing before, serving listing after).
    """
    source, _ = first_run
    output_dir = tmp_path_factory.mktemp("regression") / "out"
    shutil.copytree(source, output_dir)
    before = _serving_listing(output_dir / "serving")
    # Learning rates of almost zero: the candidate stays close to its random start.
    frozen = ("--hparam", "wide_learning_rate=1e-9", "--hparam", "deep_learning_rate=1e-9")
    result = _run_local_runner(small_data_root, output_dir, *frozen)
    assert result.returncode == 0, result.stdout + result.stderr
    return output_dir, before, _serving_listing(output_dir / "serving")


RECORDED_RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"


@dataclass(frozen=True)
class RecordedRuns:
    """Five real runs' store and read-side artifacts (tests/fixtures/make_runs.py)."""

    output_dir: Path
    good: str  # blessed on the absolute bound (nothing served), pushed
    rerun: str  # the same data: compared with the served model, already serving
    worse: str  # a model that hardly trained: not blessed against the served one
    broken: str  # text in a numeric column: the ExampleValidator stopped it
    # Compared with the served model, one slice's train labels shuffled: that slice loses
    # AUC (within its noise on the recorded rows), and the run is blessed.
    slice_regression: str


@pytest.fixture(scope="session")
def recorded_runs(tmp_path_factory) -> RecordedRuns:
    """The recorded runs, copied to a temporary output dir and their paths pointed there."""
    from fixtures.make_runs import ROOT, relocate

    from pipeline_def.metadata_stores import SqliteMetadata
    from pipeline_ops.metadata.runs import list_runs
    from pipeline_ops.metadata.store import open_store

    output_dir = tmp_path_factory.mktemp("recorded") / "out"
    shutil.copytree(RECORDED_RUNS, output_dir)
    relocate(output_dir / "metadata.sqlite", ROOT, str(output_dir))
    store = open_store(SqliteMetadata(str(output_dir / "metadata.sqlite")))
    newest_first = (run.run_id for run in list_runs(store, "taxi-wide-deep"))
    slice_regression, broken, worse, rerun, good = newest_first
    return RecordedRuns(output_dir, good, rerun, worse, broken, slice_regression)


def headless_chromium(window_size: str = "1400,1000", browser_log: bool = False) -> Any:
    """Debian's chromium driven by selenium, headless; skips the test when either is absent."""
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.skip("Debian's chromium and chromium-driver are not installed (make system-deps)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={window_size}"):
        options.add_argument(flag)
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(driver_path))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for the module's tests."""
    driver = headless_chromium()
    yield driver
    driver.quit()


# The files whose tests read the session's ``first_run`` (themselves or through a
# fixture such as ``regression``). ``make test`` gives them to one worker as one unit
# (``pytest_xdist_make_scheduler``): a session fixture runs once on each worker that
# asks for it, and a pipeline run is a minute or more; on one worker they also see
# the run in the one order the file list gives (test_e2e.py runs it again in place).
# tests/test_pytest_setup.py fails where a file reads it and is not listed.
FIRST_RUN_FILES = frozenset({
    "tests/e2e/test_bad_input.py", "tests/e2e/test_e2e.py", "tests/e2e/test_gate.py",
    "tests/e2e/test_score.py", "tests/e2e/test_serving_check.py",
    "tests/modules/test_distribution.py", "tests/modules/test_preemption.py",
    "tests/modules/test_training_watch.py",
})  # fmt: skip
_FIRST_RUN_UNIT = "the files of the first run"


@pytest.hookimpl(optionalhook=True)  # a run without xdist knows no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's loadfile, but with ``FIRST_RUN_FILES`` as one unit of work."""
    if config.getvalue("dist") != "loadfile":
        return None  # xdist's own choice
    from xdist.scheduler import LoadFileScheduling

    class FirstRunFilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return _FIRST_RUN_UNIT if path in FIRST_RUN_FILES else path

    return FirstRunFilesTogether(config, log)


# The fixtures that start heavy work (a real Transform, a model trained, a real browser):
# a test that needs one is slow, however quick its own call, since running it alone
# pays the fixture.
SLOW_FIXTURES = frozenset({"transformed", "served_model", "scored", "browser", "sized_browser"})


@pytest.hookimpl(tryfirst=True)  # before pytest deselects by mark (-m "not slow")
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests needing a slow fixture marked slow; the files holding slow tests first, then the rest.

    ``make test`` runs two workers that each take a file at a time (xdist's loadfile,
    without its reordering by test count, which would undo this order): a long file
    taken last runs alone at the end, while the other worker has nothing left. The
    many fast tests fill in behind the slow files instead.
    """
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


# A fast test's seconds (setup, call and teardown), for the summary of the slowest.
_FAST_SECONDS: dict[str, float] = {}
FAST_LIMIT_SECONDS = 1.0
# A busy machine slows every test: the slowest few are the ones worth reading.
FAST_OVER_SHOWN = 12


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up the seconds of each test that is not marked slow (on xdist's controller too)."""
    if "slow" not in report.keywords:
        _FAST_SECONDS[report.nodeid] = _FAST_SECONDS.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name the fast tests that took a second or more: mark them slow, or make them fast."""
    over = sorted(
        ((s, n) for n, s in _FAST_SECONDS.items() if s >= FAST_LIMIT_SECONDS), reverse=True
    )
    if over:
        terminalreporter.section(f"fast tests over {FAST_LIMIT_SECONDS:.0f} s (mark them slow)")
        for seconds, nodeid in over[:FAST_OVER_SHOWN]:
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")
        if len(over) > FAST_OVER_SHOWN:
            terminalreporter.write_line(f"and {len(over) - FAST_OVER_SHOWN} more")


# What the docs' lock adds beside the runtime (requirements/docs.in), which tests/docs
# imports: `make run` does not install it.
_DOCS_TOOLS = {"pytest_codeblocks": "pytest-codeblocks", "mkdocs": "mkdocs"}
_DOCS_TESTS = Path(__file__).resolve().parent / "docs"


def pytest_configure(config: pytest.Config) -> None:
    """One line naming what to run first, when tests/docs is asked for without its tools."""
    asked = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    if not any(_DOCS_TESTS.is_relative_to(a) or a.is_relative_to(_DOCS_TESTS) for a in asked):
        return
    for module, package in _DOCS_TOOLS.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            pytest.exit(
                f"tests/docs needs {package}, which `make run` does not install: "
                "run `make test-fast` (or `make docs`) once, which adds the docs' tools",
                returncode=pytest.ExitCode.USAGE_ERROR,
            )


@pytest.fixture(scope="session")
def served_model(transformed, tmp_path_factory) -> Path:
    """The SavedModel of a taxi model trained for one epoch on Transform's output."""
    from transform_run import fit_taxi

    from modules import export

    model, _ = fit_taxi(transformed, (8,), epochs=1)
    path = tmp_path_factory.mktemp("served") / "model"
    export.export(TAXI, model, transformed.output, str(path))
    return path


@pytest.fixture(scope="session")
def scored(transformed, served_model) -> ScoredSample:
    """The first rows as serialized examples, and the model's scores of them in process."""
    from transform_run import example_bytes

    from review.scored_rows import model_scores
    from serving.sample import SAMPLE_ROWS, ScoredSample

    columns = TAXI.raw_feature_columns()
    examples = [example_bytes(i, transformed.spec, columns) for i in transformed.instances]
    examples = examples[:SAMPLE_ROWS]
    scores = model_scores(str(served_model), examples, TAXI.prediction_key)
    return ScoredSample(tuple(examples), tuple(scores.tolist()), TAXI.prediction_key)


@pytest.fixture(scope="session")
def image_seed(tmp_path_factory) -> Callable[[Path], Path]:
    """Gives an output dir the image environment, installed once for the session.

    The Kubeflow harness reuses an image environment it finds in its output dir when
    it was installed from the same build context (its stamp comes with the links), and
    refreshes it otherwise (``scripts/install_image.sh``: what is installed stays, the
    project is installed again), as a user's second ``make kfp-local`` does. Each
    output dir gets hard links to one environment installed the first time it is asked
    for (90 s here): a refresh writes new files and never into a linked one.
    """
    from kubeflow.harness import image_env

    def install(folder: Path) -> None:
        image_env.install(folder / "env", folder / "install.log")

    installed = shared_folder(tmp_path_factory, "image-env", install) / "env"

    def seed(out: Path) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cp", "-al", str(installed), str(image_env.folder_in(out))], check=True)
        return out

    return seed
