"""TFMA's evaluation of the newest run, with and without the start-up's TFMA changes.

    python benchmarks/bench_evaluator.py [--output-dir outputs] [--rounds 3]

Runs TFMA as the Evaluator configured it (the run's own ``eval_config.json``: metrics,
plots, slices) on the run's test split and models (the candidate, and the serving model
it was compared with, if any), each time in a fresh process prepared as the pipeline's
are (``startup.process.prepare()``): with both of its TFMA changes (``tfma_matrices``,
``tfma_row_inputs``), with each, and with neither (TFMA as it ships), the variants
alternating round by round on these shared machines. Prints each variant's median seconds (the
evaluation alone, model load included, imports excluded) and its ratio to TFMA as it
ships, as JSON. Needs a finished run (``make run``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from startup import after_import, process, tfma_matrices, tfma_row_inputs

process.prepare()  # Keras 2 before TensorFlow loads; every TFMA change, until withdrawn

PROJECT = Path(__file__).resolve().parent.parent
# Each variant: the start-up changes applied to its process.
VARIANTS = {
    "as_shipped": (),
    "matrices": ("tfma_matrices",),
    "row_inputs": ("tfma_row_inputs",),
    "both": ("tfma_matrices", "tfma_row_inputs"),
}
# The module each change adjusts when it loads.
_ADJUSTS = {"tfma_matrices": tfma_matrices.MATRICES, "tfma_row_inputs": tfma_row_inputs.METRIC_UTIL}


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-dir", type=Path, default=PROJECT / "outputs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)  # one child
    return parser.parse_args()


def _inputs(output_dir: Path) -> tuple[str, str]:
    """The newest run's evaluation folder and test files' pattern."""
    import datasets
    from pipeline_def import node_ids
    from pipeline_ops.metadata.runs import latest_run
    from pipeline_ops.metadata.store import metadata_for, open_store

    pipeline_name = datasets.load(datasets.DEFAULT).pipeline_name
    run = latest_run(open_store(metadata_for(output_dir, None)), pipeline_name)
    if run is None or run.output(node_ids.EVALUATOR, "evaluation") is None:
        raise SystemExit(f"no evaluated run in {output_dir}: run the pipeline first (make run)")
    evaluation = run.output(node_ids.EVALUATOR, "evaluation").uri
    test = str(Path(run.output(node_ids.EXAMPLE_GEN, "examples").uri) / "Split-test" / "*")
    return evaluation, test


def _one(variant: str, output_dir: Path) -> float:
    """Seconds of one evaluation in this process, with the variant's changes applied."""
    for change, module in _ADJUSTS.items():  # withdrawn before TFMA loads, if left out
        if change not in VARIANTS[variant]:
            after_import.withdraw(module)
    import tensorflow_model_analysis as tfma
    from tensorflow_model_analysis.writers import eval_config_writer

    evaluation, test = _inputs(output_dir)
    config, _, _, locations = eval_config_writer.load_eval_run(evaluation)
    started = time.monotonic()
    # The models the Evaluator compared: the candidate, and the serving model if any.
    models = [
        tfma.default_eval_shared_model(locations[s.name], model_name=s.name, eval_config=config)
        for s in config.model_specs
    ]
    with tempfile.TemporaryDirectory() as written:
        tfma.run_model_analysis(
            eval_shared_model=models, eval_config=config, data_location=test,
            output_path=written, file_format="tfrecords",
        )  # fmt: skip
    return time.monotonic() - started


def main() -> None:
    """Alternate the variants in fresh processes and print their medians as JSON."""
    args = _parse_args()
    if args.variant:
        print(json.dumps({"seconds": _one(args.variant, args.output_dir)}))
        return
    seconds: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(args.rounds):
        for variant in VARIANTS:
            done = subprocess.run(
                [sys.executable, __file__, "--variant", variant, "--output-dir",
                 str(args.output_dir)],
                capture_output=True, text=True, check=True, cwd=PROJECT,
            )  # fmt: skip
            seconds[variant].append(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])
    medians = {v: statistics.median(s) for v, s in seconds.items()}
    figures = {
        v: {"median_s": round(m, 1), "ratio": round(m / medians["as_shipped"], 2),
            "runs_s": [round(x, 1) for x in seconds[v]]}
        for v, m in medians.items()
    }  # fmt: skip
    print(json.dumps({**figures, "rounds": args.rounds}, indent=1))


if __name__ == "__main__":
    main()
