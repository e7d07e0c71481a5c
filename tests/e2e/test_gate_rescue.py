"""The paired bootstrap on real runs: TFMA fails both candidates on the AUC change bound.

A model trained on 1,500 rows of the sample serves; each candidate is compared with it
on the same 316 test rows. The first is the same training from another seed, a little
below the serving model (by more than the 0.01 bound: TFMA fails it) but within the
noise of those rows: the paired interval reaches above the bound, so the gate blesses
it and the Pusher pushes it. The second, trained for one epoch, is below by more than
the noise: the gate holds it, and nothing is pushed. On another machine the seeds'
models may differ: the first assertions check that each candidate is the case it
stands for.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import tensorflow_model_analysis as tfma
from conftest import write_head
from run_commands import review_cli, stderr_for_people
from tensorflow_model_analysis.proto import validation_result_pb2

from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops import commands
from pipeline_ops.metadata.runs import latest_run
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE
from review import paired_comparison
from review.paired_comparison import Comparison

pytestmark = pytest.mark.slow

ROWS = 1500
# The absolute bound is not what these runs test: every model here clears 0.5.
LOOSE_BOUND = ("--min-auc", "0.5")
# The same training from another seed: AUC below the serving model's (seed 42) by more
# than the bound, the paired interval reaching above it (docs/decisions/continuous-training.md).
NOISY = ("--hparam", "seed=5")
# One epoch (50 steps) of training: the interval wholly below the bound.
UNDERTRAINED = ("--train-steps", "50")


@pytest.fixture(scope="module")
def serving(tmp_path_factory, run_pipeline) -> tuple[Path, Path]:
    """A run that pushed the model the candidates meet: (data root, output dir)."""
    root = tmp_path_factory.mktemp("rescue")
    data = root / "data"
    write_head(ROWS, data)
    result = run_pipeline(data, root / "serving", *LOOSE_BOUND)
    assert result.returncode == 0, result.stdout + result.stderr
    return data, root / "serving"


def _candidate(
    serving: tuple[Path, Path], name: str, flags: tuple[str, ...], run_pipeline
) -> tuple[Path, int]:
    """A candidate run on a copy of the serving run's store and serving dir, asked for its
    verdict as CI asks: (output dir, its exit code with --detailed-exitcode)."""
    data, source = serving
    output_dir = source.with_name(name)
    shutil.copytree(source, output_dir)
    result = run_pipeline(data, output_dir, *LOOSE_BOUND, *flags, "--detailed-exitcode")
    completed = (commands.EXIT_OK, commands.EXIT_NOT_BLESSED)
    assert result.returncode in completed, result.stdout + result.stderr
    return output_dir, result.returncode


def _reviewed_verdict(output_dir: Path) -> int:
    """``wide-deep-review --detailed-exitcode``'s code for the run, in its own process."""
    review = review_cli("--output-dir", str(output_dir), "--detailed-exitcode")
    assert stderr_for_people(review.stderr) == "", review.stderr
    return review.returncode


def _verdicts(output_dir: Path) -> tuple[dict, validation_result_pb2.ValidationResult, Comparison]:
    """The run's summary, TFMA's validation result and the paired comparison."""
    store = open_store(SqliteMetadata(str(output_dir / "metadata.sqlite")))
    evaluation = latest_run(store, "taxi-wide-deep").output(node_ids.EVALUATOR, "evaluation").uri
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    return summary, tfma.load_validation_result(evaluation), paired_comparison.read(evaluation)


def _failed_on_auc_change_alone(result: validation_result_pb2.ValidationResult) -> bool:
    """Whether TFMA failed the candidate on the overall AUC change bound, and on AUC
    change bounds alone (on some slices too: the gate judges those on their rows)."""
    failures = [
        (bool(per_slice.slice_key.single_slice_keys), failure.metric_key)
        for per_slice in result.metric_validations_per_slice
        for failure in per_slice.failures
    ]
    overall = [key for on_slice, key in failures if not on_slice]
    return (
        not result.validation_ok
        and [(key.name, key.is_diff) for key in overall] == [("auc", True)]
        and all(key.name == "auc" and key.is_diff for _, key in failures)
    )


def _versions(output_dir: Path) -> list[str]:
    return sorted(p.name for p in (output_dir / "serving").iterdir())


def test_a_candidate_tfma_fails_within_the_noise_is_blessed_and_pushed(serving, run_pipeline):
    output_dir, verdict = _candidate(serving, "noisy", NOISY, run_pipeline)
    summary, tfma_result, comparison = _verdicts(output_dir)
    # TFMA's point comparison: below the serving model by more than the bound ...
    assert _failed_on_auc_change_alone(tfma_result)
    assert comparison.difference < -comparison.tolerance
    # ... the paired interval: not below the bound beyond the noise of the 316 rows.
    assert comparison.low < -comparison.tolerance <= comparison.high
    assert not comparison.worse
    assert summary["blessed"] is True
    assert summary["comparison"] == comparison.describe()  # no slice held it back
    assert summary["pushed_model_path"] is not None
    assert Path(summary["pushed_model_path"]).name in _versions(output_dir)
    assert len(_versions(output_dir)) == len(_versions(serving[1])) + 1
    # CI's reading of it: blessed and pushed, from the run and from its review.
    assert verdict == _reviewed_verdict(output_dir) == commands.EXIT_OK


def test_a_candidate_worse_beyond_the_noise_is_held_and_not_pushed(serving, run_pipeline):
    output_dir, verdict = _candidate(serving, "undertrained", UNDERTRAINED, run_pipeline)
    summary, tfma_result, comparison = _verdicts(output_dir)
    assert _failed_on_auc_change_alone(tfma_result)
    assert comparison.high < -comparison.tolerance and comparison.worse
    assert summary["blessed"] is False
    assert summary["pushed_model_path"] is None
    assert _versions(output_dir) == _versions(serving[1])
    # CI's reading of it: held back, from the run and from its review.
    assert verdict == _reviewed_verdict(output_dir) == commands.EXIT_NOT_BLESSED
