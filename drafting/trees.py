"""Whether the draft adds boosted trees' leaves: what trees of depth 3 find beyond depth 1.

Trees of one split each add up what each column says alone; trees of depth 3 also
find rules of two and three columns ("many day minutes and no voice-mail plan").
Both are fitted on four folds of the rows and scored on the fifth, in turn (the
crosses' folds). Where the deeper trees lower the held-out log loss by MIN_LOSS_SHARE
or more, the table's signal lies in such rules, and the draft declares
``TreeLeaves``: Transform fits the trees and the wide part weighs each leaf. Elsewhere
the draft declares none: added to every table of the benchmark suite, the leaves cost
AUC where this measure found no gain (attrition 0.022, credit_data 0.012). On the suite
one table of ten gained 31% and the rest at most 1.9% (docs/decisions/drafting-rules.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from drafting.crosses import FOLD_SEED, FOLDS, category_codes, fold_of_each_row
from drafting.rules import Choice
from modules import features

MIN_LOSS_SHARE = 0.05
# The tree leaves a draft declares: TreeLeaves' defaults.
DRAFTED = features.TreeLeaves()
# The rows measured, at most: a sample of a larger table (FOLD_SEED) says as much.
MAX_ROWS = 20_000
# The additive trees: as many rounds of splits as the deep trees have levels in all.
ADDITIVE_TREES = DRAFTED.trees * DRAFTED.depth


@dataclass(frozen=True)
class TreeGain:
    """The held-out log loss (per row) and AUC of the deep trees and of the additive ones."""

    deep_loss: float
    additive_loss: float
    deep_auc: float
    additive_auc: float

    @property
    def loss_share(self) -> float:
        """The share of the additive trees' held-out log loss the deep trees take off."""
        return (self.additive_loss - self.deep_loss) / self.additive_loss

    def leaves(self) -> features.TreeLeaves | None:
        """The draft's tree leaves: declared from a gain of MIN_LOSS_SHARE."""
        return DRAFTED if self.loss_share >= MIN_LOSS_SHARE else None

    def describe(self) -> str:
        """``trees of depth 3 take 31.0% off the held-out log loss of depth 1 (AUC ...)``."""
        return (
            f"trees of depth {DRAFTED.depth} take {self.loss_share:.1%} off the held-out log "
            f"loss of trees of depth 1 (AUC {self.deep_auc:.3f} against {self.additive_auc:.3f})"
        )


def summary(gain: TreeGain | None) -> str:
    """The draft's line on its tree leaves: declared or not, and the measure why."""
    if gain is None:
        return "no tree leaves: no column a tree can split on, or a class too rare to fold"
    if gain.leaves() is None:
        return f"no tree leaves (a gain under {MIN_LOSS_SHARE:.0%}): {gain.describe()}"
    return (
        f"tree leaves: {DRAFTED.trees} boosted trees of depth {DRAFTED.depth}, fit by "
        f"Transform on the train split, their leaves in the wide part: {gain.describe()}"
    )


def tree_columns(cells: Mapping[str, Sequence[str]], choices: Sequence[Choice]) -> np.ndarray:
    """The columns the trees split on, [rows, columns]: numbers as read, categories as codes.

    As the pipeline's trees read them, but for two things: categories are coded in
    order of appearance, not by their tokens' hashes (a tree splits an arbitrary order
    either way), and dates are left out (the pipeline's trees read their parts), so a
    table whose rules lie in the time of day or the weekday may measure less than it
    gains. Hashed ids are left out (their order is the hash's); a missing number sits
    below every present one.
    """
    columns = []
    for c in choices:
        if c.group == "numeric":
            values = pd.Series(c.numbers or cells[c.column], dtype=object)
            numbers = pd.to_numeric(values, errors="coerce").to_numpy(float)
            low = np.nanmin(numbers) - 1 if not np.isnan(numbers).all() else 0.0
            columns.append(np.where(np.isnan(numbers), low, numbers))
        elif c.group in ("vocabularies", "integer_ranges"):
            columns.append(category_codes(cells[c.column]).astype(float))
    return np.column_stack(columns) if columns else np.empty((0, 0))


def measure(
    cells: Mapping[str, Sequence[str]],
    labels: Sequence[int],
    choices: Sequence[Choice],
    groups: Sequence[str] | None = None,
) -> TreeGain | None:
    """What the deep trees gain over the additive ones on held-out rows.

    ``groups`` (each row's entity) keeps an entity's rows in one fold. None when no
    column can be split, or a fold's other rows hold one class only.
    """
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import log_loss, roc_auc_score

    from modules.tree_leaves import LEARNING_RATE, SEED  # the pipeline's trees' settings

    x, y = tree_columns(cells, choices), np.asarray(labels, dtype=int)
    if not x.size:
        return None
    if len(y) > MAX_ROWS:
        keep = np.random.default_rng(FOLD_SEED).choice(len(y), MAX_ROWS, replace=False)
        x, y = x[keep], y[keep]
        groups = None if groups is None else [groups[i] for i in keep]
    folds = fold_of_each_row(len(y), groups)
    if any(len(np.unique(y[folds != fold])) < 2 for fold in range(FOLDS)):
        return None
    scores = {depth: np.zeros(len(y)) for depth in (1, DRAFTED.depth)}
    for fold in range(FOLDS):
        train, held = folds != fold, folds == fold
        for depth in scores:
            trees = ADDITIVE_TREES if depth == 1 else DRAFTED.trees
            model = GradientBoostingClassifier(
                n_estimators=trees, max_depth=depth, learning_rate=LEARNING_RATE, random_state=SEED
            )
            scores[depth][held] = model.fit(x[train], y[train]).predict_proba(x[held])[:, 1]
    additive, deep = scores[1], scores[DRAFTED.depth]
    return TreeGain(
        deep_loss=log_loss(y, deep),
        additive_loss=log_loss(y, additive),
        deep_auc=roc_auc_score(y, deep),
        additive_auc=roc_auc_score(y, additive),
    )
