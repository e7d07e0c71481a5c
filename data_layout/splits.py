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


def split_lines(
    keyed_by: str | None, test_period: str | None, validation_period: str | None = None
) -> list[str]:
    """How the rows were split, in lines for people; none for rows split one by one.

    ``keyed_by`` is the column the splits are keyed by (the dataset's entity),
    ``test_period`` and ``validation_period`` the splits' periods as the Examples record
    them (``year = 1987``).
    """
    lines = []
    if keyed_by:
        lines.append(f"splits keyed by {keyed_by}: each of its values in one split")
    if test_period:
        lines.append(f"test split: the newest period, {test_period}")
    if validation_period:
        lines.append(f"validation split: the period before, {validation_period}")
    if test_period:
        lines.append("train: the older periods")
    return lines
