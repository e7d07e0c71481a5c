from modules import features as F


def test_every_transformed_name_is_unique():
    names = F.dense_features() + F.categorical_features() + F.cross_features()
    assert len(names) == len(set(names))
    assert F.transformed_name(F.LABEL.name) not in names


def test_crosses_are_built_from_declared_categorical_features():
    categorical = set(F.categorical_features())
    for cross in F.CROSSES:
        assert {F.transformed_name(s) for s in cross.sources} <= categorical


def test_fixed_cardinalities_cover_everything_but_vocabularies():
    sizes = F.fixed_cardinalities()
    vocabularies = {F.transformed_name(v.name) for v in F.VOCABULARIES}
    assert set(sizes) | vocabularies == set(F.categorical_features() + F.cross_features())
    assert sizes[F.transformed_name("trip_start_hour")] == 25  # 24 hours + out of range
    assert sizes[F.transformed_name(F.bucket_name("pickup_latitude"))] == 11  # 10 + missing


def test_raw_columns_exclude_label_and_unused(sample_rows):
    columns = set(F.raw_feature_columns())
    assert F.LABEL.tips_column not in columns
    assert not columns & set(F.UNUSED_COLUMNS)
    assert columns | {F.LABEL.tips_column} | set(F.UNUSED_COLUMNS) == set(sample_rows[0])
