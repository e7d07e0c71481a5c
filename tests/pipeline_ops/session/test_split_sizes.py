"""An output dir's split sizes: chosen by its first run, kept whatever the window."""

from __future__ import annotations

import json

import pytest

import local_runner
from pipeline_def.config import DEFAULT_SPLIT
from pipeline_ops import commands
from pipeline_ops.session import split_sizes
from pipeline_ops.session.local_run_settings import CSV_BYTES_PER_ROW, split_buckets_for

SMALL = 15_000 * CSV_BYTES_PER_ROW  # the shipped sample: 3:1:1
LARGE = 1_500_000 * CSV_BYTES_PER_ROW  # held-out splits capped near 25,000 rows each
GROWN = 1_560_000 * CSV_BYTES_PER_ROW  # a few percent more: other buckets, chosen afresh


def test_the_first_run_keeps_its_sizes_and_a_grown_window_does_not_move_them(tmp_path):
    assert split_buckets_for(LARGE) != split_buckets_for(GROWN)  # what moved before
    first = split_sizes.choose(tmp_path, LARGE)
    assert first.buckets == split_buckets_for(LARGE) and first.note == ""
    first.keep(tmp_path)
    assert json.loads((tmp_path / split_sizes.SPLITS_FILE).read_text()) == dict(first.buckets)
    later = split_sizes.choose(tmp_path, GROWN)
    assert later.buckets == first.buckets and not later.changed
    assert "kept from this output dir's first run" in later.note
    assert later.note.endswith("--resplit chooses them anew")


def test_resplit_chooses_anew_says_so_and_does_not_warm_start(tmp_path):
    split_sizes.choose(tmp_path, SMALL).keep(tmp_path)
    same = split_sizes.choose(tmp_path, SMALL, resplit=True)
    assert same.buckets == DEFAULT_SPLIT and not same.changed
    moved = split_sizes.choose(tmp_path, LARGE, resplit=True)
    assert moved.changed and moved.buckets == split_buckets_for(LARGE)
    assert "this run does not warm-start from the serving model" in moved.note
    args = local_runner.parse_args(["--output-dir", str(tmp_path), "--resplit"])
    config = local_runner.build_config(
        args, local_runner.run_paths(args), LARGE, flat=False, sizes=moved
    )
    assert config.split_buckets == moved.buckets and not config.warm_start
    kept = local_runner.parse_args(["--output-dir", str(tmp_path)])
    sizes = split_sizes.choose(tmp_path, LARGE)
    config = local_runner.build_config(
        kept, local_runner.run_paths(kept), LARGE, flat=False, sizes=sizes
    )
    assert config.split_buckets == DEFAULT_SPLIT and config.warm_start


def test_a_damaged_sizes_file_is_one_line_and_exit_2(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / split_sizes.SPLITS_FILE).write_text("[1, 2")
    data = tmp_path / "data"
    data.mkdir()
    (data / "taxi.csv").write_text("fare,tips\n1,0\n")
    code = local_runner.main(["--data-root", str(data), "--output-dir", str(out)])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert code == commands.EXIT_BAD_INPUT
    assert str(out / split_sizes.SPLITS_FILE) in line and "--resplit" in line


@pytest.mark.parametrize("text", ['{"train": "many"}', "[]"])
def test_sizes_that_are_not_counts_are_refused(tmp_path, text):
    (tmp_path / split_sizes.SPLITS_FILE).write_text(text)
    with pytest.raises(split_sizes.SplitSizesError, match="not the split sizes a run keeps"):
        split_sizes.choose(tmp_path, SMALL)
