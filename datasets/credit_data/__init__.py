"""The credit_data dataset: drafted by `make dataset` from credit_data.csv; review it.

The label is 1 where Status == 'bad'. Each column's kind was chosen by
the drafting rules (drafting/rules.py), and the comment says why;
change a kind by editing its line (modules/features.py has the kinds).
"""

from modules.features import (
    Cross,
    DatasetDeclaration,
    Label,
    Numeric,
    Scaling,
    Vocabulary,
)

DATASET = DatasetDeclaration(
    name="credit_data",
    label=Label("Status_is_bad", ("Status",), positive="bad"),
    numeric=(
        # int, non-negative, skew 1.4: log1p, z-score, 10 quantile buckets, piecewise-linear over 20
        Numeric("Seniority", Scaling.LOG_Z, bucket_count=10, piecewise_bins=20),
        # int, skew 0.5: z-score, 10 quantile buckets, piecewise-linear over 20
        Numeric("Age", Scaling.Z, bucket_count=10, piecewise_bins=20),
        # int, non-negative, skew 1.0: log1p, z-score, 10 quantile buckets, piecewise-linear over 20
        Numeric("Expenses", Scaling.LOG_Z, bucket_count=10, piecewise_bins=20),
        # float, non-negative, skew 2.6: log1p, z-score, 10 quantile buckets, piecewise-linear over
        # 20; 381 of 4454 cells missing: missing indicator
        Numeric(
            "Income", Scaling.LOG_Z, missing_indicator=True, bucket_count=10, piecewise_bins=20
        ),
        # float, non-negative, skew 10.2: log1p, z-score, 10 quantile buckets, piecewise-linear over
        # 20; 47 of 4454 cells missing: missing indicator
        Numeric(
            "Assets", Scaling.LOG_Z, missing_indicator=True, bucket_count=10, piecewise_bins=20
        ),
        # float, non-negative, skew 9.4: log1p, z-score, 10 quantile buckets, piecewise-linear over
        # 20; 18 of 4454 cells missing: missing indicator
        Numeric("Debt", Scaling.LOG_Z, missing_indicator=True, bucket_count=10, piecewise_bins=20),
        # int, non-negative, skew 1.1: log1p, z-score, 10 quantile buckets, piecewise-linear over 20
        Numeric("Amount", Scaling.LOG_Z, bucket_count=10, piecewise_bins=20),
        # int, non-negative, skew 3.0: log1p, z-score, 10 quantile buckets, piecewise-linear over 20
        Numeric("Price", Scaling.LOG_Z, bucket_count=10, piecewise_bins=20),
    ),
    vocabularies=(
        # text with 6 distinct values; 6 of 4454 cells missing: missing indicator
        Vocabulary("Home", top_k=10, missing_indicator=True),
        # integers with 11 distinct values (6..72): codes
        Vocabulary("Time", top_k=11),
        # text with 5 distinct values; 1 of 4454 cells missing: missing indicator
        Vocabulary("Marital", top_k=10, missing_indicator=True),
        # text with 2 distinct values
        Vocabulary("Records", top_k=10),
        # text with 4 distinct values; 2 of 4454 cells missing: missing indicator
        Vocabulary("Job", top_k=10, missing_indicator=True),
    ),
    # Every pair of the three columns that alone best separate the label.
    crosses=(
        Cross(("Seniority_bucket", "Job"), 132),
        Cross(("Seniority_bucket", "Home"), 176),
        Cross(("Job", "Home"), 96),
    ),
    # Low-cardinality categorical columns, strongest first.
    slices=("Job", "Home", "Records"),
    # The slice bound: no slice of 100 test rows or more may lose more than 0.05 AUC against
    # the serving model beyond its noise (the drafting rules).
    slice_max_auc_drop=0.05,
    # The best single column's AUC, rounded down: the model must do better.
    min_auc=0.65,
    # 4454 rows, fewer than 10,000: small batches, an epoch of about one pass over the train split,
    # stronger dropout, an average of models trained apart, a faster wide part (the drafting rules).
    hparams={
        "batch_size": 32,
        "steps_per_epoch": 84,
        "dropout": 0.4,
        "ensemble_members": 5,
        "wide_learning_rate": 0.1,
    },
)
