"""Which model scores, and the loop from input blocks to written scores.

The model is the serving one (the newest version under ``<output-dir>/serving``) unless
``--model`` names a version or a SavedModel folder (a run's candidate). It is called
through ``serving_default`` on serialized examples, as the Evaluator scores, in batches
of ``BATCH`` rows; a row's score is the positive class's probability, its predicted
label 1 at or above the threshold.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

import datasets
from data_layout import serving_layout
from data_layout.csv_examples import ColumnKind, encode_for_model, schema_kinds
from modules.features import DatasetDeclaration
from scoring import cells, inputs
from scoring.outputs import ScoresWriter
from scoring.skew import RowSample

if TYPE_CHECKING:
    from data_layout.entity_history import EntityHistory

BATCH = 8_192
PREDICTED_LABEL = "predicted_label"


class ModelChoiceError(ValueError):
    """No model where the choice points."""


@dataclass(frozen=True)
class Model:
    """A SavedModel folder, and how the summary names it."""

    path: str
    name: str


def choose_model(output_dir: Path, asked: str | None) -> Model:
    """The serving model, the version ``asked`` names, or the SavedModel folder it is."""
    base = output_dir / serving_layout.SERVING_FOLDER
    versions = serving_layout.versions(str(base))
    if asked is None:
        if not versions:
            raise ModelChoiceError(
                f"no serving model under {base} yet: run the pipeline first, or name a "
                "SavedModel folder with --model"
            )
        return Model(versions[-1].path, f"serving version {versions[-1].number}")
    if asked.isdigit():
        for version in versions:
            if version.number == int(asked):
                return Model(version.path, f"serving version {asked}")
        known = ", ".join(str(v.number) for v in versions) or "none"
        raise ModelChoiceError(f"no version {asked} under {base} (versions: {known})")
    if (Path(asked) / "saved_model.pb").is_file():
        return Model(asked, asked)
    raise ModelChoiceError(f"--model {asked}: neither a version under {base} nor a SavedModel")


@dataclass(frozen=True)
class ScorerSpec:
    """What a process needs to build a ``Scorer``: small and picklable (Beam ships it)."""

    dataset: str
    model: Model
    keep: tuple[str, ...]  # the dataset's entity column first, where it has one
    threshold: float
    # The CSV files of rows the model learned from, where it reads the entity's history.
    history: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        dataset: str,
        model: Model,
        keep: Sequence[str],
        threshold: float,
        history: Sequence[Path] = (),
    ) -> ScorerSpec:
        """The spec scoring with ``model``, keeping the entity column and ``keep``.

        ``history``: the files each entity's earlier periods are read from, where the
        dataset declares ``entity_history``.
        """
        declared = datasets.load(dataset)
        entity = declared.entity
        kept = tuple(dict.fromkeys([*([entity] if entity else []), *keep]))
        files = tuple(str(p) for p in history) if declared.entity_history else ()
        return cls(dataset, model, kept, threshold, files)

    def build(self) -> Scorer:
        """The Scorer, its model loaded (and the entities' history read)."""
        declared = datasets.load(self.dataset)
        columns = declared.history_columns()
        history = None
        if columns:  # pandas loads only for a model that reads an entity's history
            from data_layout import entity_history

            history = entity_history.of_files(columns, self.history)
        return Scorer(
            declared,
            schema_kinds(datasets.schema_path(self.dataset)),
            self.keep,
            self.threshold,
            serving_default(self.model, declared.prediction_key),
            history,
        )


@dataclass
class Scored:
    """What a scoring run did: rows and seconds per file, and in all."""

    rows: int = 0
    seconds: float = 0.0
    files: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Scorer:
    """The model's scores of blocks, and the columns written beside them."""

    dataset: DatasetDeclaration
    kinds: dict[str, ColumnKind]
    keep: tuple[str, ...]
    threshold: float
    predict: Callable[[list[bytes]], np.ndarray]
    # Each entity's earlier periods, where the model reads them (None: it does not).
    history: EntityHistory | None = None

    @property
    def needed(self) -> tuple[str, ...]:
        """The columns an input must hold: the model's raw columns and those kept.

        Not the history's columns, computed here; its entity and period columns instead.
        """
        columns = self.dataset.raw_feature_columns()
        if self.history is not None:
            added = self.history.columns
            columns = (*(c for c in columns if c not in added.names()), added.entity, added.period)
        return tuple(dict.fromkeys((*columns, *self.keep)))

    def typed(self, block: inputs.Block) -> pa.RecordBatch:
        """The model's columns of ``block`` as the value lists training reads."""
        if self.history is not None:  # what each row's entity's earlier periods say
            block = dataclasses.replace(block, cells=self.history.add(block.cells))
        return cells.typed(block, self.dataset.raw_feature_columns(), self.kinds)

    def scored(self, block: inputs.Block, lists: pa.RecordBatch) -> pa.RecordBatch:
        """The kept columns of ``block``, its rows' (``lists``) probabilities and labels."""
        serialized = encode_for_model(lists)
        scores = np.concatenate(
            [self.predict(serialized[i : i + BATCH]) for i in range(0, len(serialized), BATCH)]
        )
        kept = [block.cells.column(c) for c in self.keep]
        return pa.RecordBatch.from_arrays(
            [*kept, pa.array(scores, pa.float64()), pa.array((scores >= self.threshold) * 1)],
            [*self.keep, self.dataset.prediction_key, PREDICTED_LABEL],
        )


def score_files(
    scorer: Scorer,
    files: Sequence[Path],
    writer: ScoresWriter,
    progress: Callable[[Scored], None],
    sample: RowSample,
) -> Scored:
    """Score every row of ``files`` in order into ``writer``, offering each to ``sample``."""
    done = Scored()
    started = time.monotonic()
    for path in files:
        done.files[str(path)] = 0
        for block in inputs.blocks(path, scorer.needed):
            lists = scorer.typed(block)
            writer.write(scorer.scored(block, lists))
            sample.add(lists)
            done.rows += block.cells.num_rows
            done.files[str(path)] += block.cells.num_rows
            done.seconds = time.monotonic() - started
            progress(done)
    return done


def serving_default(model: Model, key: str) -> Callable[[list[bytes]], np.ndarray]:
    """The model's ``serving_default`` as a function of serialized examples to scores."""
    import tensorflow as tf

    signature = tf.saved_model.load(model.path).signatures["serving_default"]
    return lambda rows: signature(examples=tf.constant(rows))[key].numpy().ravel()
