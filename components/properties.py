"""Names of the custom properties this project's components write on their artifacts.

Kept apart from the components (no TFX or TensorFlow import), so that the tools which
read ML-Metadata take the names from their writer without importing TensorFlow.
"""

# On PushedModel: 1 when the blessed model was already serving and nothing was copied.
ALREADY_SERVING = "already_serving"
# On ServingBaseline's outputs: the serving version they hold, "" when nothing serves.
SERVING_VERSION = "serving_version"
# On the Evaluator's ModelBlessing: the serving version the candidate was compared
# with, "" when it was judged on the absolute bound alone.
BASELINE_VERSION = "baseline_version"
# On the Trainer's Model: the hyperparameters it trained with (JSON object, every
# field), and the values a Tuner chose among them (JSON object, {} without a Tuner).
HPARAMS = "hparams"
TUNED_HPARAMS = "tuned_hparams"
# On the Tuner's best HyperParameters (with TUNED_HPARAMS): the trials completed, the
# best validation AUC among them and the search's seconds.
TUNING_TRIALS = "trials"
BEST_VALIDATION_AUC = "best_validation_auc"
TUNING_SECONDS = "seconds"
# On the Evaluator's ModelEvaluation: the examples split(s) it evaluated, comma-separated.
EVALUATED_SPLITS = "example_splits"
