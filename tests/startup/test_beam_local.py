"""Beam's local runs: the runner a pipeline gets by default, and TFX's package for workers."""

from __future__ import annotations

import logging
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to
from tfx.components.statistics_gen.executor import Executor as StatisticsGenExecutor
from tfx.utils import dependency_utils

from startup import beam_local


def _executor_args(args: list[str], tmp_path: Path) -> list[str]:
    """The Beam arguments a Beam step of TFX (StatisticsGen's) runs with, given ``args``."""
    context = StatisticsGenExecutor.Context(beam_pipeline_args=args, tmp_dir=str(tmp_path))
    return StatisticsGenExecutor(context)._beam_pipeline_args


def test_a_pipeline_naming_no_runner_runs_on_the_direct_runner_without_prism(caplog):
    caplog.set_level(logging.INFO)
    with beam.Pipeline() as pipeline:
        doubled = pipeline | beam.Create([1, 2, 3]) | beam.Map(lambda x: 2 * x)
        assert_that(doubled, equal_to([2, 4, 6]))

    said = [r.getMessage() for r in caplog.records]
    assert any("runner: startup.beam_local.local_runner" in m for m in said), said
    # Beam 2.77 (the current stack) logs "Running pipeline with PrismRunner." when it
    # tries Prism, and names the download it then attempts.
    assert not [m for m in said if "prism" in m.lower()]


def test_a_named_runner_is_left_as_named():
    pipeline = beam.Pipeline(argv=["--runner=BundleBasedDirectRunner"])
    assert type(pipeline.runner).__name__ == "BundleBasedDirectRunner"


@pytest.mark.parametrize(
    ("args", "local"),
    [
        ([], True),
        (["--direct_running_mode=multi_processing", "--direct_num_workers=2"], True),
        (["--runner=DirectRunner"], True),
        (["--runner", "FnApiRunner"], True),
        (["--runner=direct"], True),
        (["--runner=prism"], True),
        (["--runner=PortableRunner", "--environment_type=LOOPBACK"], True),
        (["--runner=PortableRunner", "--job_endpoint=localhost:8099"], False),
        (["--runner=PrismRunner", "--environment_type=loopback"], True),
        (["--runner=DirectRunner", "--environment_type=EMBEDDED"], True),
        (["--environment_type=PROCESS", "--environment_config={}"], False),
        (["--runner=startup.beam_local.local_runner"], True),
        (["--runner=DataflowRunner", "--project=p"], False),
        (["--runner=apache_beam.runners.portability.flink_runner.FlinkRunner"], False),
        (["--runner=SparkRunner"], False),
        (["--environment_type=DOCKER", "--environment_config=img"], False),
    ],
)
def test_which_arguments_run_workers_locally(args, local):
    assert beam_local.runs_locally(args) is local


def test_beam_counts_its_default_runner_as_local():
    # Beam 2.77 runs ``pip freeze`` for a runner whose name is not in its list
    # (``apache_beam/transforms/environments.py``, python_sdk_dependencies); 2.60 has none.
    options = beam.options.pipeline_options.StandardOptions
    local = getattr(options, "LOCAL_RUNNERS", None)
    assert local is None or options.DEFAULT_RUNNER.rsplit(".", 1)[-1] in local


def _unbuilt() -> str:
    raise AssertionError("TFX built a package of itself")


def test_a_local_beam_step_of_tfx_builds_no_package_of_tfx(tmp_path, monkeypatch):
    monkeypatch.setattr(dependency_utils, "build_ephemeral_package", _unbuilt)
    args = ["--direct_running_mode=multi_processing", "--direct_num_workers=2"]
    given = _executor_args(list(args), tmp_path)

    assert given[: len(args)] == args
    assert not [a for a in given if a.startswith(("--extra_package", "--setup_file"))], given


def test_a_remote_beam_step_of_tfx_still_gets_tfx_s_package(tmp_path, monkeypatch):
    # TFX's builder copies its 49 MiB installation into a folder it never deletes: the
    # test has it name a file instead, and checks TFX's function still adds it.
    package = tmp_path / "tfx_ephemeral.tar.gz"
    monkeypatch.setattr(dependency_utils, "build_ephemeral_package", lambda: str(package))

    given = _executor_args(["--runner=DataflowRunner", "--project=p"], tmp_path)

    assert f"--extra_package={package}" in given
