"""The pipeline's node ids, in data-flow order, and its run-time parameters.

``NODE_IDS`` are a run's nodes without tuning; ``node_ids(tune=True)`` adds the Tuner.

MLMD records, the console, run_summary.json and the review commands use them. Kept
apart from ``pipeline`` so that reading a run does not import TFX.
"""

EXAMPLE_GEN = "CsvExampleGen"
STATISTICS_GEN = "StatisticsGen"
SCHEMA_GEN = "SchemaGen"
CURATED_SCHEMA = "CuratedSchema"
SERVING_BASELINE = "ServingBaseline"
EXAMPLE_VALIDATOR = "ExampleValidator"
TRANSFORM = "Transform"
# Only when tuning is on (PipelineConfig.tune): it feeds the Trainer its choice.
TUNER = "Tuner"
TRAINER = "Trainer"
EVALUATOR = "Evaluator"
SERVING_CHECK = "ServingCheck"
PUSHER = "Pusher"
REPORT = "EvaluationReport"
NODE_IDS: tuple[str, ...] = (
    EXAMPLE_GEN,
    STATISTICS_GEN,
    SCHEMA_GEN,
    CURATED_SCHEMA,
    SERVING_BASELINE,
    EXAMPLE_VALIDATOR,
    TRANSFORM,
    TRAINER,
    EVALUATOR,
    SERVING_CHECK,
    PUSHER,
    REPORT,
)


def node_ids(tune: bool) -> tuple[str, ...]:
    """The pipeline's nodes in data-flow order, the Tuner among them when ``tune``."""
    if not tune:
        return NODE_IDS
    at = NODE_IDS.index(TRAINER)
    return (*NODE_IDS[:at], TUNER, *NODE_IDS[at:])


# Nodes whose output depends on state outside their inputs: never served from a cache.
# ServingBaseline and the Pusher read the serving folder (and the Pusher the clock, for
# the version's number); a cached Pusher would report a push the folder may not hold.
# The ServingCheck reads the PATH (which model server) and measures the clock: a cached
# verdict would report a check of a server that was not asked.
UNCACHED: tuple[str, ...] = (SERVING_BASELINE, SERVING_CHECK, PUSHER)
# On Kubeflow, ExampleGen too. TFX fingerprints the input files in ExampleGen's driver,
# which the compiled spec runs as a `lifecycle.preCacheCheck` hook; open-source KFP
# never runs that hook (nothing in kubeflow/pipelines' backend/src reads it), so its
# cache key holds the data root's URI only, and new files under the same root would be
# served the old examples.
KUBEFLOW_UNCACHED: tuple[str, ...] = (*UNCACHED, EXAMPLE_GEN)
# The scoring pipeline (``pipeline.create_scoring_pipeline``): ServingBaseline, then
# the span scored with the serving model. Neither is cached: both read what is not
# among their inputs (the serving folder, the data root's files).
BATCH_SCORER = "BatchScorer"
# Vertex AI Pipelines only (open-source KFP cannot run Resolver steps): they stand in
# for ServingBaseline there, resolving the latest blessed model and statistics in MLMD.
BASELINE_RESOLVER = "LatestBlessedModelResolver"
PREVIOUS_STATISTICS = "PreviousStatisticsResolver"

# Run-time parameters: a Kubeflow run sets them when it starts (the KFP UI shows them),
# without recompiling; locally they take the config's values.
DATA_ROOT = "data_root"
# The span to process: a number, or "latest" (the default), the newest span folder.
SPAN = "span"
TRAIN_STEPS = "train_steps"
MIN_AUC = "min_auc"
