"""The Evaluator's own checks beside TFMA, phase by phase, on the newest run's test split.

    python benchmarks/bench_checks.py [--output-dir outputs] [--rounds 3]

What the Evaluator computes itself after TFMA (``components/gated_evaluator.py``): it
reads the test split's examples, scores them with the candidate (labels through its
Transform graph), reads each row's slice values, and bootstraps the candidate's AUC
interval on the split and on every slice. Each phase is timed ``--rounds`` times in
this process and the medians printed as JSON, so two revisions run one after the
other on the same output dir compare phase by phase (``git stash`` or a second clone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline_ops.cli.quiet import quiet_libraries
from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)
quiet_libraries()  # before TFX and TF are imported: they chatter on import

from pipeline_def import node_ids  # noqa: E402
from pipeline_def.config import TEST  # noqa: E402
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR  # noqa: E402
from pipeline_ops.metadata.runs import latest_run  # noqa: E402
from pipeline_ops.metadata.store import metadata_for, open_store  # noqa: E402

if TYPE_CHECKING:
    from modules.features import DatasetDeclaration


def _timed(phases: dict[str, list[float]], name: str, work: Callable[[], Any]) -> Any:
    """``work()``'s result; its seconds appended to ``phases[name]``."""
    started = time.perf_counter()
    result = work()
    phases.setdefault(name, []).append(time.perf_counter() - started)
    return result


def _round(
    taxi: DatasetDeclaration, examples: str, model: str, phases: dict[str, list[float]]
) -> int:
    """One pass of the checks' phases; the number of test rows."""
    from review import paired_comparison, scored_rows

    records = _timed(phases, "read", lambda: scored_rows.split_records(examples, TEST))
    labels, scores = _timed(
        phases,
        "score",
        lambda: scored_rows.labels_and_scores(model, records, taxi.label_key, taxi.prediction_key),
    )
    values = _timed(phases, "slice_values", lambda: scored_rows.slice_values(records, taxi.slices))
    _timed(phases, "intervals", lambda: paired_comparison.estimates(labels, scores, values))
    return len(records)


def main() -> None:
    """Time each phase ``--rounds`` times and print the medians as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    from tfx.utils import path_utils

    import datasets
    import modules.exact_auc  # noqa: F401 - imported untimed: the Evaluator has TFMA loaded

    taxi = datasets.load(datasets.DEFAULT)
    run = latest_run(open_store(metadata_for(args.output_dir, None)), taxi.pipeline_name)
    if run is None or node_ids.TRAINER not in run.nodes:
        raise SystemExit(f"no finished run in {args.output_dir}: run the pipeline first")
    examples = run.output(node_ids.EXAMPLE_GEN, "examples").uri
    model = path_utils.serving_model_path(run.output(node_ids.TRAINER, "model").uri)
    phases: dict[str, list[float]] = {}
    rows = [_round(taxi, examples, model, phases) for _ in range(args.rounds)][0]
    medians = {k: round(statistics.median(v), 3) for k, v in phases.items()}
    print(json.dumps({"test_rows": rows, "rounds": args.rounds, "median_seconds": medians}))


if __name__ == "__main__":
    main()
