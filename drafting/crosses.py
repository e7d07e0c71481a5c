"""The draft's crosses: the pairs of features whose joint cells predict the label beyond both.

Every categorical feature and every numeric's quantile buckets (cut as Transform cuts
them) is a candidate, and every pair of candidates is measured. Two models of the
label from the pair's table of cells: the additive one (a log-odds per value of each
feature, added up: what the features say apart, as the model's one-hots say it) and
the cells' own (each cell's share of positives, shrunk towards the additive model as
far as the cells' spread around it is noise). Both are fitted on four folds of the
rows and scored on the fifth, in turn, so a pair of many small cells gains nothing by
fitting its noise. The pair's interaction is what the cells' model gains on the held-out
rows: their log-likelihood (the choice: stable where the pair barely moves the label)
and their AUC (what the draft says). The strongest pairs whose gain no table without
interactions reaches are crossed; the wide part then learns each cell's own weight.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from drafting.rules import Choice, literal
from modules.features import bucket_name

FOLDS = 5
# The same folds every time: a table drafts the same crosses again.
FOLD_SEED = 0
# The additive model's L2 on each value's log-odds: a value of a few rows stays near 0.
ADDITIVE_L2 = 1.0
NEWTON_STEPS = 25
# Halvings of a Newton step that would raise the loss, before it is given up.
HALVINGS = 30
# Crossed: a pair whose cells raise the held-out log-likelihood by MIN_GAIN (nats), which
# no pair of a table without interactions reaches whatever its size, and its AUC by
# MIN_AUC_GAIN, so that a large table's real but slight interactions are not crossed
# (docs/decisions/crosses-by-interaction.md). At most MAX_CROSSES, the strongest first.
MIN_GAIN = 10.0
MIN_AUC_GAIN = 0.005
MAX_CROSSES = 3
# The next best pairs the draft names as left out.
NEXT_BEST = 3
MAX_CROSS_BUCKETS = 1000


@dataclass(frozen=True)
class Candidate:
    """A feature a cross can take: its name, ids (Choice.categories) and each row's code."""

    feature: str
    categories: int
    codes: np.ndarray

    @property
    def values(self) -> int:
        """How many codes the rows hold."""
        return int(self.codes.max()) + 1


@dataclass(frozen=True)
class Interaction:
    """A pair's measured interaction: what its cells predict beyond both features added up."""

    features: tuple[str, str]
    gain: float  # held-out log-likelihood, cells' model minus additive (nats)
    cells_auc: float  # held-out AUC, the mean over folds
    additive_auc: float
    hash_buckets: int

    @property
    def auc_gain(self) -> float:
        """The cells' held-out AUC beyond the additive model's."""
        return self.cells_auc - self.additive_auc

    def shortfall(self) -> str:
        """The threshold the pair falls short of; empty when it reaches both."""
        if self.gain < MIN_GAIN:
            return f"log-likelihood gain under {MIN_GAIN:g}"
        if self.auc_gain < MIN_AUC_GAIN:
            return f"AUC gain under {MIN_AUC_GAIN}"
        return ""

    def declaration(self) -> str:
        """The pair as a Cross declaration (Python source)."""
        a, b = self.features
        return f"Cross(({literal(a)}, {literal(b)}), {self.hash_buckets})"

    def describe(self) -> str:
        """``A x B: interaction +0.012 AUC beyond both alone (0.712 against 0.700), ...``."""
        return (
            f"{' x '.join(self.features)}: interaction {self.auc_gain:+.3f} AUC beyond both "
            f"alone ({self.cells_auc:.3f} against {self.additive_auc:.3f}), held-out "
            f"log-likelihood {self.gain:+.1f}"
        )


@dataclass(frozen=True)
class Crosses:
    """The pairs crossed, strongest first, and the next best pairs, left out."""

    chosen: tuple[Interaction, ...]
    left_out: tuple[Interaction, ...]


def bucket_codes(values: Sequence[str | float | None], buckets: int) -> np.ndarray:
    """Each cell's quantile bucket of ``buckets``, as Transform cuts them; missing: ``buckets``.

    A cell that does not read as a number counts as missing.
    """
    numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    present = numbers[~np.isnan(numbers)]
    if not len(present):
        return np.full(len(numbers), buckets)
    boundaries = np.quantile(present, np.arange(1, buckets) / buckets)
    # As tft.apply_buckets: bucket i holds boundaries[i - 1] <= x < boundaries[i].
    codes = np.searchsorted(boundaries, numbers, side="right")
    return np.where(np.isnan(numbers), buckets, codes)


def category_codes(values: Sequence[str]) -> np.ndarray:
    """Each cell's value as a code; an empty cell is a value of its own."""
    return pd.factorize(pd.Series(values, dtype=object))[0]


