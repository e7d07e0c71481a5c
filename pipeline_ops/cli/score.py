"""Score a table with the pushed model: rows in, the model's scores out.

    wide-deep-score INPUT OUTPUT [--dataset NAME] [--output-dir DIR] [--metadata URI]
                    [--model VERSION|PATH] [--keep COLUMN ...] [--threshold P]
                    [--fail-on-skew] [--beam-arg ARG ...]

INPUT is a CSV file (``.csv``, ``.csv.gz``), a folder of them (a span), or JSON lines
(``.jsonl``, one object per line, as REST clients send rows). Cells are read as
ExampleGen reads them for training, each column of the kind the curated schema gives it;
column order, extra columns, a missing label and quoting do not matter. OUTPUT, by its
extension (``.csv``, ``.parquet``, ``.jsonl``), holds the rows in input order: the
dataset's entity column and each ``--keep`` column as read, the positive class's
probability under the serving signature's name (the taxi's ``tip_probability``), and
``predicted_label``, 1 at or above ``--threshold`` (0.5, the threshold of the review's
binary accuracy). The model is the serving one (the newest version under
``<output-dir>/serving``), or ``--model``: a version there, or a SavedModel folder (a
run's candidate).

A folder is scored as a Beam pipeline (``scoring/parallel.py``), a file per work item, in
this process, or as the ``--beam-arg`` ones say (the pipeline's own: worker processes,
or a Flink or Spark runner whose workers see the folder and the output's). The output
holds the rows in input order all the same. One file is scored in this process, with a
progress line.

The scored rows are then compared with the data the model learned from, feature by
feature, by the skew comparators of the dataset's schema (``scoring/skew.py``);
the last lines name each feature over its threshold. The run, its skew and the model it
scored with are recorded in ML-Metadata, where ``wide-deep-review`` finds them; the
report and the scored rows' statistics are kept under ``<output-dir>/scoring/``.

Exit codes: 0 scored; 2 bad input, and nothing written; 3 with ``--fail-on-skew``, scored
but skewed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import datasets
from data_layout.csv_files import CsvFormatError
from pipeline_def.project_paths import data_root_of, output_dir_for
from pipeline_ops import commands
from pipeline_ops.cli import scaffold
from scoring.names import THRESHOLD

if TYPE_CHECKING:
    from scoring.outputs import ScoresWriter
    from scoring.scorer import Scored, ScorerSpec
    from scoring.skew import RowSample, SkewReport


def _parser() -> argparse.ArgumentParser:
    parser = scaffold.parser_for(commands.SCORE, __doc__)
    parser.add_argument("input", type=Path, help="a CSV or JSON-lines file, or a folder of them")
    parser.add_argument("output", type=Path, help="the scores: a .csv, .parquet or .jsonl file")
    scaffold.add_dataset_option(parser)
    scaffold.add_store_options(parser)
    parser.add_argument("--model", default=None, help="a serving version, or a SavedModel folder")
    parser.add_argument(
        "--keep", action="append", default=[], metavar="COLUMN", help="a column to keep"
    )
    parser.add_argument("--threshold", type=float, default=THRESHOLD, help="default: %(default)s")
    parser.add_argument(
        "--history", type=Path, default=None, metavar="PATH",
        help="where the model reads each entity's earlier periods (a dataset with "
        "entity_history): the rows it learned from, a CSV file or a data root "
        "(default: the dataset's data root)",
    )  # fmt: skip
    parser.add_argument(
        "--fail-on-skew",
        action="store_true",
        help=f"exit {commands.EXIT_SKEWED} when a feature's skew is over its threshold",
    )
    # In this process by default: measured on 2 cores, worker processes took as long (the
    # model's calls use every core already) with each its own model (2.7 GiB, not 1.1).
    scaffold.add_beam_option(parser, "scoring a folder", "in this process")
    return parser


# Off a terminal (a cron log), a progress line at most this often.
PROGRESS_EVERY_S = 30.0


class Progress:
    """Rows scored so far: one line rewritten on a terminal, else a line every 30 s."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.said_at = 0.0

    def __call__(self, done: Scored) -> None:
        """Say how far ``done`` has come, where it is time to."""
        rate = done.rows / max(done.seconds, 1e-9)
        line = f"  {done.rows:,} rows scored, {rate:,.0f} a second"
        if self.stream.isatty():
            print(f"\r{line}", end="", file=self.stream)
        elif done.seconds - self.said_at >= PROGRESS_EVERY_S:
            print(line, file=self.stream, flush=True)
            self.said_at = done.seconds


