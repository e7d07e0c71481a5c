"""The written draft: declarations formatted as ruff formats them."""

from __future__ import annotations

from pipeline_ops.drafting import render


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
