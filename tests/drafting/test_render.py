"""The written draft: declarations formatted as ruff formats them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from drafted import drafted, drafted_source

from drafting import render, rules
from modules import features


def test_a_long_declaration_is_split_as_ruff_formats_it():
    short = 'Numeric("Age", Scaling.Z, bucket_count=10, piecewise_bins=20)'
    assert render._call(short, "        ") == [f"        {short},"]
    long = 'Numeric("Income", Scaling.LOG_Z, missing_indicator=True, bucket_count=10, piecewise_bins=20)'  # noqa: E501
    assert render._call(long, "        ") == [
        "        Numeric(",
        '            "Income", Scaling.LOG_Z, missing_indicator=True, bucket_count=10, piecewise_bins=20',  # noqa: E501
        "        ),",
    ]
    longer = long.replace("Income", "Income of the whole household")
    assert render._call(longer, "        ")[1:3] == [
        '            "Income of the whole household",',
        "            Scaling.LOG_Z,",
    ]


def test_a_draft_declares_the_slice_bound_on_its_slices():
    labels = [i % 3 == 0 for i in range(400)]
    dataset = drafted({"kind": ["yes" if y else "no" for y in labels]}, labels)
    assert dataset.slices == ("kind",)
    assert dataset.slice_max_auc_drop == rules.SLICE_MAX_AUC_DROP == 0.05
    assert dataset.slice_min_rows == features.SLICE_MIN_ROWS == 100


def test_a_draft_without_slices_declares_no_slice_bound():
    labels = [i % 3 == 0 for i in range(400)]
    ids = [f"id{i}" for i in range(400)]  # unique: left out, no slice
    dataset = drafted({"row": ids}, labels)
    assert dataset.slices == () and dataset.slice_max_auc_drop is None


def test_a_draft_imports_the_kinds_of_numbers_and_dates_written_as_text():
    labels = [i % 3 == 0 for i in range(400)]
    amounts = [f"${1.05**i:,.2f}" for i in range(400)]
    days = [f"{1 + i % 28:02d}.{1 + i % 12:02d}.2024" for i in range(400)]
    dataset = drafted({"amount": amounts, "day": days}, labels)
    assert dataset.numeric[0].text is features.NumberText.DECIMAL_POINT
    assert dataset.timestamps == (
        features.Timestamp("day", features.TimeFormat.DMY, time_of_day=False),
    )


def test_a_column_name_with_a_comma_is_split_at_its_arguments_not_inside_it():
    source = 'Numeric("Income, gross, of the whole household", Scaling.LOG_Z, bucket_count=10, piecewise_bins=20)'  # noqa: E501
    lines = render._call(source, "        ")
    assert lines[1:3] == [
        '            "Income, gross, of the whole household",',
        "            Scaling.LOG_Z,",
    ]
    ast.parse("(\n" + "\n".join(lines) + "\n)")


@pytest.mark.slow  # starts ruff
def test_a_draft_of_long_names_with_commas_is_valid_python_as_ruff_formats_it(tmp_path):
    labels = [i % 3 == 0 for i in range(400)]
    kinds = {
        f"Kind {n}, as the survey of {n} households put it": [f"k{i % (2 + n)}" for i in range(400)]
        for n in range(6)
    }  # fmt: skip
    dataset = drafted(kinds, labels)
    assert len(dataset.slices) > 1 and all(", as the survey" in s for s in dataset.slices)
    written = tmp_path / "draft.py"
    written.write_text(drafted_source(kinds, labels))
    ruff = Path(sys.executable).parent / "ruff"
    checked = subprocess.run(
        [str(ruff), "format", "--check", "--diff", "--line-length", "100", str(written)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout
