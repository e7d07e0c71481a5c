"""The one typed, frozen configuration the pipeline is built from.

Every setting and its default lives here. Runners build a ``PipelineConfig`` (paths,
runner-specific Beam arguments, the metadata store) and hand it to
``create_pipeline``; nothing else carries settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from components import csv_files
from modules.hparams import HParams
from pipeline_def.node_ids import EVALUATOR, TRAINER, TRANSFORM

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_ROOT = PROJECT_ROOT / "data"
DEFAULT_OUTPUT_DIR = PROJECT_ROOT / "outputs"
# The curated raw-data schema (a folder holding only schema.pbtxt, as TFX reads it).
CURATED_SCHEMA_DIR = PROJECT_ROOT / "pipeline_def" / "schema"


# Settings chosen by the size of the input, for local runs (runners may override).
# Beam runs in this process for small inputs; above this many bytes of CSV the
# DirectRunner's worker processes repay their start-up. Measured on 2 cores: 150k
# rows (18 MB) run end to end in 119 s in-process against 170 s with 2 workers,
# while 1.5M rows (171 MB) take 40 s in ExampleGen with 2 workers against 50 s.
MULTI_PROCESS_BEAM_BYTES = 64 << 20
# The eval split: a third of the rows, but no more than about this many. TFMA's
# cost grows with eval rows times slices, and AUC on 25k rows is within +-0.003.
EVAL_ROWS_TARGET = 25_000
CSV_BYTES_PER_ROW = 119  # the shipped sample's average
DEFAULT_SPLIT: tuple[tuple[str, int], ...] = (("train", 2), ("eval", 1))


def beam_args_for(input_bytes: int, workers: int) -> tuple[str, ...]:
    """Beam arguments for a local run on ``input_bytes`` of CSV with ``workers`` cores."""
    if input_bytes < MULTI_PROCESS_BEAM_BYTES or workers < 2:
        return ()
    return ("--direct_running_mode=multi_processing", f"--direct_num_workers={workers}")


def split_for(input_bytes: int) -> tuple[tuple[str, int], ...]:
    """Hash buckets for train and eval: 2:1, or an eval split of about EVAL_ROWS_TARGET rows.

    Buckets are per mille: whole percents would give 1.5M rows 30k eval rows, not 25k.
    """
    rows = max(1, input_bytes // CSV_BYTES_PER_ROW)
    eval_permille = round(1000 * EVAL_ROWS_TARGET / rows)
    if eval_permille >= 333:
        return DEFAULT_SPLIT
    eval_permille = max(1, eval_permille)
    return (("train", 1000 - eval_permille), ("eval", eval_permille))


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


@dataclass(frozen=True)
class Resources:
    """What a node's container requests from Kubernetes (locally, nothing)."""

    node: str
    cpu: float  # cores
    memory_gb: float


# Starting points, from the runs measured here: the largest process of a 1.5M-row run
# peaked at 1.3 GiB, and the Trainer keeps its transformed data in memory.
DEFAULT_RESOURCES: tuple[Resources, ...] = (
    Resources(TRANSFORM, cpu=1, memory_gb=2),
    Resources(TRAINER, cpu=2, memory_gb=4),
    Resources(EVALUATOR, cpu=1, memory_gb=2),
)


@dataclass(frozen=True)
class PipelineConfig:
    """Everything ``create_pipeline`` needs; runners fill in the paths."""

    pipeline_root: str
    data_root: str
    serving_dir: str
    # Files of data_root that ExampleGen reads (others, like a README, are left alone).
    input_pattern: str = csv_files.PATTERN
    # None: the orchestrator provides the store (Kubeflow does).
    metadata: MetadataStore | None = None
    # KFP allows [a-z0-9-] only; the local runner uses the same name.
    pipeline_name: str = "taxi-wide-deep"
    # The curated schema, relative to the folder holding the project's packages (the
    # checkout, or site-packages in the image), where CuratedSchema reads it.
    curated_schema: str = (CURATED_SCHEMA_DIR / "schema.pbtxt").relative_to(PROJECT_ROOT).as_posix()
    preprocessing_fn: str = "modules.preprocessing.preprocessing_fn"
    run_fn: str = "modules.training.run_fn"
    # Hash split of the input rows into train and eval, as relative bucket counts.
    split_buckets: tuple[tuple[str, int], ...] = DEFAULT_SPLIT
    train_steps: int = 1000
    eval_steps: int = 20
    hparams: HParams = field(default_factory=HParams)
    # Blessing: the candidate's eval AUC must reach min_auc and must not fall more
    # than max_auc_drop below the serving model's (when one serves).
    min_auc: float = 0.90
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
    # Transform's own pre- and post-transform statistics (StatisticsGen already
    # describes the input); they roughly double Transform's time.
    transform_statistics: bool = False
    enable_cache: bool = True

    def __post_init__(self) -> None:
        if self.train_steps < 1 or self.eval_steps < 1:
            raise ValueError("train_steps and eval_steps must be positive")
        if not 0.0 <= self.min_auc <= 1.0:
            raise ValueError(f"min_auc must be in [0, 1], got {self.min_auc}")
        if self.max_auc_drop < 0.0:
            raise ValueError(f"max_auc_drop must be >= 0, got {self.max_auc_drop}")
        if not self.split_buckets or any(n < 1 for _, n in self.split_buckets):
            raise ValueError(f"split_buckets need positive counts, got {self.split_buckets}")
        if any(r.cpu <= 0 or r.memory_gb <= 0 for r in self.resources):
            raise ValueError(f"resources need positive CPU and memory, got {self.resources}")
