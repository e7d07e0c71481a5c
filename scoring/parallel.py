"""A folder of files scored as a Beam pipeline: each file a work item, the output in order.

``wide-deep-score`` scores a folder (a span) this way: in its own process by default, or
as the ``--beam-arg`` ones say (worker processes, or a Flink or Spark runner whose workers
read and write the same folders as the command: the inputs, the model and a parts folder
beside the output, made readable by its user only). Each worker builds the scorer once
(the model loads in ``setup``), scores whole files with the loop the command uses on one
file (``scorer.score_files``), and writes each file's scores, its row sample and any input
error to the parts folder, named by the file's place in the input. The driver then
appends the parts in input order to the output and merges the samples: a row's place and
its chance to be in the skew sample do not depend on which worker scored it.

A bad file is said as the command says it on one file (the worker writes the error, the
driver raises it), not as a worker's traceback; the files not begun by then are skipped,
and nothing is written.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import apache_beam as beam

from data_layout.csv_files import CsvFormatError
from scoring import scorer, skew
from scoring.inputs import ScoringInputError
from scoring.outputs import ScoresWriter

SAMPLE_SUFFIX = ".sample.arrow"
ERROR_SUFFIX = ".error"
# The input errors a worker writes down for the driver to raise, by name.
_SAID = {error.__name__: error for error in (ScoringInputError, CsvFormatError)}


class _ScoreFile(beam.DoFn):
    """Scores one input file into the parts folder: its scores, sample, or error."""

    def __init__(self, spec: scorer.ScorerSpec, parts: str, suffix: str, limit: int) -> None:
        super().__init__()
        self.spec = spec
        self.parts = parts
        self.suffix = suffix
        self.limit = limit  # the driver's sample's bound
        self._scorer: scorer.Scorer | None = None

    def setup(self) -> None:
        """Load the model once per worker: it takes seconds."""
        self._scorer = self.spec.build()

    def process(self, item: tuple[int, str]) -> None:
        """Score file ``item`` (its place in the input, its path) into the parts folder."""
        index, path = item
        parts = Path(self.parts)
        if any(parts.glob(f"*{ERROR_SUFFIX}")):
            return  # the run fails on that file: scoring more would be wasted
        # Seeded by the file: two files' samples are drawn apart.
        sample = skew.RowSample(self.limit, seed=index)
        part = parts / f"{index:05d}"
        try:
            with ScoresWriter(part.with_suffix(self.suffix)) as writer:
                scorer.score_files(self._scorer, [Path(path)], writer, _quiet, sample)
        except tuple(_SAID.values()) as err:
            # Aside, then renamed: the driver never reads half an error.
            aside = parts / f".{index:05d}.{uuid.uuid4().hex[:8]}"
            aside.write_text(f"{type(err).__name__}\n{err}")
            os.replace(aside, part.with_suffix(ERROR_SUFFIX))
            return
        sample.save(part.with_suffix(SAMPLE_SUFFIX))


def _quiet(_: scorer.Scored) -> None:
    """A worker's progress is not said: the driver says what each file held."""


class _Watch(threading.Thread):
    """Says the rows of the files scored so far, as their samples appear, every second."""

    def __init__(self, parts: Path, progress: Callable[[scorer.Scored], None]) -> None:
        super().__init__(daemon=True)
        self.parts, self.progress, self.stopped = parts, progress, threading.Event()
        self.started, self.rows = time.monotonic(), {}

    def run(self) -> None:
        """Each second, and once stopped: the rows of new samples, said if any was new."""
        stopping = False
        while not stopping:
            stopping = self.stopped.wait(1.0)
            new = [p for p in self.parts.glob(f"*{SAMPLE_SUFFIX}") if p.name not in self.rows]
            for path in new:
                self.rows[path.name] = skew.RowSample.seen_in(path)
            if new:
                self.progress(scorer.Scored(sum(self.rows.values()),
                                            time.monotonic() - self.started))  # fmt: skip


def score_folder(
    spec: scorer.ScorerSpec,
    files: Sequence[Path],
    writer: ScoresWriter,
    sample: skew.RowSample,
    beam_args: Sequence[str],
    progress: Callable[[scorer.Scored], None] = _quiet,
) -> scorer.Scored:
    """Score ``files`` as a Beam pipeline run with ``beam_args``, into ``writer`` in order.

    ``progress`` hears the rows scored each time a file is done.
    """
    started = time.monotonic()
    writer.path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".scoring-parts-", dir=writer.path.parent) as parts:
        watch = _Watch(Path(parts), progress)
        watch.start()
        with _stopping(watch), beam.Pipeline(argv=list(beam_args)) as pipeline:
            _ = (
                pipeline
                | "Files" >> beam.Create([(i, str(path)) for i, path in enumerate(files)])
                # Apart from their creation, so that each worker takes files of its own.
                | "Spread" >> beam.Reshuffle()
                | "Score" >> beam.ParDo(_ScoreFile(spec, parts, writer.path.suffix, sample.limit))
            )
        done = _gather(Path(parts), files, writer, sample)
    done.seconds = time.monotonic() - started
    return done


@contextmanager
def _stopping(watch: _Watch) -> Iterator[None]:
    """Stop ``watch`` at the end of the block, whatever ends it."""
    try:
        yield
    finally:
        watch.stopped.set()
        watch.join()


def _gather(
    parts: Path, files: Sequence[Path], writer: ScoresWriter, sample: skew.RowSample
) -> scorer.Scored:
    """Raise the first file's error, else append each file's part and sample, in order."""
    for index in range(len(files)):
        error = (parts / f"{index:05d}").with_suffix(ERROR_SUFFIX)
        if error.exists():
            kind, message = error.read_text().split("\n", 1)
            raise _SAID[kind](message)
    done = scorer.Scored()
    for index, path in enumerate(files):
        part = parts / f"{index:05d}"
        found = skew.RowSample.load(part.with_suffix(SAMPLE_SUFFIX))
        sample.merge(found)
        done.files[str(path)] = found.seen
        done.rows += found.seen
        if found.seen:
            writer.append(part.with_suffix(writer.path.suffix))
    return done
