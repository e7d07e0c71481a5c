"""Room for a run: what a run of a given input needs, and the line that refuses it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pipeline_ops.session import room
from pipeline_ops.session.local_run_settings import beam_args_for
from pipeline_ops.session.room import Room

GB = 10**9


@pytest.mark.parametrize(
    ("beam_args", "workers"),
    [
        ((), 0),
        (("--direct_running_mode=multi_threading", "--direct_num_workers=4"), 0),
        (("--direct_running_mode=multi_processing",), 1),
        (("--direct_running_mode=multi_processing", "--direct_num_workers=3"), 3),
        (("--direct_running_mode=multi_processing", "--direct_num_workers=0"), os.cpu_count()),
        # Beam reads a flag's value from the next argument too.
        (("--direct_running_mode", "multi_processing", "--direct_num_workers", "4"), 4),
        (("--runner=DirectRunner", "--direct_running_mode", "multi_processing"), 1),
    ],
)
def test_the_beam_workers_beside_the_runner(beam_args, workers):
    assert room.beam_workers(beam_args) == workers


def test_a_worker_count_that_is_not_a_number_is_named():
    with pytest.raises(ValueError, match="^--beam-arg: argument --direct_num_workers: invalid int"):
        room.beam_workers(("--direct_running_mode=multi_processing", "--direct_num_workers=x"))


@pytest.mark.parametrize(
    ("cores", "available", "workers"),
    [(2, 24 << 30, 2), (16, 16 << 30, 14), (16, 3 << 30, 1), (8, 1 << 30, 1), (4, None, 4)],
)
def test_a_large_input_gets_a_worker_per_core_that_the_memory_holds(cores, available, workers):
    assert room.workers_that_fit(cores, available) == workers


def test_a_larger_input_needs_more_disk_and_its_beam_workers_more_memory():
    small = room.needed(1_000_000, beam_args_for(1_000_000, 2))
    large = room.needed(2 * GB, beam_args_for(2 * GB, 2))
    assert small.disk < large.disk and small.memory < large.memory
    assert large.disk > 2 * GB * 0.5  # the encoded examples alone are about half the CSV


def test_too_little_disk_is_named_with_both_figures_and_the_folder():
    line = room.shortfall(Room(3 * GB, GB), Room(GB, 10 * GB), 2 * GB, Path("/data/out"))
    assert line == (
        "not enough disk for this run: 2.0 GB of CSV needs about 3.0 GB free under "
        "/data/out, and 1.0 GB is free there; free some, or give --output-dir on a larger disk"
    )


def test_too_little_memory_is_named_with_the_way_to_need_less():
    line = room.shortfall(Room(GB, 4 * GB), Room(9 * GB, 3 * GB), 2 * GB, Path("/data/out"))
    assert line.startswith("not enough memory for this run: 2.0 GB of CSV needs about 4.0 GB")
    assert line.endswith("run Beam with fewer workers (--beam-arg=--direct_num_workers=1)")


def test_a_run_that_fits_or_where_memory_is_not_known_is_not_refused():
    need = Room(GB, 4 * GB)
    assert room.shortfall(need, Room(GB, 4 * GB), GB, Path("out")) == ""
    assert room.shortfall(need, Room(GB, None), GB, Path("out")) == ""


def test_the_disk_free_is_read_where_the_output_dir_will_be(tmp_path):
    have = room.free(tmp_path / "not" / "made" / "yet")
    assert abs(have.disk - shutil.disk_usage(tmp_path).free) < 100 << 20
    assert have.memory is not None and have.memory > 0
