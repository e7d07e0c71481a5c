"""The pipeline's node ids, in data-flow order.

MLMD records, the console, run_summary.json and the review commands use them. Kept
apart from ``pipeline`` so that reading a run does not import TFX.
"""

EXAMPLE_GEN = "CsvExampleGen"
STATISTICS_GEN = "StatisticsGen"
SCHEMA_GEN = "SchemaGen"
CURATED_SCHEMA = "CuratedSchema"
PREVIOUS_STATISTICS = "PreviousStatisticsResolver"
EXAMPLE_VALIDATOR = "ExampleValidator"
TRANSFORM = "Transform"
TRAINER = "Trainer"
BASELINE_RESOLVER = "LatestBlessedModelResolver"
EVALUATOR = "Evaluator"
PUSHER = "Pusher"
REPORT = "EvaluationReport"
NODE_IDS: tuple[str, ...] = (
    EXAMPLE_GEN,
    STATISTICS_GEN,
    SCHEMA_GEN,
    CURATED_SCHEMA,
    PREVIOUS_STATISTICS,
    EXAMPLE_VALIDATOR,
    TRANSFORM,
    TRAINER,
    BASELINE_RESOLVER,
    EVALUATOR,
    PUSHER,
    REPORT,
)
