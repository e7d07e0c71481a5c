"""The draft's crosses: pairs chosen by their measured interaction, and the draft says why."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest

from drafting import rules
from drafting.crosses import (
    FOLDS,
    MIN_GAIN,
    NEXT_BEST,
    additive_probabilities,
    bucket_codes,
    candidates,
    choose_crosses,
    fold_of_each_row,
    interaction,
    summary,
)
from pipeline_ops.cli import draft_dataset

ROWS = 3000


def _columns(interaction: float, seed: int = 0) -> tuple[dict[str, list[str]], list[int]]:
    """x, y uniform; the label's log-odds ``interaction`` * (x - .5)(y - .5) (no main effect
    of either) plus a strong effect of ``segment`` alone; ``z`` and ``shop`` are noise."""
    rng = np.random.default_rng(seed)
    x, y, z = rng.uniform(size=(3, ROWS))
    segment = rng.integers(0, 3, ROWS)
    logits = interaction * (x - 0.5) * (y - 0.5) + np.array([-2.0, 0.0, 2.0])[segment]
    labels = (rng.uniform(size=ROWS) < 1 / (1 + np.exp(-logits))).astype(int).tolist()
    columns = {
        "x": [f"{v:.4f}" for v in x],
        "y": [f"{v:.4f}" for v in y],
        "z": [f"{v:.4f}" for v in z],
        "segment": [f"s{v}" for v in segment],
        "shop": [f"p{v}" for v in rng.integers(0, 4, ROWS)],
    }
    return columns, labels


def _choices(columns: dict[str, list[str]], labels: list[int]) -> list[rules.Choice]:
    return [
        rules.choose(name, values, labels, "FLOAT" if name in "xyz" else "STRING")
        for name, values in columns.items()
    ]


def _csv(path: Path, columns: dict[str, list[str]], labels: list[int]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([*columns, "Status"])
        for i, label in enumerate(labels):
            writer.writerow([*(values[i] for values in columns.values()), "bad" * label or "good"])
    return path


@pytest.mark.slow  # drafts a table, boosted trees included
def test_a_planted_numeric_interaction_is_crossed_and_the_draft_says_why(tmp_path):
    columns, labels = _columns(interaction=16.0)
    table = _csv(tmp_path / "planted.csv", columns, labels)
    printed = io.StringIO()
    folder = draft_dataset.draft(
        "planted", table, "Status", "bad",
        datasets_dir=tmp_path / "datasets", data_dir=tmp_path / "data", out=printed,
    )  # fmt: skip
    source = (folder / "__init__.py").read_text()
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 - the draft
    # Only the pair that interacts; segment, the strongest column alone, is in none.
    assert [c.sources for c in namespace["DATASET"].crosses] == [("x_bucket", "y_bucket")]
    out = printed.getvalue()
    crossed = [line.strip() for line in out.splitlines() if line.strip().startswith("crossed ")]
    assert len(crossed) == 1
    assert crossed[0].startswith("crossed x_bucket x y_bucket: interaction +0.")
    assert "AUC beyond both alone" in crossed[0]
    # The next best pairs are named as left out, and why.
    assert out.count("left out (log-likelihood gain under 10) ") == NEXT_BEST
    # The declaration says the same above the cross.
    assert "        # x_bucket x y_bucket: interaction +0." in source


def test_a_table_without_interactions_gets_no_crosses():
    columns, labels = _columns(interaction=0.0)
    crosses = choose_crosses(columns, labels, _choices(columns, labels))
    assert crosses.chosen == ()
    assert all(m.gain < MIN_GAIN for m in crosses.left_out)
    assert summary(crosses)[1] == "  none crossed: no pair reaches both thresholds"


def test_the_interaction_is_measured_beyond_both_features_added_up():
    columns, labels = _columns(interaction=16.0)
    choices = _choices(columns, labels)
    y = np.asarray(labels, dtype=float)
    found = {c.feature: c for c in candidates(columns, choices)}
    folds = fold_of_each_row(ROWS)
    planted = interaction(found["x_bucket"], found["y_bucket"], y, folds)
    # x and y alone say nothing of the label; their cells do.
    assert abs(planted.additive_auc - 0.5) < 0.03 and planted.auc_gain > 0.1
    assert planted.gain > 10 * MIN_GAIN
    # segment predicts the label strongly, but added up with z it needs no cross: the
    # cells, shrunk to the additive model as far as they spread no more than noise,
    # gain nothing on held-out rows and lose little (their own shares lose 10 nats).
    alone = interaction(found["segment"], found["z_bucket"], y, folds)
    assert alone.additive_auc > 0.75 and abs(alone.auc_gain) < 0.005
    assert -5 < alone.gain < MIN_GAIN


def test_a_pair_of_many_valued_columns_does_not_win_by_fitting_its_noise():
    columns, labels = _columns(interaction=0.0)
    rng = np.random.default_rng(1)
    for name in ("store", "clerk"):  # 60 values each: 3,600 cells for 3,000 rows
        columns[name] = [f"{name}{v}" for v in rng.integers(0, 60, ROWS)]
    crosses = choose_crosses(columns, labels, _choices(columns, labels))
    assert crosses.chosen == ()


def test_buckets_are_cut_at_quantiles_with_missing_cells_in_a_bucket_of_their_own():
    values = [str(v) for v in range(101)] + ["", "n/a"]
    codes = bucket_codes(values, 10)
    # As Transform's buckets: a value on a boundary (10, 20, ...) opens the next bucket.
    assert np.bincount(codes).tolist() == [10] * 9 + [11, 2]
    assert codes[9:12].tolist() == [0, 1, 1]


def test_a_numeric_written_as_money_text_is_crossed_by_its_numbers():
    columns, labels = _columns(interaction=16.0)
    # x as an export writes money: a currency sign and thousands separators.
    columns["x"] = [f"${float(v) * 10_000:,.2f}" for v in columns["x"]]
    choices = [
        rules.choose(name, values, labels, "FLOAT" if name in "yz" else "STRING")
        for name, values in columns.items()
    ]
    crosses = choose_crosses(columns, labels, choices)
    assert [m.features for m in crosses.chosen] == [("x_bucket", "y_bucket")]


# A pair's table from a public crash table (nassCDS: 26,217 rows, 4.5% dead) on which
# full Newton steps diverged into a singular Hessian: the last value has 2 positives
# in 542 rows.
NEAR_EMPTY_ROWS = [
    [740, 781, 763, 785, 740, 661, 629, 536, 514, 446],
    [798, 730, 729, 735, 836, 1094, 1221, 1353, 1370, 1449],
    [332, 358, 378, 332, 323, 187, 143, 129, 89, 66],
    [213, 212, 176, 223, 148, 89, 55, 38, 18, 12],
    [17, 29, 29, 24, 54, 55, 61, 80, 83, 110],
]
NEAR_EMPTY_POSITIVES = [
    [40, 44, 37, 60, 40, 19, 6, 4, 1, 2],
    [15, 16, 19, 17, 15, 3, 2, 1, 1, 0],
    [46, 50, 66, 46, 35, 10, 4, 1, 1, 0],
    [65, 56, 51, 81, 36, 19, 7, 6, 3, 0],
    [0, 0, 0, 0, 2, 0, 0, 0, 0, 0],
]


def test_the_additive_fit_converges_where_a_value_has_almost_no_positive():
    rows, positives = np.array(NEAR_EMPTY_ROWS), np.array(NEAR_EMPTY_POSITIVES, dtype=float)
    p = additive_probabilities(positives, rows)
    assert np.isfinite(p).all()
    # The unpenalized intercept's score equation: as many positives fitted as counted.
    assert (rows * p).sum() == pytest.approx(positives.sum(), rel=1e-6)
    # The rarest value's cells are the least likely of their columns.
    assert (p[4] < p[:4].min(axis=0)).all()


def test_an_entity_s_rows_are_held_out_together():
    groups = [f"P{i // 6}" for i in range(600)]  # 100 entities of 6 rows
    folds = fold_of_each_row(600, groups)
    fold_of = {}
    for group, fold in zip(groups, folds, strict=True):
        assert fold_of.setdefault(group, fold) == fold
    assert sorted(set(folds)) == list(range(FOLDS))
    assert all(15 <= sum(1 for f in fold_of.values() if f == k) <= 25 for k in range(FOLDS))
    # Rows dealt one by one split most entities over folds (the leak the groups prevent).
    by_row = fold_of_each_row(600)
    spread = {g: {f for g2, f in zip(groups, by_row, strict=True) if g2 == g} for g in fold_of}
    assert sum(len(f) > 1 for f in spread.values()) > 90
