"""The Chicago taxi trips: is the tip more than a fifth of the fare.

The sample is ``data/taxi.csv`` (see ``data/README.md``). Besides the declared
columns, the trip's start timestamp gives time features, and the label compares
two columns; both are this dataset's own code, in ``transform.py``.
"""

from modules.features import (
    Cross,
    DatasetDeclaration,
    Hashed,
    IntegerRange,
    Label,
    Numeric,
    Scaling,
    Vocabulary,
    bucket_name,
)

TIMESTAMP = "trip_start_timestamp"
# Time features derived from TIMESTAMP: the hour of the day on a circle, and the
# trip's age (tipping habits drift over the years the data covers).
HOUR_SIN = "hour_sin"
HOUR_COS = "hour_cos"
YEARS_SINCE_START = "years_since_start"
TIME_FEATURES: tuple[str, ...] = (HOUR_SIN, HOUR_COS, YEARS_SINCE_START)
# The label: the tip exceeds this fraction of the fare.
TIP_FRACTION = 0.2
TIPS, FARE = "tips", "fare"

DATASET = DatasetDeclaration(
    name="taxi",
    label=Label(name="big_tip", columns=(TIPS, FARE)),
    numeric=(
        Numeric(FARE, Scaling.LOG_Z, bucket_count=20),
        Numeric("trip_miles", Scaling.LOG_Z),
        Numeric("trip_seconds", Scaling.LOG_Z),
        Numeric("pickup_latitude", Scaling.Z, bucket_count=10),
        Numeric("pickup_longitude", Scaling.Z, bucket_count=10),
        # About 3% of trips have no dropoff location: often the ones that were never
        # settled by card, so the absence is itself informative.
        Numeric("dropoff_latitude", Scaling.Z, missing_indicator=True, bucket_count=10),
        Numeric("dropoff_longitude", Scaling.Z, bucket_count=10),
    ),
    integer_ranges=(
        IntegerRange("trip_start_hour", 0, 23),
        IntegerRange("trip_start_day", 1, 7),
        IntegerRange("trip_start_month", 1, 12),
        IntegerRange("pickup_community_area", 1, 77),
        IntegerRange("dropoff_community_area", 1, 77),
    ),
    vocabularies=(
        Vocabulary("payment_type", top_k=10),
        Vocabulary("company", top_k=60, missing_indicator=True),
    ),
    hashed=(Hashed("dropoff_census_tract", 256, missing_indicator=True),),
    crosses=(
        Cross((bucket_name("pickup_latitude"), bucket_name("pickup_longitude")), 400),
        Cross((bucket_name("dropoff_latitude"), bucket_name("dropoff_longitude")), 400),
        Cross(("trip_start_hour", "trip_start_day"), 200),
        Cross(("payment_type", "company"), 500),
        Cross(("payment_type", bucket_name(FARE)), 200),
        Cross(("payment_type", "pickup_community_area"), 300),
        Cross(("payment_type", "dropoff_community_area"), 300),
    ),
    # Payment type dominates tipping, hour and company shift it. Each slice column
    # adds much to TFMA's time (docs/decisions/evaluation-cost.md).
    slices=("payment_type", "trip_start_hour", "company"),
    # The slice bound: no slice of SLICE_MIN_ROWS test rows or more may lose more than
    # this AUC against the serving model beyond its rows' noise. Five times the overall
    # bound: a slice's AUC moves by a few hundredths with the draw of rows, and a few
    # dozen slices are judged at once, so a tighter bound would hold good candidates on
    # chance; 0.05 on a slice is a loss its riders would notice
    # (docs/decisions/evaluation-cost.md).
    slice_max_auc_drop=0.05,
    unused_columns={"pickup_census_tract": "empty in every row of the shipped sample"},
    min_auc=0.90,
    prediction_key="tip_probability",
    pipeline_name="taxi-wide-deep",
    transform_hooks="datasets.taxi.transform",
    extra_raw_columns=(TIMESTAMP,),
    extra_dense_features=TIME_FEATURES,
)