def score(args: argparse.Namespace) -> int:
    """Score ``args.input`` into ``args.output``; the exit code."""
    # TensorFlow and TFX load here, after the scaffold's Keras choice (startup/process.py).
    from scoring import inputs, outputs, scorer, skew

    files = inputs.input_files(args.input)
    output = outputs.checked(args.output, files)
    args.output_dir = output_dir_for(args.dataset, args.output_dir)
    model = scorer.choose_model(args.output_dir, args.model)
    spec = scorer.ScorerSpec.of(args.dataset, model, args.keep, args.threshold, _history(args))
    sample = skew.RowSample()
    with outputs.ScoresWriter(output) as writer:
        done = _score(args, spec, files, writer, sample)
        if done.rows == 0:
            raise inputs.ScoringInputError(f"{args.input}: no rows to score")
    say_files(done)
    rate = done.rows / max(done.seconds, 1e-9)
    print(
        f"Scored {done.rows:,} rows with {model.name} in {done.seconds:.1f} s "
        f"({rate:,.0f} a second): {output}"
    )
    report = skew_report(args, model.path, sample)
    if report.over and args.fail_on_skew:
        return commands.EXIT_SKEWED
    return commands.EXIT_OK


def _history(args: argparse.Namespace) -> list[Path]:
    """The files each entity's earlier periods are read from; none where the model reads none."""
    from scoring import inputs

    if not datasets.load(args.dataset).entity_history:
        return []
    return inputs.history_files(args.history or data_root_of(args.dataset))


def _score(
    args: argparse.Namespace,
    spec: ScorerSpec,
    files: list[Path],
    writer: ScoresWriter,
    sample: RowSample,
) -> Scored:
    """A file scored here; a folder's files as a Beam pipeline. A progress line either way."""
    from scoring import parallel, scorer

    progress = Progress(sys.stderr)
    beam_args = scaffold.checked_beam_args(args.beam_arg or ())  # refused on a file too
    if args.input.is_dir():
        where = " ".join(beam_args) or "in this process"
        count = f"{len(files)} file{'s' if len(files) > 1 else ''}"
        print(f"Scoring {count} as a Beam pipeline ({where})", flush=True)
        done = parallel.score_folder(spec, files, writer, sample, beam_args, progress)
    else:
        done = scorer.score_files(spec.build(), files, writer, progress, sample)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return done


# More files than this are summed up in a line, not listed.
LISTED_FILES = 10


def say_files(done: Scored) -> None:
    """A line per file scored, or one for them all when there are many."""
    if len(done.files) <= LISTED_FILES:
        for path, rows in done.files.items():
            print(f"  {path}  {rows:,} rows")
        return
    counts = done.files.values()
    print(f"  {len(done.files)} files of {min(counts):,} to {max(counts):,} rows")


def skew_report(args: argparse.Namespace, model_path: str, sample: RowSample) -> SkewReport:
    """The skew of the scored rows, said, kept and recorded with the run."""
    from pipeline_ops.scoring.keeping import keep_report
    from scoring import skew

    report, statistics = skew.measure(
        datasets.schema_path(args.dataset), skew.training_statistics(model_path), sample
    )
    for line in skew.lines(report):
        print(line)
    keep_report(scaffold.store_of(args), args, model_path, report, statistics)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = _parser().parse_args(argv)

    def body() -> int:
        from scoring import inputs, outputs, scorer

        refused = (
            inputs.ScoringInputError,
            scorer.ModelChoiceError,
            outputs.OutputPathError,
            scaffold.BeamArgsError,
        )
        with scaffold.bad_input(*refused, CsvFormatError, datasets.UnknownDatasetError):
            return score(args)

    return scaffold.execute(body)


if __name__ == "__main__":
    sys.exit(main())
