"""Scoring's names and defaults, importable without TensorFlow, TFX or pyarrow.

The review reads scoring runs from ML-Metadata by these names; the scoring code, the
artifact types and the command line write and use them.
"""

# The predicted label's threshold by default: the review's binary accuracy's.
THRESHOLD = 0.5

# The artifact types' names: on Kubeflow their schema titles, ``<namespace>.<Name>``.
NAMESPACE = "wide_deep"
SCORES_TYPE = f"{NAMESPACE}.Scores"
SKEW_TYPE = f"{NAMESPACE}.ScoringSkew"
# The files of a skew folder: the report, and the scored rows' statistics (TFX's name).
SKEW_FILE = "skew.json"
STATISTICS_FILE = "FeatureStats.pb"
