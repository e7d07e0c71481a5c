"""The one typed, frozen configuration the pipeline is built from.

Every setting and its default lives here. Runners build a ``PipelineConfig`` (paths,
runner-specific Beam arguments, the metadata store) with ``PipelineConfig.resolve``,
which fills in what the dataset's declaration and the pipeline root decide, and hand
it to ``create_pipeline``; nothing else carries settings. Where things lie on a
machine is in ``pipeline_def.project_paths``, the ML-Metadata stores are in
``pipeline_def.metadata_stores``, and what a local run picks by its input's size is
in ``pipeline_ops.session.local_run_settings``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import datasets
from data_layout import csv_files, spans
from data_layout.splits import TEST, TRAIN, VALIDATION
from modules.hparams import HParams
from pipeline_def import node_ids
from pipeline_def.metadata_stores import MetadataStore
from pipeline_def.project_paths import curated_schema_of

# The hash split of the input rows, as relative bucket counts: 3:1:1. The local runner
# caps the held-out splits of larger inputs (pipeline_ops/session/local_run_settings.py).
DEFAULT_SPLIT: tuple[tuple[str, int], ...] = ((TRAIN, 3), (VALIDATION, 1), (TEST, 1))
# The fields whose default comes from the dataset's declaration or the pipeline root:
# ``PipelineConfig.resolve`` fills each one left unset ("" or None), and a config is
# refused with any still unset.
FILLED_BY_RESOLVE = ("pipeline_name", "span_cache", "analyzer_cache", "curated_schema", "min_auc")


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
    """Everything ``create_pipeline`` needs, every value final; built by ``resolve``.

    ``PipelineConfig(...)`` itself takes every value as given, and refuses a config
    with a field of FILLED_BY_RESOLVE (or ``hparams``) unset.
    """

    pipeline_root: str
    data_root: str
    serving_dir: str
    # The dataset the pipeline learns (datasets/<name>): its features, label,
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
    # Empty: resolve makes it <pipeline_root>/encoded-spans.
    span_cache: str = ""
    # Transform analyzes a window span by span and keeps each span's analysis for
    # later runs to reuse (data_layout/analyzer_cache.py), in analyzer_cache (empty:
    # resolve makes it <pipeline_root>/analyzer-cache). Off by default: on this
    # 2-core machine's Beam DirectRunner the cache's extra stages cost more than the
    # rows it spares (docs/decisions/local-run-settings.md).
    transform_cache: bool = False
    analyzer_cache: str = ""
    # None: the orchestrator provides the store (Kubeflow does).
    metadata: MetadataStore | None = None
    # KFP allows [a-z0-9-] only; the local runner uses the same name. Empty: resolve
    # takes the dataset's (taxi-wide-deep for the taxi).
    pipeline_name: str = ""
    # The curated schema, relative to the folder holding the project's packages (the
    # checkout, or site-packages in the image), where CuratedSchema reads it. Empty:
    # resolve takes the dataset's own, datasets/<name>/schema.pbtxt.
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
    # defaults; ``hparams`` holds the result, which resolve works out (None: unset).
    hparam_overrides: tuple[tuple[str, Any], ...] = ()
    hparams: HParams | None = None
    # A hyperparameter search (KerasTuner, modules/tuning.py) over
    # modules.hparams.SEARCH_SPACE before the Trainer, which then trains with its best
    # values. Off: each trial costs about a Trainer's time. The search stops after
    # tune_trials trials or tune_minutes, whichever comes first.
    tune: bool = False
    tune_trials: int = 10
    tune_minutes: float = 15.0
    tuner_fn: str = "modules.tuning.tuner_fn"
    # Blessing: the candidate's test AUC must reach min_auc (None: resolve takes the
    # dataset's bound)
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

    @property
    def scoring_pipeline_name(self) -> str:
        """The scoring pipeline's name (``pipeline.create_scoring_pipeline``)."""
        return scoring_pipeline_name(self.pipeline_name)

    @classmethod
    def resolve(
        cls, pipeline_root: str, data_root: str, serving_dir: str, **settings: Any
    ) -> PipelineConfig:
        """The config of these settings, each of FILLED_BY_RESOLVE left unset filled in.

        The dataset's declaration gives the pipeline name, the AUC bound and the
        hyperparameters under ``hparam_overrides``; the pipeline root, the caches'
        folders; the dataset's folder, the curated schema. ValueError names a bad
        setting (an unknown dataset or hyperparameter included).
        """
        if "hparams" in settings:
            raise TypeError("hparams is worked out from the dataset and hparam_overrides")
        dataset = settings.get("dataset", cls.dataset)
        declared = datasets.load(dataset)
        root = pipeline_root.rstrip("/")
        defaults = {
            "pipeline_name": declared.pipeline_name,
            "span_cache": f"{root}/encoded-spans",
            "analyzer_cache": f"{root}/analyzer-cache",
            "curated_schema": curated_schema_of(dataset),
            "min_auc": declared.min_auc,
        }
        filled = {name: value for name, value in defaults.items() if _unset(settings.get(name))}
        overrides = dict(settings.get("hparam_overrides", cls.hparam_overrides))
        hparams = HParams().overridden(declared.hparams).overridden(overrides)
        # Given settings first: filled ones replace only those left unset.
        chosen = {**settings, **filled, "hparams": hparams}
        return cls(pipeline_root, data_root, serving_dir, **chosen)

    def __post_init__(self) -> None:
        unset = [name for name in (*FILLED_BY_RESOLVE, "hparams") if _unset(getattr(self, name))]
        if unset:
            raise ValueError(
                f"{', '.join(unset)} unset: PipelineConfig.resolve fills them in from the "
                "dataset and the pipeline root"
            )
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


def scoring_pipeline_name(pipeline_name: str) -> str:
    """The name of the pipeline that scores spans with ``pipeline_name``'s serving model."""
    return f"{pipeline_name}-scoring"


def _unset(value: object) -> bool:
    """Whether a setting was left to its default: empty, or None."""
    return value is None or value == ""
