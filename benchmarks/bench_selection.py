"""How much choosing on a split flatters the score on it, and what tuning buys on test.

    python benchmarks/bench_selection.py [--seeds 1 2 3] [--tune-trials 10] [--tune-minutes 15]
                                      [--hparam NAME=VALUE ...] [--out DIR]

Runs the pipeline once with tuning on (``local_runner.py --tune``) in DIR/run, for
its examples, its Transform graph, the Tuner's choice and its time. Then, for each
seed, trains the Trainer's ``run_fn`` on the train split three times:

* defaults, early stopping on validation: scored on validation (the old way, where
  the split that chose the weights also judged them) and on test (the new way);
* defaults, early stopping on test: the same comparison the other way round, so
  that a split that is merely easier or harder does not pass for optimism. Half the
  sum of the two gaps is the optimism; half their difference is how much easier
  validation is than test;
* the Tuner's values, early stopping on validation: scored on test, against the
  defaults;
* with ``--hparam``, the defaults with those values (an option to measure, such as
  ``embed_crosses=true``), early stopping on validation: scored on test.

Each model is the exported SavedModel, scored on every row of the split (AUC with
10,000 thresholds, accuracy at 0.5). Prints the figures and writes
DIR/selection.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from pipeline_ops.cli.quiet import quiet_libraries
from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)
quiet_libraries()  # before TFX and TF are imported: they chatter on import

from bench_dataset import split_records  # noqa: E402 - benchmarks/, beside this file
from bench_scale import holdout_metrics  # noqa: E402

from data_layout.properties import TUNED_HPARAMS, TUNING_SECONDS, number_property, str_property  # noqa: E402
from data_layout.splits import TEST, TRAIN, VALIDATION  # noqa: E402
from pipeline_def import node_ids  # noqa: E402
from pipeline_ops.metadata.runs import latest_run  # noqa: E402
from pipeline_ops.metadata.store import SqliteMetadata, open_store  # noqa: E402

PROJECT = Path(__file__).resolve().parent.parent
# The variants trained for every seed: what chose the weights, and with which values.
ON_VALIDATION = "defaults, chosen on validation"
ON_TEST = "defaults, chosen on test"
TUNED = "tuned, chosen on validation"
OPTION = "option, chosen on validation"


def _latest(folder: Path) -> Path:
    return max(folder.iterdir(), key=lambda p: int(p.name))


def tuned_run(out: Path, trials: int, minutes: float) -> tuple[dict, float]:
    """Run the pipeline with tuning into ``out``; the Tuner's values and seconds."""
    runner = [sys.executable, str(PROJECT / "local_runner.py"), "--output-dir", str(out)]
    flags = ["--tune", "--tune-trials", str(trials), "--tune-minutes", str(minutes)]
    result = subprocess.run([*runner, *flags], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"the tuned run failed (exit {result.returncode}):\n{result.stdout}")
    run = latest_run(open_store(SqliteMetadata(str(out / "metadata.sqlite"))), "taxi-wide-deep")
    best = run.output(node_ids.TUNER, "best_hyperparameters")
    return json.loads(str_property(best, TUNED_HPARAMS)), number_property(best, TUNING_SECONDS)


def train(pipeline_root: Path, chooser: str, overrides: dict, model_dir: Path) -> None:
    """The Trainer's run_fn on the run's train split, early stopping on ``chooser``."""
    from tfx.components.util import tfxio_utils
    from tfx.v1.components import DataAccessor, FnArgs
    from tfx.v1.types.standard_artifacts import Examples

    from modules.hparams import HParams
    from modules.training import run_fn
    from pipeline_def.config import PipelineConfig

    examples = Examples()
    examples.uri = str(_latest(pipeline_root / node_ids.EXAMPLE_GEN / "examples"))
    examples.split_names = json.dumps([TRAIN, VALIDATION, TEST])
    accessor = DataAccessor(
        tf_dataset_factory=tfxio_utils.get_tf_dataset_factory_from_artifact([examples], []),
        record_batch_factory=None,
        data_view_decode_fn=None,
    )
    hparams = HParams.with_overrides({**overrides, "profile_steps": [0, 0]})
    run_fn(
        FnArgs(
            train_files=[f"{examples.uri}/Split-{TRAIN}/*"],
            eval_files=[f"{examples.uri}/Split-{chooser}/*"],
            transform_output=str(_latest(pipeline_root / node_ids.TRANSFORM / "transform_graph")),
            serving_model_dir=str(model_dir / "model"),
            model_run_dir=str(model_dir / "run"),
            train_steps=PipelineConfig.train_steps,
            eval_steps=PipelineConfig.eval_steps,
            custom_config=hparams.to_custom_config(),
            data_accessor=accessor,
        )
    )


def _mean(values: list[float]) -> float:
    return statistics.fmean(values)


