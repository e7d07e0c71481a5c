"""Whether a draft adds boosted trees' leaves: deeper trees against added-up ones."""

from __future__ import annotations

import numpy as np
import pytest
from drafted import drafted

from drafting import rules, trees
from modules import features

# Seconds a test: each test fits boosted trees.
pytestmark = pytest.mark.slow

ROWS = 1000


def _churn() -> tuple[dict[str, list[str]], list[int], list[int]]:
    """Columns, a label ruled by them together, and a label whose log-odds add them up."""
    rng = np.random.default_rng(0)
    minutes, calls = rng.uniform(0, 300, ROWS), rng.integers(0, 10, ROWS)
    plan = rng.choice(["yes", "no"], ROWS)
    ruled = [
        int((m > 220 and p == "no") or c >= 6) for m, c, p in zip(minutes, calls, plan, strict=True)
    ]
    odds = (minutes - 150) / 50 + (calls - 4.5) / 3
    added = [int(u < 1 / (1 + np.exp(-o))) for u, o in zip(rng.random(ROWS), odds, strict=True)]
    columns = {
        "minutes": [f"{m:.1f}" for m in minutes],
        "calls": [str(c) for c in calls],
        "plan": list(plan),
    }
    return columns, ruled, added


def test_a_draft_declares_tree_leaves_where_deeper_trees_find_rules():
    columns, ruled_labels, added = _churn()
    ruled = drafted(columns, ruled_labels)
    assert ruled.tree_leaves == trees.DRAFTED == features.TreeLeaves(trees=30, depth=3)
    assert set(ruled.tree_columns()) >= {"minutes", "plan"}
    # Log-odds that add up what each column says: trees of one split say as much.
    assert drafted(columns, added).tree_leaves is None


def test_the_gain_is_the_share_of_held_out_log_loss_the_deeper_trees_take_off():
    columns, ruled, added = _churn()
    choices = [rules.choose(n, v, ruled, "STRING") for n, v in columns.items()]
    gain = trees.measure(columns, ruled, choices)
    assert gain.deep_loss < 0.5 * gain.additive_loss
    assert gain.loss_share == (gain.additive_loss - gain.deep_loss) / gain.additive_loss
    assert trees.summary(gain).startswith("tree leaves: 30 boosted trees of depth 3")
    choices = [rules.choose(n, v, added, "STRING") for n, v in columns.items()]
    gain = trees.measure(columns, added, choices)
    assert abs(gain.loss_share) < trees.MIN_LOSS_SHARE
    assert trees.summary(gain).startswith("no tree leaves (a gain under 5%): trees of depth 3")


def test_no_leaves_are_measured_without_a_column_a_tree_can_split():
    labels = [i % 3 == 0 for i in range(400)]
    ids = {"row": [f"id{i}" for i in range(400)]}  # a row number: left out
    choices = [rules.choose(n, v, labels, "STRING") for n, v in ids.items()]
    assert trees.measure(ids, labels, choices) is None
    assert trees.summary(None).startswith("no tree leaves: no column a tree can split on")
    assert drafted(ids, labels).tree_leaves is None
    # One positive: the folds without it have a class only, and no trees are fitted.
    lone = [1] + [0] * 199
    amounts = {"amount": [str(i) for i in range(200)]}
    choices = [rules.choose(n, v, lone, "STRING") for n, v in amounts.items()]
    assert trees.measure(amounts, lone, choices) is None


def test_the_trees_read_numbers_as_read_and_categories_as_codes():
    columns = {"amount": ["$1,200", "", "$30"] * 40, "kind": ["a", "b", "a"] * 40}
    labels = [1, 0, 0] * 40
    choices = [rules.choose(n, v, labels, "STRING") for n, v in columns.items()]
    x = trees.tree_columns(columns, choices)
    # A missing number sits below every present one.
    np.testing.assert_array_equal(x[:3], [[1200.0, 0.0], [29.0, 1.0], [30.0, 0.0]])