def candidates(cells: Mapping[str, Sequence[str]], choices: Sequence[Choice]) -> list[Candidate]:
    """Every feature a cross can take: categorical columns and numerics' quantile buckets."""
    found = []
    for c in choices:
        if not c.feature:
            continue
        if c.feature == bucket_name(c.column):
            # Choice.categories counts the missing value's bucket too.
            # A column written as text is bucketed by the numbers the draft read from it.
            codes = bucket_codes(c.numbers or cells[c.column], c.categories - 1)
        else:
            codes = category_codes(cells[c.column])
        found.append(Candidate(c.feature, c.categories, codes))
    return found


def additive_probabilities(positives: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The additive logistic model of a pair's [a, b] table of cells: each cell's probability.

    Its log-odds are an intercept plus a's value's plus b's (an L2 of ADDITIVE_L2 on
    the values'), fitted by Newton's method. Gradient and Hessian are sums over the
    table's rows and columns: a step costs the table and a solve of a + b + 1 unknowns,
    however many rows the table counts.
    """
    size_a, size_b = rows.shape
    rate = (positives.sum() + 0.5) / (rows.sum() + 1.0)
    theta = np.r_[np.log(rate / (1 - rate)), np.zeros(size_a + size_b)]
    penalty = np.r_[0.0, np.full(size_a + size_b, ADDITIVE_L2)]
    for _ in range(NEWTON_STEPS):
        p = _additive(theta, size_a)
        weight = rows * p * (1 - p)
        margins = _margins(weight)
        hessian = np.diag(margins + penalty)
        hessian[0, 1:] = hessian[1:, 0] = margins[1:]
        hessian[1 : 1 + size_a, 1 + size_a :] = weight
        hessian[1 + size_a :, 1 : 1 + size_a] = weight.T
        step = np.linalg.solve(hessian, _margins(positives - rows * p) - penalty * theta)
        theta += _damped(step, theta, positives, rows, penalty)
        if np.abs(step).max() < 1e-6:
            break
    return _additive(theta, size_a)


def _damped(
    step: np.ndarray,
    theta: np.ndarray,
    positives: np.ndarray,
    rows: np.ndarray,
    penalty: np.ndarray,
) -> np.ndarray:
    """Newton's ``step``, halved until the penalized loss falls (or the step is nothing).

    A full step overshoots where a value has almost no positive (its log-odds head to
    minus infinity): without the halving the fit diverged into a singular Hessian.
    """
    size_a = rows.shape[0]

    def loss(at: np.ndarray) -> float:
        logits = _logits(at, size_a)
        fit = (rows * np.logaddexp(0.0, logits) - positives * logits).sum()
        return float(fit + 0.5 * (penalty * at**2).sum())

    now = loss(theta)
    for _ in range(HALVINGS):
        if loss(theta + step) <= now:
            return step
        step = step / 2
    return np.zeros_like(step)


def _logits(theta: np.ndarray, size_a: int) -> np.ndarray:
    """Each cell's log-odds: the intercept, a's value's and b's added up."""
    return theta[0] + theta[1 : 1 + size_a, None] + theta[None, 1 + size_a :]


def _additive(theta: np.ndarray, size_a: int) -> np.ndarray:
    """The probability of each cell under the additive model ``theta``."""
    return 1 / (1 + np.exp(-_logits(theta, size_a)))


def _margins(table: np.ndarray) -> np.ndarray:
    """The table's total, then its row sums, then its column sums."""
    return np.concatenate([[table.sum()], table.sum(1), table.sum(0)])


def cell_probabilities(positives: np.ndarray, rows: np.ndarray, additive: np.ndarray) -> np.ndarray:
    """Each cell's own share of positives, shrunk towards the additive model's probability.

    How far is estimated from the table itself (empirical Bayes, by moments): the
    variance of the cells' true departures from the additive model is how far their
    departures spread beyond binomial noise (less what the additive fit absorbed). A
    cell of n rows then weighs its own share as n rows against p(1 - p) / variance rows
    of the additive p. No spread beyond the noise: the additive model itself.
    """
    noise = rows * additive * (1 - additive)
    occupied = rows > 0
    fitted = occupied.any(1).sum() + occupied.any(0).sum() - 1
    unfitted = max(0, occupied.sum() - fitted) / max(1, occupied.sum())
    excess = ((positives - rows * additive) ** 2 - unfitted * noise).sum()
    variance = excess / max(1.0, (rows**2).sum())
    if variance <= 0:
        return additive
    prior_rows = additive * (1 - additive) / variance
    return (positives + prior_rows * additive) / (rows + prior_rows)


def grouped_auc(scores: np.ndarray, positives: np.ndarray, negatives: np.ndarray) -> float:
    """ROC AUC of groups of rows sharing a score (ties count half); NaN without both classes."""
    order = np.argsort(scores, kind="mergesort")
    ordered = scores[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    pos = np.add.reduceat(positives[order], starts)
    neg = np.add.reduceat(negatives[order], starts)
    pairs = pos.sum() * neg.sum()
    if not pairs:
        return float("nan")
    return float((pos * (np.cumsum(neg) - neg / 2)).sum() / pairs)


def log_likelihood(
    probabilities: np.ndarray, positives: np.ndarray, negatives: np.ndarray
) -> float:
    """The log-likelihood of groups of rows sharing a probability (nats)."""
    p = np.clip(probabilities, 1e-12, 1 - 1e-12)
    return float((positives * np.log(p) + negatives * np.log(1 - p)).sum())


def interaction(a: Candidate, b: Candidate, labels: np.ndarray, folds: np.ndarray) -> Interaction:
    """What the pair's cells predict beyond a and b added up, on held-out rows.

    In each fold both models are fitted on the other folds' table of cells and score
    the fold's rows: the log-likelihoods add up over the folds, the AUCs average.
    """
    shape = (FOLDS, a.values, b.values)
    index = (folds * a.values + a.codes) * b.values + b.codes
    rows = np.bincount(index, minlength=np.prod(shape)).reshape(shape)
    positives = np.bincount(index, weights=labels, minlength=np.prod(shape)).reshape(shape)
    scored = []
    for fold in range(FOLDS):
        train_rows, train_positives = rows.sum(0) - rows[fold], positives.sum(0) - positives[fold]
        additive = additive_probabilities(train_positives, train_rows)
        models = (cell_probabilities(train_positives, train_rows, additive), additive)
        held = (positives[fold].ravel(), (rows[fold] - positives[fold]).ravel())
        scored.append(
            [log_likelihood(p.ravel(), *held) for p in models]
            + [grouped_auc(p.ravel(), *held) for p in models]
        )
    cells_ll, additive_ll = np.sum(scored, axis=0)[:2]
    cells_auc, additive_auc = np.nanmean(scored, axis=0)[2:]
    buckets = min(MAX_CROSS_BUCKETS, 2 * a.categories * b.categories)
    return Interaction(
        (a.feature, b.feature), float(cells_ll - additive_ll), float(cells_auc),
        float(additive_auc), buckets,
    )  # fmt: skip


def fold_of_each_row(rows: int, groups: Sequence[str] | None = None) -> np.ndarray:
    """Each row's fold: the rows shuffled (FOLD_SEED) and dealt into FOLDS folds.

    With ``groups`` (each row's entity), the entities are dealt instead: a held-out
    fold then holds entities the fit never saw, as the run's test split does.
    """
    if groups is None:
        return np.random.default_rng(FOLD_SEED).permutation(rows) % FOLDS
    entities, entity_of_row = np.unique(np.asarray(groups), return_inverse=True)
    fold_of_entity = np.random.default_rng(FOLD_SEED).permutation(len(entities)) % FOLDS
    return fold_of_entity[entity_of_row]


def measure_pairs(
    cells: Mapping[str, Sequence[str]],
    labels: Sequence[int],
    choices: Sequence[Choice],
    groups: Sequence[str] | None = None,
) -> list[Interaction]:
    """Every pair of candidate features' interaction, the strongest first (folds: ``groups``)."""
    y = np.asarray(labels, dtype=float)
    folds = fold_of_each_row(len(y), groups)
    pairs = itertools.combinations(candidates(cells, choices), 2)
    # The Newton steps solve systems of a few dozen unknowns: BLAS's threads, woken for
    # each, cost far more than the solve on a busy machine.
    with threadpool_limits(limits=1, user_api="blas"):
        return sorted((interaction(a, b, y, folds) for a, b in pairs), key=lambda m: -m.gain)


def choose_crosses(
    cells: Mapping[str, Sequence[str]],
    labels: Sequence[int],
    choices: Sequence[Choice],
    groups: Sequence[str] | None = None,
) -> Crosses:
    """The pairs to cross: the MAX_CROSSES strongest reaching both thresholds; the next best.

    ``groups`` (each row's entity) keeps an entity's rows in one fold.
    """
    measured = measure_pairs(cells, labels, choices, groups)
    chosen = [m for m in measured if not m.shortfall()][:MAX_CROSSES]
    rest = [m for m in measured if m not in chosen]
    return Crosses(tuple(chosen), tuple(rest[:NEXT_BEST]))


def summary(crosses: Crosses) -> list[str]:
    """What the draft prints of its crosses: each one and why, then the next best left out."""
    lines = [
        f"crosses: pairs whose cells predict the label beyond both features alone, on "
        f"held-out rows ({FOLDS} folds; crossed from a log-likelihood gain of {MIN_GAIN:g} "
        f"and an AUC gain of {MIN_AUC_GAIN})"
    ]
    lines += [f"  crossed {m.describe()}" for m in crosses.chosen]
    if not crosses.chosen:
        lines.append("  none crossed: no pair reaches both thresholds")
    for m in crosses.left_out:
        why = m.shortfall() or f"beyond the {MAX_CROSSES} strongest"
        lines.append(f"  left out ({why}) {m.describe()}")
    return lines
