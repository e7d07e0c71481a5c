import csv

import pytest

import datasets
from datasets.taxi import DATASET as TAXI
from modules import features
from pipeline_def.project_paths import sample_csv


def test_every_transformed_name_is_unique():
    names = TAXI.dense_features() + TAXI.categorical_features() + TAXI.cross_features()
    assert len(names) == len(set(names))
    assert TAXI.label_key not in names


def test_crosses_are_built_from_declared_categorical_features():
    categorical = set(TAXI.categorical_features())
    for cross in TAXI.crosses:
        assert {features.transformed_name(s) for s in cross.sources} <= categorical


def test_fixed_cardinalities_cover_everything_but_vocabularies():
    sizes = TAXI.fixed_cardinalities()
    vocabularies = {features.transformed_name(v.name) for v in TAXI.vocabularies}
    assert set(sizes) | vocabularies == set(TAXI.categorical_features() + TAXI.cross_features())
    assert sizes[features.transformed_name("trip_start_hour")] == 25  # 24 hours + out of range
    assert (
        sizes[features.transformed_name(features.bucket_name("pickup_latitude"))] == 11
    )  # 10 + missing


def test_raw_columns_exclude_label_and_unused(sample_rows):
    columns = set(TAXI.raw_feature_columns())
    assert TAXI.label_source_columns() == ("tips",)  # the fare is also a feature
    assert not columns & set(TAXI.unused_columns)
    assert columns | {"tips"} | set(TAXI.unused_columns) == set(sample_rows[0])


def test_names_that_are_not_identifiers_become_valid_op_names():
    assert features.transformed_name("loan amount ($)") == "loan_amount_____xf"
    assert features.vocabulary_file("home-type") == "vocab_home_type"


def test_names_that_clash_once_transformed_are_refused():
    label = features.Label("bad", ("Status",), "bad")
    with pytest.raises(ValueError, match=r"\['a_b_xf'\] are declared twice"):
        features.DatasetDeclaration(
            "t",
            label,
            numeric=(
                features.Numeric("a b", features.Scaling.Z),
                features.Numeric("a_b", features.Scaling.Z),
            ),
        )


def test_the_pipeline_name_follows_the_dataset_unless_declared():
    label = features.Label("bad", ("Status",), "bad")
    assert (
        features.DatasetDeclaration("credit_data", label).pipeline_name == "credit-data-wide-deep"
    )
    assert TAXI.pipeline_name == "taxi-wide-deep"


@pytest.mark.parametrize("name", datasets.known())
def test_each_dataset_declares_every_column_of_its_sample(name):
    declared = datasets.load(name)
    with sample_csv(name).open(newline="") as f:
        header = next(csv.reader(f))
    read = {*declared.raw_feature_columns(), *declared.label_source_columns()}
    assert set(header) == read | set(declared.unused_columns)


def test_piecewise_linear_parts_are_one_dense_feature_between_adjacent_boundaries():
    spec = features.Numeric("loan amount", features.Scaling.Z, bucket_count=3, piecewise_bins=5)
    # 5 quantile intervals have 4 boundaries, so 3 intervals between adjacent ones: the
    # parts' count follows piecewise_bins, not the buckets'.
    assert spec.piecewise_name() == "loan amount_piecewise"
    assert spec.piecewise_width == 3
    label = features.Label("bad", ("Status",), "bad")
    dataset = features.DatasetDeclaration("t", label, numeric=(spec,))
    assert dataset.dense_features() == ("loan_amount_xf", "loan_amount_piecewise_xf")
    assert dataset.dense_widths() == {"loan_amount_xf": 1, "loan_amount_piecewise_xf": 3}
    plain = features.Numeric("x", features.Scaling.Z, bucket_count=5)
    assert plain.piecewise_width == 0
    assert features.DatasetDeclaration("t", label, numeric=(plain,)).dense_widths() == {"x_xf": 1}
    with pytest.raises(ValueError, match="piecewise_bins must be 0 or at least 3, got 2"):
        features.Numeric("x", features.Scaling.Z, piecewise_bins=2)


def test_a_datasets_hyperparameters_are_checked_by_name_and_type():
    label = features.Label("bad", ("Status",), "bad")
    assert features.DatasetDeclaration("t", label, hparams={"batch_size": 32}).hparams == {
        "batch_size": 32
    }
    with pytest.raises(ValueError, match=r"dataset t: unknown hyperparameter\(s\) \['batch'\]"):
        features.DatasetDeclaration("t", label, hparams={"batch": 32})
    with pytest.raises(ValueError, match="dataset t: hyperparameter 'dropout' must be float"):
        features.DatasetDeclaration("t", label, hparams={"dropout": "0.4"})


def test_a_timestamp_gives_circles_an_age_and_a_weekday_category():
    label = features.Label("bad", ("Status",), "bad")
    stamp = features.Timestamp("ordered at", features.TimeFormat.YMD, missing_indicator=True)
    day = features.Timestamp("day", features.TimeFormat.DMY, time_of_day=False)
    dataset = features.DatasetDeclaration("t", label, timestamps=(stamp, day))
    assert dataset.raw_feature_columns() == ("ordered at", "day")
    assert dataset.dense_features() == (
        "ordered_at_time_sin_xf", "ordered_at_time_cos_xf", "ordered_at_year_sin_xf",
        "ordered_at_year_cos_xf", "ordered_at_years_xf", "ordered_at_missing_xf",
        "day_year_sin_xf", "day_year_cos_xf", "day_years_xf",
    )  # fmt: skip
    assert dataset.categorical_features() == ("ordered_at_weekday_xf", "day_weekday_xf")
    # Seven days and one id for a missing date.
    assert dataset.fixed_cardinalities() == {"ordered_at_weekday_xf": 8, "day_weekday_xf": 8}


def test_a_numeric_column_is_read_as_numbers_unless_it_says_it_is_text():
    assert features.Numeric("x", features.Scaling.Z).text is None
    money = features.Numeric("x", features.Scaling.Z, text=features.NumberText.DECIMAL_COMMA)
    assert money.text.value == ","
    dataset = features.DatasetDeclaration(
        "t", features.Label("bad", ("Status",), "bad"), numeric=(money,)
    )
    assert dataset.dense_features() == ("x_xf",)
