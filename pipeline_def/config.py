"""The one typed, frozen configuration the pipeline is built from.

Every setting and its default lives here. Runners build a ``PipelineConfig`` (paths,
runner-specific Beam arguments, the metadata store) and hand it to
``create_pipeline``; nothing else carries settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from data_layout import csv_files, spans
from data_layout.splits import TEST, TRAIN, VALIDATION
from modules import datasets
from modules.hparams import HParams
from pipeline_def import node_ids

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_ROOT = PROJECT_ROOT / "data"
DEFAULT_OUTPUT_DIR = PROJECT_ROOT / "outputs"
DEFAULT_PIPELINE_NAME = datasets.load(datasets.DEFAULT).pipeline_name


def data_root_of(dataset: str) -> Path:
    """Where ``dataset``'s data lives when no data root is given: ``data/<dataset>/``.

    One rule for the local runner, the Kubeflow harness and the draft command: a data
    root is a folder of CSV files, or of span folders (``span-<N>/``) of CSV files.
    """
    return DEFAULT_DATA_ROOT / dataset


def sample_csv(dataset: str) -> Path:
    """The sample that ships with ``dataset``, in its data root."""
    return data_root_of(dataset) / f"{dataset}.csv"


def curated_schema_of(dataset: str) -> str:
    """``dataset``'s curated schema, relative to the folder holding the project's packages."""
    return datasets.schema_path(dataset).relative_to(PROJECT_ROOT).as_posix()


def output_dir_for(dataset: str, output_dir: Path) -> Path:
    """Where a run keeps its store, artifacts and pushed models.

    Datasets other than the default one keep theirs in a folder of their own under
    the default output dir, so that no model is judged against another table's.
    """
    if dataset == datasets.DEFAULT or output_dir != DEFAULT_OUTPUT_DIR:
        return output_dir
    return output_dir / dataset


# Settings chosen by the size of the input, for local runs (runners may override);
# the figures behind them are in docs/decisions/local-run-settings.md.
# Beam runs in this process for small inputs; above this many bytes of CSV the
# DirectRunner's worker processes repay their start-up.
MULTI_PROCESS_BEAM_BYTES = 64 << 20
# The held-out splits. Three named splits, so that the split that judges the model
# never chose it: early stopping (and the Tuner) select on validation, the Evaluator
# blesses on test. For larger data each held-out split is capped at about this many
# rows: TFMA's cost grows with test rows times slices, and more rows no longer make
# AUC much more precise.
HELD_OUT_ROWS_TARGET = 25_000
CSV_BYTES_PER_ROW = 119  # the shipped sample's average
DEFAULT_SPLIT: tuple[tuple[str, int], ...] = ((TRAIN, 3), (VALIDATION, 1), (TEST, 1))


def beam_args_for(input_bytes: int, workers: int) -> tuple[str, ...]:
    """Beam arguments for a local run on ``input_bytes`` of CSV with ``workers`` cores."""
    if input_bytes < MULTI_PROCESS_BEAM_BYTES or workers < 2:
        return ()
    return ("--direct_running_mode=multi_processing", f"--direct_num_workers={workers}")


def split_for(input_bytes: int) -> tuple[tuple[str, int], ...]:
    """Hash buckets for train, validation and test: 3:1:1, held-out splits capped.

    Validation and test each get a fifth of the rows, but no more than about
    HELD_OUT_ROWS_TARGET. Buckets are per mille: whole percents would give 1.5M rows
    30k rows per held-out split, not 25k.
    """
    rows = max(1, input_bytes // CSV_BYTES_PER_ROW)
    held_out_permille = round(1000 * HELD_OUT_ROWS_TARGET / rows)
    if held_out_permille >= 200:
        return DEFAULT_SPLIT
    held_out_permille = max(1, held_out_permille)
    return (
        (TRAIN, 1000 - 2 * held_out_permille),
        (VALIDATION, held_out_permille),
        (TEST, held_out_permille),
    )


@dataclass(frozen=True)
class SqliteMetadata:
    """ML-Metadata in an embedded SQLite file."""

    path: str


@dataclass(frozen=True)
class MysqlMetadata:
    """ML-Metadata on a MySQL-compatible server, shared by a team."""

    host: str
    port: int
    database: str
    user: str
    password: str = field(default="", repr=False)


MetadataStore = SqliteMetadata | MysqlMetadata


def metadata_connection(store: MetadataStore) -> mlmd_pb2.ConnectionConfig:
    """The ML-Metadata connection config for a store."""
    config = mlmd_pb2.ConnectionConfig()
    if isinstance(store, SqliteMetadata):
        config.sqlite.filename_uri = store.path
        config.sqlite.connection_mode = mlmd_pb2.SqliteMetadataSourceConfig.READWRITE_OPENCREATE
        return config
    config.mysql.host = store.host
    config.mysql.port = store.port
    config.mysql.database = store.database
    config.mysql.user = store.user
    config.mysql.password = store.password
    return config


@dataclass(frozen=True)
class Resources:
    """What a node's container requests from Kubernetes (locally, nothing)."""

    node: str
    cpu: float  # cores
    memory_gb: float


