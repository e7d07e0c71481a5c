"""The serving check: a candidate asked, as a model server serves it, what the Evaluator asked.

A model server starts on the candidate (``model_server``); every request form asks about
the Evaluator's rows (``requests``), and each answer must be one score per row, equal to
the Evaluator's score of that row to ``TOLERANCE``. Then the latency of requests of one
row and of ``SAMPLE_ROWS`` rows. The first thing that fails is the check's one line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
import tensorflow as tf

from serving import model_server, requests
from serving.sample import SAMPLE_ROWS, ScoredSample

TOLERANCE = 1e-5
RAW_SIGNATURE = "serving_raw"
# Requests timed per size: enough for a p99 that is not the slowest single request alone
# at one row, and a few seconds in all.
TIMED = {1: 200, SAMPLE_ROWS: 20}


class ServingCheckError(RuntimeError):
    """The candidate did not load, or answered in another shape or with other scores."""


@dataclass(frozen=True)
class ServingFigures:
    """What the check measured: which server, load time, latency, the SavedModel's size."""

    server: str
    load_s: float
    p50_ms: float
    p99_ms: float
    p50_ms_100_rows: float
    p99_ms_100_rows: float
    model_bytes: int
    rows_checked: dict[str, int]

    def as_dict(self) -> dict[str, object]:
        """The figures as plain data (run_summary.json's ``serving_check``, with ``passed``)."""
        return asdict(self)


def model_bytes(model_dir: str) -> int:
    """The SavedModel's size: every file under ``model_dir``."""
    return sum(
        tf.io.gfile.stat(os.path.join(folder, name)).length
        for folder, _, names in tf.io.gfile.walk(model_dir)
        for name in names
    )


def _raw_inputs(server: model_server.Server) -> dict[str, str]:
    """The raw-column signature's arguments and dtypes, from the server's metadata."""
    defs = server.get("/metadata")["metadata"]["signature_def"]["signature_def"]
    if RAW_SIGNATURE not in defs:
        return {}
    return {name: info["dtype"] for name, info in defs[RAW_SIGNATURE]["inputs"].items()}


def _ask(server: model_server.Server, request: requests.Request, sample: ScoredSample) -> None:
    """One request form, its answer compared with the Evaluator's scores of its rows."""
    try:
        answer = server.predict(request.body)
        got = np.array(requests.scores_of(answer, sample.prediction_key, len(request.rows)))
    except (model_server.ServerError, requests.AnswerShapeError) as err:
        raise ServingCheckError(f"{request.form}: {err}") from None
    wanted = np.array([sample.scores[i] for i in request.rows])
    gap = np.abs(got - wanted)
    if not np.all(gap <= TOLERANCE):
        worst = int(np.argmax(np.where(np.isnan(gap), np.inf, gap)))
        raise ServingCheckError(
            f"{request.form}: row {request.rows[worst]} scored {got[worst]:.6f}, "
            f"the Evaluator {wanted[worst]:.6f} ({int(np.sum(~(gap <= TOLERANCE)))} of "
            f"{len(gap)} rows differ beyond {TOLERANCE:g})"
        )


def _latency_ms(server: model_server.Server, body: dict, rows: list, count: int) -> list[float]:
    """Milliseconds per request of ``rows`` (the row form), over ``count`` requests."""
    seconds = []
    for _ in range(count):
        started = time.perf_counter()
        server.predict({**body, "instances": rows})
        seconds.append(time.perf_counter() - started)
    return [s * 1000 for s in seconds]


def _timing_request(forms: list[requests.Request]) -> tuple[dict, list]:
    """What latency is timed with: its body without the rows, and the rows.

    The raw row form where any row fits it, as JSON clients send; else base64 examples.
    """
    chosen = next((r for r in forms if r.form.endswith("(rows)")), forms[0])
    body = {k: v for k, v in chosen.body.items() if k != "instances"}
    return body, chosen.body["instances"]


def check(model_dir: str, sample: ScoredSample, columns: Mapping[str, str]) -> ServingFigures:
    """Serve ``model_dir`` and ask it every form of ``sample``; ServingCheckError with why.

    ``columns``: each raw-signature argument's raw column (``features.serving_argument``).
    """
    try:
        with model_server.serving(model_dir) as server:
            inputs = _raw_inputs(server)
            raw = requests.raw_rows(sample.examples, inputs, columns) if inputs else {}
            forms = requests.sample_requests(sample.examples, raw, RAW_SIGNATURE)
            for request in forms:
                _ask(server, request, sample)
            body, rows = _timing_request(forms)
            one, many = (
                _latency_ms(server, body, (rows * size)[:size], count)
                for size, count in TIMED.items()
            )
    except model_server.ServerError as err:
        raise ServingCheckError(str(err)) from None
    return ServingFigures(
        server=server.kind,
        load_s=round(server.load_s, 3),
        p50_ms=round(float(np.percentile(one, 50)), 3),
        p99_ms=round(float(np.percentile(one, 99)), 3),
        p50_ms_100_rows=round(float(np.percentile(many, 50)), 3),
        p99_ms_100_rows=round(float(np.percentile(many, 99)), 3),
        model_bytes=model_bytes(model_dir),
        rows_checked={r.form: len(r.rows) for r in forms},
    )
