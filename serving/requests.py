"""The Evaluator's rows in TF Serving's REST request shapes, and the scores read from answers.

Three shapes, as clients send them (TF Serving's "RESTful API" page):

- the row form through the raw-column signature: ``{"instances": [{"fare": 12.5, ...}]}``;
- the columnar form through it: ``{"inputs": {"fare": [12.5, ...], ...}}``;
- serialized ``tf.Example``s through ``serving_default``: ``{"instances": [{"b64": ...}]}``.

A missing value is sent as training reads it: NaN for a number, "" for text. An integer
column has no such value, so a row missing one cannot be sent in the raw forms (the
signature takes one value per row); it is asked through ``serving_default`` only.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

# The dtypes of the raw signature's inputs, as the model server's metadata names them.
FLOAT, INTEGER, TEXT = ("DT_FLOAT", "DT_DOUBLE"), ("DT_INT64", "DT_INT32"), ("DT_STRING",)


class AnswerShapeError(ValueError):
    """An answer that is not one score per row under the signature's output."""


@dataclass(frozen=True)
class Request:
    """A request body, the rows of the sample it asks about, and its form's name."""

    form: str
    body: dict[str, Any]
    rows: tuple[int, ...]


def _text(value: bytes) -> str | dict[str, str]:
    """Text as JSON carries it; bytes that are not UTF-8 as ``{"b64": ...}``."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(value).decode()}


def _cell(feature: tf.train.Feature | None, dtype: str) -> Any:
    """A column's value in a request: NaN or "" where missing; None where it cannot be sent."""
    kind = feature.WhichOneof("kind") if feature is not None else None
    values = list(getattr(feature, kind).value) if kind else []
    if dtype in TEXT:
        return _text(values[0]) if values else ""
    if dtype in FLOAT:
        # The float32 the example holds, written as its shortest text (3.85, not
        # 3.8499999046325684): the server reads it back as the same float32.
        return float(str(np.float32(values[0]))) if values else math.nan
    return int(values[0]) if values and kind == "int64_list" else None


def raw_rows(
    examples: Sequence[bytes], inputs: Mapping[str, str], columns: Mapping[str, str]
) -> dict[int, dict[str, Any]]:
    """Each example that the raw signature can take, by its index: {argument: value}.

    ``inputs``: the signature's arguments and dtypes (from the model server's metadata);
    ``columns``: each argument's raw column (``features.serving_argument``).
    """
    rows = {}
    for index, serialized in enumerate(examples):
        feature = tf.train.Example.FromString(serialized).features.feature
        row = {arg: _cell(feature.get(columns[arg]), dtype) for arg, dtype in inputs.items()}
        if all(value is not None for value in row.values()):
            rows[index] = row
    return rows


def sample_requests(
    examples: Sequence[bytes], raw: Mapping[int, Mapping[str, Any]], raw_signature: str
) -> list[Request]:
    """The three forms, each asking about every row it can carry."""
    indices = tuple(sorted(raw))
    found = [
        Request(
            "serving_default (base64 tf.Examples)",
            {"signature_name": "serving_default",
             "instances": [{"b64": base64.b64encode(e).decode()} for e in examples]},
            tuple(range(len(examples))),
        )
    ]  # fmt: skip
    if indices:
        found += [
            Request(
                f"{raw_signature} (rows)",
                {"signature_name": raw_signature, "instances": [raw[i] for i in indices]},
                indices,
            ),
            Request(
                f"{raw_signature} (columns)",
                {
                    "signature_name": raw_signature,
                    "inputs": {arg: [raw[i][arg] for i in indices] for arg in raw[indices[0]]},
                },
                indices,
            ),  # fmt: skip
        ]
    return found


def _score(value: Any, key: str) -> float:
    """One row's score: a number, a one-number list, or an object holding it under ``key``."""
    if isinstance(value, dict):
        if key not in value:
            raise AnswerShapeError(f"a row's answer has no {key!r}: {sorted(value)}")
        value = value[key]
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise AnswerShapeError(f"a row's answer is not one score: {str(value)[:80]}")


def scores_of(answer: Mapping[str, Any], key: str, rows: int) -> list[float]:
    """The scores in a ``:predict`` answer (either form) of ``rows`` rows; AnswerShapeError."""
    found = answer.get("predictions", answer.get("outputs"))
    if isinstance(found, dict) and "outputs" in answer:
        if key not in found:
            raise AnswerShapeError(f"the answer has no output {key!r}: {sorted(found)}")
        found = found[key]
    if not isinstance(found, list) or len(found) != rows:
        size = len(found) if isinstance(found, list) else type(found).__name__
        raise AnswerShapeError(f"{rows} rows asked, the answer holds {size}")
    return [_score(value, key) for value in found]
