"""Serialized examples written back as the tables people score: CSV rows and JSON lines."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import tensorflow as tf


def cells_of(example: bytes) -> dict[str, str | int | float]:
    """An example's values as a table holds them: text, integers, and each float written
    so that it reads back as the same float32."""
    row: dict[str, str | int | float] = {}
    for name, feature in tf.train.Example.FromString(example).features.feature.items():
        kind = feature.WhichOneof("kind")
        values = list(getattr(feature, kind).value) if kind else []
        if not values:
            continue
        value = values[0]
        if kind == "bytes_list":
            row[name] = value.decode()
        elif kind == "float_list":
            row[name] = float(str(np.float32(value)))
        else:
            row[name] = int(value)
    return row


def write_csv(path: Path, rows: Sequence[dict], columns: Sequence[str]) -> Path:
    """``rows`` as a CSV of ``columns`` (an absent value an empty cell), every cell quoted."""
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, list(columns), quoting=csv.QUOTE_ALL, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_jsonl(path: Path, rows: Sequence[dict]) -> Path:
    """``rows`` as JSON lines, an absent value left out of its object."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path
