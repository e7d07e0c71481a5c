"""ExampleGen's seconds with a window of 4 spans against 1, on large spans.

    python benchmarks/bench_example_gen_window.py [--rows 200000] [--repeats 2] [--out DIR]

Writes spans 0-3 of ``--rows`` rows each (``benchmarks/generate_data.py``: the sample's
rows repeated with jitter, a seed per span) unless ``<out>/data`` holds them, then
runs ExampleGen's executor on span 3 in fresh pipeline roots:

* window 1 and window 4 each find spans 0-2 encoded by earlier runs (encoded once,
  untimed, and copied into the root), as a period's run finds them: span 3 is
  encoded, and the spans read besides are reused (a window of 1 reads span 2 too,
  the previous span, which the validator compares with);
* window 1 and window 4 cold (once each): nothing encoded before, for scale.

Window 1 and window 4 alternate which goes first. Prints each run's seconds and rows,
then the figures as JSON (also ``<out>/bench_example_gen_window.json``).
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_transform_cache import example_gen  # benchmarks/, beside this file

from data_layout.properties import REUSED_PROPERTY, WINDOW_PROPERTY
from pipeline_def.config import PipelineConfig

SCRIPTS = Path(__file__).resolve().parent
SPANS = 4  # spans 0-3: the run is on span 3


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows per span")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="default: a temporary folder")
    return parser.parse_args(argv)


def write_spans(data: Path, rows: int) -> None:
    """Spans 0-3 of ``rows`` generated rows each, unless already there."""
    for span in range(SPANS):
        folder = data / f"span-{span}"
        if not (folder / "MANIFEST.json").exists():
            subprocess.run(
                [sys.executable, str(SCRIPTS / "generate_data.py"), "--rows", str(rows),
                 "--out", str(folder), "--seed", str(span)],
                check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip


def _config(data: Path, root: Path) -> PipelineConfig:
    return PipelineConfig.resolve(
        pipeline_root=str(root / "pipeline"), data_root=str(data), serving_dir=""
    )


def timed_run(data: Path, root: Path, window: int, encoded: Path | None) -> dict[str, Any]:
    """ExampleGen on span 3 with ``window`` in a fresh ``root``, ``encoded`` spans copied in."""
    config = _config(data, root)
    if encoded is not None:
        shutil.copytree(encoded, config.span_cache)
    started = time.monotonic()
    examples = example_gen(config, SPANS - 1, window, root)
    seconds = time.monotonic() - started
    spans = json.loads(examples.get_string_custom_property(WINDOW_PROPERTY))
    return {
        "window": window,
        "seconds": round(seconds, 1),
        "rows": sum(s["rows"] for s in spans),
        "reused": json.loads(examples.get_string_custom_property(REUSED_PROPERTY) or "[]"),
    }


def encode_earlier_spans(data: Path, out: Path) -> Path:
    """Spans 0-2 encoded as earlier runs left them; the encoded spans' folder."""
    config = _config(data, out / "earlier")
    for span in range(SPANS - 1):
        example_gen(config, span, 1, out / "earlier")
    return Path(config.span_cache)


def run(args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    """Every timed run, in the order run."""
    data = out / "data"
    write_spans(data, args.rows)
    encoded = encode_earlier_spans(data, out)
    results = []
    for repeat in range(args.repeats):
        windows = [1, SPANS] if repeat % 2 == 0 else [SPANS, 1]
        for window in windows:
            root = out / f"run-{repeat}-window-{window}"
            results.append({"repeat": repeat, **timed_run(data, root, window, encoded)})
            print(json.dumps(results[-1]), flush=True)
    for window in (1, SPANS):
        root = out / f"run-cold-window-{window}"
        results.append({"repeat": "cold", **timed_run(data, root, window, None)})
        print(json.dumps(results[-1]), flush=True)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison; print each run and the figures."""
    args = parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-example-gen-window-"))
    results = run(args, out)
    (out / "bench_example_gen_window.json").write_text(json.dumps(results, indent=1))
    print(f"figures: {out / 'bench_example_gen_window.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
