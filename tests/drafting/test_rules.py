"""The drafting rules: each column's kind from its values, slices and the AUC bound."""

from __future__ import annotations

from drafting import rules


def _labels(n: int = 400) -> list[int]:
    return [i % 3 == 0 for i in range(n)]


def test_text_gets_a_vocabulary_with_a_missing_indicator_where_cells_are_missing():
    values = [["a", "b", "c", ""][i % 4] for i in range(400)]
    choice = rules.choose("home type", values, _labels(), "STRING")
    assert choice.kind == "vocabulary"
    assert choice.source == 'Vocabulary("home type", top_k=10, missing_indicator=True)'
    assert "100 of 400 cells missing" in choice.why


def test_high_cardinality_text_is_hashed_and_a_unique_id_is_left_out():
    many = [f"id{i % 300}" for i in range(400)]
    assert rules.choose("tract", many, _labels(), "STRING").source == 'Hashed("tract", 512)'
    unique = [f"id{i}" for i in range(400)]
    assert rules.choose("row", unique, _labels(), "STRING").kind == "unused"


def test_small_integer_codes_get_a_range_and_heavy_tails_a_log():
    hours = [str(i % 24) for i in range(400)]
    assert rules.choose("hour", hours, _labels(), "INT").source == 'IntegerRange("hour", 0, 23)'
    money = [str(int(1.05**i)) for i in range(400)]
    choice = rules.choose("income", money, _labels(), "INT")
    assert choice.source == ('Numeric("income", Scaling.LOG_Z, bucket_count=10, piecewise_bins=20)')
    signed = [str(i * 7 % 400 - 200 + i % 3) for i in range(400)]
    assert "Scaling.Z" in rules.choose("balance", signed, _labels(), "INT").source
    row_numbers = [str(i + 1) for i in range(400)]
    assert rules.choose("rownames", row_numbers, _labels(), "INT").kind == "unused"


def test_a_few_integer_values_over_a_wide_span_are_codes():
    months = [str(12 * (1 + i % 6)) for i in range(400)]  # 12, 24, ..., 72
    choice = rules.choose("term", months, _labels(), "INT")
    assert choice.source == 'Vocabulary("term", top_k=10)'
    assert "integers with 6 distinct values (12..72): codes" in choice.why
    many = [str(12 * (1 + i % 13)) for i in range(400)]  # 13 values: a number
    assert rules.choose("term", many, _labels(), "INT").kind == "numeric"


def test_slices_take_the_strongest_categorical_columns():
    labels = _labels()
    strong = ["yes" if y else "no" for y in labels]
    weak = [["a", "b", "c"][i % 3 == 1] for i in range(400)]
    noise = [["p", "q"][i % 2] for i in range(400)]
    choices = [rules.choose(n, v, labels, "STRING") for n, v in
               (("weak", weak), ("strong", strong), ("noise", noise))]  # fmt: skip
    assert rules.slices_of(choices)[0] == "strong"
    assert rules.min_auc_of(choices) == 1.0  # "strong" alone separates the label


def test_rank_auc_counts_ties_half():
    assert rules.rank_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75
    assert rules.rank_auc([1, 1, 1, 1], [0, 1, 0, 1]) == 0.5
