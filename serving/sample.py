"""The rows the Evaluator scored that the serving check asks the served model again.

The Evaluator keeps the first test rows (serialized ``tf.Example``s) with the scores it
computed for them, beside its evaluation; the serving check reads them back. One file,
on the pipeline root's file system (``data_layout.files``).
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass

from data_layout import files

SAMPLE_FILE = "serving_sample.json"
# Enough rows for a 100-row request and for the rows' kinds to vary; few enough that
# the Evaluator's extra scoring, when it scores nothing else, is a single batch.
SAMPLE_ROWS = 100


@dataclass(frozen=True)
class ScoredSample:
    """Serialized examples, the candidate's score of each, and the output that holds it."""

    examples: tuple[bytes, ...]
    scores: tuple[float, ...]
    prediction_key: str


def write(folder: str, sample: ScoredSample) -> None:
    """Keep ``sample`` in ``folder`` (the evaluation's), its first ``SAMPLE_ROWS`` rows."""
    body = {
        "prediction_key": sample.prediction_key,
        "examples": [base64.b64encode(e).decode() for e in sample.examples[:SAMPLE_ROWS]],
        "scores": [float(s) for s in sample.scores[:SAMPLE_ROWS]],
    }
    files.write_text(os.path.join(folder, SAMPLE_FILE), json.dumps(body))


def read(folder: str) -> ScoredSample | None:
    """What ``write`` kept in ``folder``; None where the Evaluator kept none."""
    path = os.path.join(folder, SAMPLE_FILE)
    if not files.exists(path):
        return None
    body = json.loads(files.read_text(path))
    return ScoredSample(
        examples=tuple(base64.b64decode(e) for e in body["examples"]),
        scores=tuple(body["scores"]),
        prediction_key=body["prediction_key"],
    )