def _parse_args() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--tune-trials", type=int, default=10)
    parser.add_argument("--tune-minutes", type=float, default=15.0)
    parser.add_argument("--hparam", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--out", type=Path, default=PROJECT / "outputs" / "bench_selection")
    return parser.parse_args()


def main() -> None:
    """Train every variant for every seed, print the figures, write the JSON."""
    args = _parse_args()
    from modules.hparams import parse_pairs

    option = parse_pairs(args.hparam)
    args.out.mkdir(parents=True, exist_ok=True)
    tuned, tuning_seconds = tuned_run(args.out / "run", args.tune_trials, args.tune_minutes)
    print(f"tuned values {tuned} ({tuning_seconds:.0f} s of search)", flush=True)
    root = args.out / "run" / "pipeline"
    examples_uri = _latest(root / node_ids.EXAMPLE_GEN / "examples")
    rows = {split: split_records(examples_uri, split) for split in (VALIDATION, TEST)}
    variants = {ON_VALIDATION: (VALIDATION, {}), ON_TEST: (TEST, {}), TUNED: (VALIDATION, tuned)}
    if option:
        variants[OPTION] = (VALIDATION, option)
    results = _train_variants(root, rows, args.seeds, variants)
    summary = _summary(results, args.seeds, tuned, tuning_seconds, option)
    (args.out / "selection.json").write_text(json.dumps(summary, indent=2) + "\n")
    _print_figures(summary, args.out / "selection.json")


def _train_variants(
    root: Path,
    rows: dict[str, list[bytes]],
    seeds: list[int],
    variants: dict[str, tuple[str, dict]],
) -> list[dict]:
    """Each seed's and variant's model scored on ``rows``' splits, printed as it comes."""
    results = []
    for seed in seeds:
        for name, (chooser, overrides) in variants.items():
            with tempfile.TemporaryDirectory(prefix="bench-selection-") as scratch:
                train(root, chooser, {**overrides, "seed": seed}, Path(scratch))
                scores = {
                    split: holdout_metrics(str(Path(scratch) / "model"), examples)
                    for split, examples in rows.items()
                }
            results.append({"seed": seed, "variant": name, "chosen_on": chooser, **scores})
            print(
                f"seed {seed} {name:<32} "
                + "  ".join(
                    f"{split} AUC {s['auc']:.4f} acc {s['binary_accuracy']:.4f}"
                    for split, s in scores.items()
                ),
                flush=True,
            )
    return results


def _figure(results: list[dict], variant: str, split: str, metric: str) -> list[float]:
    """``metric`` on ``split`` of ``variant``'s models, a seed each."""
    return [r[split][metric] for r in results if r["variant"] == variant]


def _validation_over_test(results: list[dict], way: str) -> list[float]:
    """Per seed, the validation AUC minus the test AUC of the models chosen ``way``."""
    validation, test = (_figure(results, way, split, "auc") for split in (VALIDATION, TEST))
    return [v - t for v, t in zip(validation, test, strict=True)]


def _summary(
    results: list[dict], seeds: list[int], tuned: dict, tuning_seconds: float, option: dict
) -> dict:
    """The figures of selection.json: each way's AUC, the optimism, tuned against defaults."""
    gap_val = _validation_over_test(results, ON_VALIDATION)
    gap_test = [-gap for gap in _validation_over_test(results, ON_TEST)]
    optimism = [(a + b) / 2 for a, b in zip(gap_val, gap_test, strict=True)]
    return {
        "seeds": seeds,
        "tuned_values": tuned,
        "tuning_seconds": tuning_seconds,
        "old_way_validation_auc": _mean(_figure(results, ON_VALIDATION, VALIDATION, "auc")),
        "new_way_test_auc": _mean(_figure(results, ON_VALIDATION, TEST, "auc")),
        "gap_chosen_on_validation": gap_val,
        "gap_chosen_on_test": gap_test,
        "optimism_auc_per_seed": optimism,
        "optimism_auc_mean": _mean(optimism),
        "validation_easier_than_test_auc": _mean(
            [(a - b) / 2 for a, b in zip(gap_val, gap_test, strict=True)]
        ),
        "test_auc_defaults": _figure(results, ON_VALIDATION, TEST, "auc"),
        "test_auc_tuned": _figure(results, TUNED, TEST, "auc"),
        "test_accuracy_defaults": _figure(results, ON_VALIDATION, TEST, "binary_accuracy"),
        "test_accuracy_tuned": _figure(results, TUNED, TEST, "binary_accuracy"),
        "option": option,
        "test_auc_option": _figure(results, OPTION, TEST, "auc"),
        "test_accuracy_option": _figure(results, OPTION, TEST, "binary_accuracy"),
        "runs": results,
    }


def _print_figures(summary: dict, written: Path) -> None:
    """The summary for people: optimism, tuned against defaults, the option's figures."""
    optimism, option = summary["optimism_auc_per_seed"], summary["option"]
    print(
        f"\nold way (validation chose and judged): AUC {summary['old_way_validation_auc']:.4f}; "
        f"new way (test judged): {summary['new_way_test_auc']:.4f}\n"
        f"optimism of judging on the choosing split: {summary['optimism_auc_mean']:+.4f} AUC "
        f"(per seed {', '.join(f'{o:+.4f}' for o in optimism)}); validation is easier than "
        f"test by {summary['validation_easier_than_test_auc']:+.4f}\n"
        f"test AUC defaults {_mean(summary['test_auc_defaults']):.4f} "
        f"({', '.join(f'{a:.4f}' for a in summary['test_auc_defaults'])}), tuned "
        f"{_mean(summary['test_auc_tuned']):.4f} "
        f"({', '.join(f'{a:.4f}' for a in summary['test_auc_tuned'])})\n"
        f"test accuracy defaults {_mean(summary['test_accuracy_defaults']):.4f}, tuned "
        f"{_mean(summary['test_accuracy_tuned']):.4f}; search {summary['tuning_seconds']:.0f} s\n"
        f"wrote {written}"
    )
    if option:
        print(
            f"test AUC with {option}: {_mean(summary['test_auc_option']):.4f} "
            f"({', '.join(f'{a:.4f}' for a in summary['test_auc_option'])}), accuracy "
            f"{_mean(summary['test_accuracy_option']):.4f}"
        )


if __name__ == "__main__":
    main()
