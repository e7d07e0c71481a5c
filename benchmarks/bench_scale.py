"""How the pipeline's cost grows with the data: a full run at each size, fresh each time.

    python benchmarks/bench_scale.py [--rows 15000 150000 1500000] [--out DIR]

For each size: generate the data (benchmarks/generate_data.py, kept between
benchmark runs), run ``local_runner.py`` in a fresh output dir, and sample the
resident memory of every process it starts. Writes ``scale.json`` and ``scale.png``
(seconds per component against rows, log-log) into DIR. Per size, ``scale.json`` has:

- per component: seconds, rows/s, and the peak RSS of the largest process while it ran;
- for the whole run: end-to-end seconds, the peak RSS of the largest process, and the
  peak of all its processes together (the sum of their proportional set sizes);
- AUC on the run's test split (and its rows) and, for the pushed model, on the sample's
  own test rows, whose noisy copies make up the generated test split;
- the Trainer's examples/s.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline_ops.cli.quiet import quiet_libraries
from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)
quiet_libraries()  # before generate_data brings in TFX and TF, which chatter on import

import generate_data  # noqa: E402 - benchmarks/, beside this file
from memory import PeakMemory  # noqa: E402 - benchmarks/, beside this file

from data_layout.splits import TEST  # noqa: E402
from pipeline_ops.session.progress import component_line  # noqa: E402

PROJECT = Path(__file__).resolve().parent.parent
DATA_COMPONENTS = ("CsvExampleGen", "StatisticsGen", "Transform", "Evaluator")
THROUGHPUT = re.compile(r"training throughput: (\d+) examples/s")


def data_for(rows: int, cache: Path) -> Path:
    """The generated data for ``rows`` rows (made again when its manifest is not current)."""
    folder = cache / f"rows-{rows}"
    manifest = folder / "MANIFEST.json"
    made = json.loads(manifest.read_text()) if manifest.exists() else {}
    if not generate_data.is_current(made):
        subprocess.run(
            [sys.executable, str(PROJECT / "benchmarks" / "generate_data.py"), "--rows", str(rows),
             "--out", str(folder)],
            check=True,
        )  # fmt: skip
    return folder


def holdout_metrics(model_dir: str, examples: list[bytes]) -> dict[str, float]:
    """AUC and accuracy (at 0.5) of the SavedModel at ``model_dir`` on ``examples``.

    ``examples`` are serialized, label included. On the sample's test rows, the
    generated test split's sources, this compares directly with the model trained on
    the sample itself.
    """
    import tensorflow as tf

    import datasets
    from modules.export import SERVING_DEFAULT, TRANSFORM_FEATURES
    from modules.keras_setup import keras

    taxi = datasets.load(datasets.DEFAULT)

    model = tf.saved_model.load(model_dir)
    batch = tf.constant(examples)
    scores = model.signatures[SERVING_DEFAULT](examples=batch)[taxi.prediction_key]
    label = model.signatures[TRANSFORM_FEATURES](examples=batch)[taxi.label_key]
    auc = keras.metrics.AUC(num_thresholds=10_000)
    auc.update_state(label, scores)
    accuracy = keras.metrics.BinaryAccuracy()
    accuracy.update_state(tf.reshape(label, [-1, 1]), tf.reshape(scores, [-1, 1]))
    return {"auc": float(auc.result()), "binary_accuracy": float(accuracy.result())}


def one_size(rows: int, data_root: Path, holdout: list[bytes]) -> dict:
    """One fresh end-to-end run on ``data_root``; its figures."""
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as out:
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, str(PROJECT / "local_runner.py"), "--data-root", str(data_root),
             "--output-dir", out],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        memory = PeakMemory(process.pid)
        memory.start()
        peaks, output = {}, []
        for line in process.stdout:
            output.append(line)
            finished = component_line(line)
            if finished is not None:
                peaks[finished[0]] = memory.take()
        process.wait()
        memory.stopped.set()
        wall = time.monotonic() - started
        if process.returncode != 0:
            sys.exit(f"{rows} rows: run failed (exit {process.returncode}):\n{''.join(output)}")
        summary = json.loads((Path(out) / "run_summary.json").read_text())
        rates = THROUGHPUT.findall(Path(summary["log_file"]).read_text())
        pushed = summary["pushed_model_path"]
        sample_auc = holdout_metrics(pushed, holdout)["auc"] if pushed else None
    components = {}
    for name, figures in summary["components"].items():
        entry = {"seconds": figures["seconds"], "peak_rss_mib": round(peaks.get(name, 0.0))}
        if name in DATA_COMPONENTS and figures["seconds"] > 0:
            # The Evaluator reads the test split only (its size depends on the data's).
            count = summary["metrics"]["example_count"] if name == "Evaluator" else rows
            entry["rows_per_second"] = round(count / figures["seconds"])
        components[name] = entry
    return {
        "rows": rows,
        "wall_seconds": round(wall, 1),
        "pipeline_seconds": summary["seconds"],
        "peak_rss_mib_largest_process": round(memory.peak_mib),
        # The memory bound is on the whole run: the runner and Beam's workers.
        "peak_pss_mib_all_processes": round(memory.peak_pss_mib),
        "auc": summary["metrics"].get("auc"),
        "auc_on_sample_test_split": sample_auc,
        "test_rows": int(summary["metrics"].get("example_count", 0)),
        "trainer_examples_per_second": int(rates[-1]) if rates else None,
        "components": components,
    }


def plot(results: list[dict], path: Path) -> None:
    """Seconds per component against rows, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r["rows"] for r in results]
    figure, axes = plt.subplots(figsize=(7, 5))
    for name in results[0]["components"]:
        seconds = [max(r["components"][name]["seconds"], 0.05) for r in results]
        if max(seconds) >= 1:
            axes.plot(rows, seconds, marker="o", label=name)
    axes.plot(rows, [r["wall_seconds"] for r in results], "k--", marker="s", label="end to end")
    axes.set(xscale="log", yscale="log", xlabel="rows", ylabel="seconds",
             title="Pipeline time per component by data size")  # fmt: skip
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.savefig(path, dpi=100, bbox_inches="tight")


def main() -> None:
    """Run every size, print a table, write the JSON and the plot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[15_000, 150_000, 1_500_000])
    parser.add_argument("--out", type=Path, default=PROJECT / "outputs" / "bench_scale")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    _, holdout = generate_data.Sample().split(TEST)
    results = []
    for rows in args.rows:
        results.append(one_size(rows, data_for(rows, args.out / "data"), holdout))
        r = results[-1]
        print(
            f"{rows:>9} rows: {r['wall_seconds']:7.1f} s end to end, "
            f"peak RSS {r['peak_rss_mib_largest_process']} MiB (largest process), "
            f"{r['peak_pss_mib_all_processes']} MiB PSS (all processes), AUC {r['auc']:.4f} "
            f"(on the sample's test split {r['auc_on_sample_test_split'] or float('nan'):.4f}), "
            + ", ".join(f"{k} {v['seconds']:.1f}" for k, v in r["components"].items()),
            flush=True,
        )
        (args.out / "scale.json").write_text(json.dumps(results, indent=2) + "\n")
    plot(results, args.out / "scale.png")
    print(f"wrote {args.out / 'scale.json'} and {args.out / 'scale.png'}")


if __name__ == "__main__":
    main()