# Starting points, from the largest process of the runs measured here (the Trainer
# keeps its transformed data in memory): docs/decisions/local-run-settings.md.
DEFAULT_RESOURCES: tuple[Resources, ...] = (
    Resources(node_ids.TRANSFORM, cpu=1, memory_gb=2),
    Resources(node_ids.TRAINER, cpu=2, memory_gb=4),
    Resources(node_ids.EVALUATOR, cpu=1, memory_gb=2),
)


@dataclass(frozen=True)
class PipelineConfig:
    """Everything ``create_pipeline`` needs; runners fill in the paths."""

    pipeline_root: str
    data_root: str
    serving_dir: str
    # The dataset the pipeline learns (modules/datasets/<name>): its features, label,
    # curated schema, slices and AUC bound.
    dataset: str = datasets.DEFAULT
    # Files of data_root (or of each span folder) that ExampleGen reads (others, like a
    # README, are left alone).
    input_pattern: str = csv_files.PATTERN
    # The span a run processes (spans.LATEST: the newest span folder of data_root; a
    # run-time parameter on Kubeflow) and how many spans up to it the model learns
    # from. A flat data root is one span.
    span: int = spans.LATEST
    window: int = 1
    # Push a model trained on an older span than the serving one's (a backfill, a
    # rerun); off, such a model may be blessed but is not pushed.
    allow_older: bool = False
    # Start the Trainer from the serving model's weights when the inputs match
    # (modules/warm_start.py); off, every run trains from scratch.
    warm_start: bool = True
    # Where ExampleGen keeps each span's encoded examples for later runs to reuse.
    # Empty: <pipeline_root>/encoded-spans.
    span_cache: str = ""
    # Transform analyzes a window span by span and keeps each span's analysis for
    # later runs to reuse (data_layout/analyzer_cache.py), in analyzer_cache (empty:
    # <pipeline_root>/analyzer-cache). Off by default: on this 2-core machine's Beam
    # DirectRunner the cache's extra stages cost more than the rows it spares
    # (docs/decisions/local-run-settings.md).
    transform_cache: bool = False
    analyzer_cache: str = ""
    # None: the orchestrator provides the store (Kubeflow does).
    metadata: MetadataStore | None = None
    # KFP allows [a-z0-9-] only; the local runner uses the same name. Empty: the
    # dataset's (taxi-wide-deep for the taxi).
    pipeline_name: str = ""
    # The curated schema, relative to the folder holding the project's packages (the
    # checkout, or site-packages in the image), where CuratedSchema reads it. Empty:
    # the dataset's own, modules/datasets/<name>/schema.pbtxt.
    curated_schema: str = ""
    preprocessing_fn: str = "modules.preprocessing.preprocessing_fn"
    run_fn: str = "modules.training.run_fn"
    # Hash split of the input rows into train, validation and test, as relative
    # bucket counts (the names are data_layout.splits').
    split_buckets: tuple[tuple[str, int], ...] = DEFAULT_SPLIT
    train_steps: int = 1000
    eval_steps: int = 20
    # Hyperparameters set for this run (--hparam), as (name, value) pairs. They win
    # over the dataset's own (its declaration's ``hparams``), which win over HParams'
    # defaults; ``hparams`` holds the result.
    hparam_overrides: tuple[tuple[str, Any], ...] = ()
    hparams: HParams = field(init=False)
    # A hyperparameter search (KerasTuner, modules/tuning.py) over
    # modules.hparams.SEARCH_SPACE before the Trainer, which then trains with its best
    # values. Off: each trial costs about a Trainer's time. The search stops after
    # tune_trials trials or tune_minutes, whichever comes first.
    tune: bool = False
    tune_trials: int = 10
    tune_minutes: float = 15.0
    tuner_fn: str = "modules.tuning.tuner_fn"
    # Blessing: the candidate's test AUC must reach min_auc (None: the dataset's bound)
    # and must not fall more than max_auc_drop below the serving model's (when one serves).
    min_auc: float | None = None
    max_auc_drop: float = 0.01
    # Vertex AI Pipelines only: Resolver nodes find the baseline (the latest blessed
    # model) and the drift reference (the latest statistics) in ML-Metadata, instead
    # of ServingBaseline reading the push destination. Open-source Kubeflow Pipelines
    # cannot execute Resolver steps (backend/src/v2/compiler/argocompiler/argo.go:
    # "resolver not implemented yet").
    resolvers: bool = False
    # CPU and memory requests of the heavy nodes' containers on Kubeflow.
    resources: tuple[Resources, ...] = DEFAULT_RESOURCES
    # Empty: Beam's DirectRunner in this process. For data of the sample's size that
    # beats starting worker processes, and TFX then skips building an sdist of
    # itself for remote workers, which it does whenever any Beam argument is given.
    beam_pipeline_args: tuple[str, ...] = ()
    # Transform's own pre- and post-transform statistics. Off: StatisticsGen already
    # describes the input, and they add much to Transform's time
    # (docs/decisions/local-run-settings.md).
    transform_statistics: bool = False
    enable_cache: bool = True

    def __post_init__(self) -> None:
        declared = datasets.load(self.dataset)
        # The dataset's defaults, written into the frozen config once.
        defaults = {
            "pipeline_name": self.pipeline_name or declared.pipeline_name,
            "span_cache": self.span_cache or f"{self.pipeline_root.rstrip('/')}/encoded-spans",
            "analyzer_cache": (
                self.analyzer_cache or f"{self.pipeline_root.rstrip('/')}/analyzer-cache"
            ),
            "curated_schema": self.curated_schema or curated_schema_of(self.dataset),
            "min_auc": declared.min_auc if self.min_auc is None else self.min_auc,
            "hparams": HParams()
            .overridden(declared.hparams)
            .overridden(dict(self.hparam_overrides)),
        }
        for name, value in defaults.items():
            object.__setattr__(self, name, value)
        if self.window < 1:
            raise ValueError(f"window must be at least 1 span, got {self.window}")
        if self.span < spans.LATEST:
            raise ValueError(f"span must be a span number >= 0 (or the newest), got {self.span}")
        if self.train_steps < 1 or self.eval_steps < 1:
            raise ValueError("train_steps and eval_steps must be positive")
        if self.tune_trials < 1 or self.tune_minutes <= 0:
            raise ValueError(
                f"tune_trials and tune_minutes must be positive, got "
                f"{self.tune_trials} and {self.tune_minutes}"
            )
        if not 0.0 <= self.min_auc <= 1.0:
            raise ValueError(f"min_auc must be in [0, 1], got {self.min_auc}")
        if self.max_auc_drop < 0.0:
            raise ValueError(f"max_auc_drop must be >= 0, got {self.max_auc_drop}")
        names = sorted(name for name, _ in self.split_buckets)
        if names != sorted((TRAIN, VALIDATION, TEST)):
            raise ValueError(
                f"split_buckets must name {TRAIN}, {VALIDATION} and {TEST} once each, "
                f"got {self.split_buckets}"
            )
        if any(n < 1 for _, n in self.split_buckets):
            raise ValueError(f"split_buckets need positive counts, got {self.split_buckets}")
        if any(r.cpu <= 0 or r.memory_gb <= 0 for r in self.resources):
            raise ValueError(f"resources need positive CPU and memory, got {self.resources}")
