"""An output dir's split sizes: chosen once, by its first run, and kept.

The held-out splits' hash buckets depend on the input's size (``split_buckets_for``).
Chosen again by every run, they would move with the window's bytes: above about 125k
rows a few percent more data changes the bucket counts, rows and entities change
splits between two runs, and a row the warm-start model trained on can land in the
next run's test split. So the first run of an output dir chooses them from its input
and keeps them in ``<output-dir>/split_buckets.json``; every later run takes them from
there, whatever its window. ``--resplit`` chooses them anew from the run's input: the
run says so and, where they changed, does not warm-start from the serving model, which
learned rows the new buckets may hold out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pipeline_ops.session.local_run_settings import CSV_BYTES_PER_ROW, split_buckets_for

SPLITS_FILE = "split_buckets.json"
Buckets = tuple[tuple[str, int], ...]


class SplitSizesError(ValueError):
    """The kept split sizes cannot be read."""


@dataclass(frozen=True)
class SplitSizes:
    """The buckets a run uses, and what it says about them ("" where it keeps them)."""

    buckets: Buckets
    note: str = ""
    chosen_now: bool = False  # to be kept, once the run goes ahead with them
    changed: bool = False  # chosen anew over other kept ones: no warm start

    def keep(self, output_dir: Path) -> None:
        """Write the buckets chosen now (the run goes ahead with them)."""
        if self.chosen_now:
            (output_dir / SPLITS_FILE).write_text(json.dumps(dict(self.buckets), indent=1) + "\n")


def _read(path: Path) -> Buckets:
    try:
        kept = json.loads(path.read_text())
        return tuple((str(name), int(count)) for name, count in kept.items())
    except (ValueError, AttributeError) as err:
        raise SplitSizesError(
            f"{path}: not the split sizes a run keeps ({err}); remove it, or run with "
            "--resplit to choose them anew"
        ) from None


def _said(buckets: Buckets) -> str:
    return ", ".join(f"{name} {count}" for name, count in buckets) + " per mille"


def choose(output_dir: Path, input_bytes: int, resplit: bool = False) -> SplitSizes:
    """The output dir's kept buckets, or those chosen now from ``input_bytes`` of input."""
    path = output_dir / SPLITS_FILE
    kept = _read(path) if path.is_file() else None
    chosen = split_buckets_for(input_bytes)
    rows = f"about {input_bytes // CSV_BYTES_PER_ROW:,} rows"
    if kept is None:  # the output dir's first run: kept without a word, as every run had them
        return SplitSizes(chosen, chosen_now=True)
    if not resplit:
        note = "" if kept == chosen else (
            f"split sizes kept from this output dir's first run ({_said(kept)}); {rows} alone "
            f"would give {_said(chosen)}: --resplit chooses them anew"
        )  # fmt: skip
        return SplitSizes(kept, note)
    if kept == chosen:
        return SplitSizes(chosen, f"--resplit: the split sizes for {rows} are those kept")
    note = (
        f"--resplit: split sizes {_said(kept)} -> {_said(chosen)} (from {rows}); rows change "
        "splits, so this run does not warm-start from the serving model"
    )
    return SplitSizes(chosen, note, chosen_now=True, changed=True)
