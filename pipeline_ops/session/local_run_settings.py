"""Settings a local run chooses by the size of its input: Beam's workers and the hash split.

The local runner reads the input's size before building its ``PipelineConfig`` and
sets ``beam_pipeline_args`` and ``split_buckets`` from it (its flags may override the
Beam arguments); the benchmarks' data generator sizes its shards by the same rules. The
figures behind each threshold are in docs/decisions/local-run-settings.md.
"""

from __future__ import annotations

from data_layout.splits import TEST, TRAIN, VALIDATION
from pipeline_def.config import DEFAULT_SPLIT

# Beam runs in this process for small inputs; above this many bytes of CSV the
# DirectRunner's worker processes repay their start-up.
MULTI_PROCESS_BEAM_BYTES = 64 << 20
# The held-out splits. Three named splits, so that the split that judges the model
# never chose it: early stopping (and the Tuner) select on validation, the Evaluator
# blesses on test. For larger data each held-out split is capped at about this many
# rows: TFMA's cost grows with test rows times slices, and more rows no longer make
# AUC much more precise.
HELD_OUT_ROWS_TARGET = 25_000
# Rows are counted from bytes, before anything parses the CSV: the shipped taxi
# sample's average row length.
CSV_BYTES_PER_ROW = 119


def beam_args_for(input_bytes: int, workers: int) -> tuple[str, ...]:
    """Beam arguments for a local run on ``input_bytes`` of CSV with ``workers`` cores."""
    if input_bytes < MULTI_PROCESS_BEAM_BYTES or workers < 2:
        return ()
    return ("--direct_running_mode=multi_processing", f"--direct_num_workers={workers}")


def split_buckets_for(input_bytes: int) -> tuple[tuple[str, int], ...]:
    """Hash buckets for train, validation and test: 3:1:1, held-out splits capped.

    Validation and test each get a fifth of the rows, but no more than about
    HELD_OUT_ROWS_TARGET. Buckets are per mille: whole percents would give 1.5M rows
    30k rows per held-out split, not 25k.
    """
    rows = max(1, input_bytes // CSV_BYTES_PER_ROW)
    held_out_permille = round(1000 * HELD_OUT_ROWS_TARGET / rows)
    if held_out_permille >= 200:
        return DEFAULT_SPLIT
    held_out_permille = max(1, held_out_permille)
    return (
        (TRAIN, 1000 - 2 * held_out_permille),
        (VALIDATION, held_out_permille),
        (TEST, held_out_permille),
    )
