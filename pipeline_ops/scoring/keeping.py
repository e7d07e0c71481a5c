"""Where a scoring run's skew is kept: a folder of its own, and a record in ML-Metadata."""

from __future__ import annotations

import argparse
import time
import uuid
from pathlib import Path
from typing import Any

from pipeline_def.metadata_stores import MetadataStore
from pipeline_ops.metadata import scoring_runs
from pipeline_ops.metadata.store import open_store
from scoring import skew

SCORING_FOLDER = "scoring"


def keep_report(
    store: MetadataStore,
    args: argparse.Namespace,
    model_path: str,
    report: skew.SkewReport,
    statistics: Any,
) -> Path:
    """Write the report and the scored rows' statistics, record the run; the folder."""
    # A folder per run, named by its time; the suffix keeps two runs of a second apart.
    name = f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    folder = Path(args.output_dir).resolve() / SCORING_FOLDER / name
    skew.keep(folder, report, statistics)
    paths = (str(Path(args.input).resolve()), str(Path(args.output).resolve()))
    scoring_runs.record(open_store(store), model_path, paths, report.as_dict(), str(folder))
    return folder
