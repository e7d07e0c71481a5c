"""The names of the example splits: one fits, one chooses, one judges.

Kept apart from the components (no TFX or TensorFlow import), so that the tools
which read runs name the splits without importing TensorFlow. How many rows each
split gets is the pipeline config's business (``PipelineConfig.split_buckets``), which
the local runner sizes by its input
(``pipeline_ops.session.local_run_settings.split_buckets_for``).
"""

# Fits the weights: Transform analyzes it and the Trainer (and the Tuner) learn on it.
TRAIN = "train"
# Chooses the model: early stopping keeps the weights that score best on it, and the
# Tuner ranks its trials by it. Metrics on it are optimistic for the model chosen.
VALIDATION = "validation"
# Judges the chosen model: the Evaluator's metrics and the blessing, on rows nothing
# upstream has seen.
TEST = "test"
# Only when the data root holds spans (components.spans): every row of the run's span,
# and of the span before it. The validator compares the two for drift between
# periods; nothing learns from or is judged on them.
NEWEST_SPAN = "newest_span"
PREVIOUS_SPAN = "previous_span"
