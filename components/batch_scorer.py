"""BatchScorer: the serving model scores a span of the data root, on any orchestrator.

The step of the scoring pipeline (``pipeline_def.pipeline.create_scoring_pipeline``):
batch prediction on the cluster, with output people read (BulkInferrer writes
PredictionLog protos). It reads the span ``span`` names ("latest": the newest complete
one) under ``data_root`` through TFX's file layer (the object store, on Kubeflow), and
scores its rows with the model ServingBaseline copied, as ``wide-deep-score`` does (the
``scoring`` room: one code path, so the two cannot disagree). The rows go to
``scores.csv`` in the ``scores`` artifact, in input order, with the dataset's entity
column, the positive class's probability and the predicted label; their skew against the
model's training data goes to the ``skew`` artifact (``skew.json`` and the scored rows'
statistics). Both record the span, the serving version, the rows scored and the features
over their threshold, so ML-Metadata links a span's scores to the model that made them.

With nothing serving, or a span that holds no row, the step fails with one line saying so.
"""

# No `from __future__ import annotations`: TFX's @component reads the real type hints.
import logging
import os
import tempfile
from pathlib import Path

from tfx import v1 as tfx
from tfx.utils import path_utils
from tfx.v1.dsl.components import InputArtifact, OutputArtifact, Parameter

import datasets
from components.serving_baseline import serving_version
from data_layout import csv_files, spans
from data_layout.csv_files import CsvFormatError
from data_layout.properties import SERVING_VERSION
from scoring import scorer, skew
from scoring.artifacts import Scores, ScoringSkew
from scoring.inputs import ScoringInputError
from scoring.names import THRESHOLD
from scoring.outputs import ScoresWriter

SCORES_FILE = "scores.csv"
SCORED_ROWS, SPAN, OVER = "scored_rows", "span", "over"
fileio = tfx.dsl.io.fileio


def span_files(data_root: str, span: str) -> tuple[int, list[str]]:
    """The span ``span`` names under ``data_root``, and its data files in name order.

    "latest" names the newest complete span, as for ExampleGen.
    """
    window = spans.read_root(fileio, data_root, csv_files.PATTERN, spans.parse_span(span), 1)
    folder = os.path.join(data_root, window.folders[window.span])
    names = spans.data_names(fileio, folder, csv_files.PATTERN)
    return window.span, [os.path.join(folder, name) for name in names]


def local_copies(files: list[str], folder: Path) -> dict[Path, str]:
    """Where the scorer reads each of ``files``: itself if local, else a copy in ``folder``.

    Keyed by the path read, valued by the file's own name (a URI on an object store).
    """
    local = {}
    for number, path in enumerate(files):
        if "://" not in path:
            local[Path(path)] = path
            continue
        # Numbered: two shards of one name in different folders stay apart.
        copy = folder / f"{number:05d}-{os.path.basename(path)}"
        fileio.copy(path, str(copy))
        local[copy] = path
    return local


def _score(
    rows: scorer.Scorer, local: dict[Path, str], writer: ScoresWriter, sample: skew.RowSample
) -> scorer.Scored:
    """Score the files; a bad input is named by its own name, not the copy's."""
    try:
        return scorer.score_files(rows, list(local), writer, lambda _: None, sample)
    except (ScoringInputError, CsvFormatError) as err:
        said = str(err)
        for copy, name in local.items():
            said = said.replace(str(copy), name)
        raise type(err)(said) from err


def _record(artifact: tfx.dsl.Artifact, span: int, version: str, report: skew.SkewReport) -> None:
    artifact.set_int_custom_property(SPAN, span)
    artifact.set_string_custom_property(SERVING_VERSION, version)
    artifact.set_int_custom_property(SCORED_ROWS, report.scored_rows)
    artifact.set_string_custom_property(OVER, ",".join(m.feature for m in report.over))


@tfx.dsl.components.component
def BatchScorer(  # noqa: N802 - TFX names the component after the function
    model: InputArtifact[tfx.types.standard_artifacts.Model],
    data_root: Parameter[str],
    span: Parameter[str],
    dataset: Parameter[str],
    scores: OutputArtifact[Scores],
    skew_report: OutputArtifact[ScoringSkew],
) -> None:
    """Score span ``span`` of ``data_root`` with ``model``; the scores and their skew."""
    version = serving_version(model)
    if not version:
        raise ValueError("no model serves yet: run the training pipeline first")
    number, files = span_files(data_root, span)
    model_dir = path_utils.serving_model_path(model.uri)
    rows = scorer.ScorerSpec.of(dataset, scorer.Model(model_dir, version), (), THRESHOLD).build()
    sample = skew.RowSample()
    with tempfile.TemporaryDirectory() as copies:
        local = local_copies(files, Path(copies))
        with ScoresWriter(Path(scores.uri) / SCORES_FILE) as writer:
            done = _score(rows, local, writer, sample)
    if done.rows == 0:
        raise ValueError(f"span {number} of {data_root} holds no row to score")
    report, statistics = skew.measure(
        datasets.schema_path(dataset), skew.training_statistics(model_dir), sample
    )
    skew.keep(Path(skew_report.uri), report, statistics)
    for artifact in (scores, skew_report):
        _record(artifact, number, version, report)
    logging.info("Scored %d rows of span %d with serving version %s", done.rows, number, version)
    for line in skew.lines(report):
        logging.info("%s", line)
