"""Error rates by slice at the decision thresholds, as Fairness Indicators shows them.

At each of the dataset's ``review_thresholds`` TFMA counts, per slice and per model,
the true and false positives and negatives (``ConfusionMatrixAtThresholds``, the
computation Fairness Indicators' rates rest on; its own metric class ships in a
separate package this product does not install). From the counts come each rate's
95% Wilson interval and, against the serving model on the same rows, Newcombe's
interval of the gap: a slice is flagged where the candidate's false positive or
false negative rate is higher beyond that noise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from review.curves import Operating, key_value
from review.paired_comparison import read_json, slice_label, slice_order, write_json
from review.proportions import gap_interval, wilson
from review.tfma_files import load_metrics

if TYPE_CHECKING:
    from tensorflow_model_analysis.proto.metrics_for_slice_pb2 import MetricValue

RATES_AT_THRESHOLDS = "rates_at_thresholds"
HELD_RATES_FILE = "held_error_rates.json"


@dataclass(frozen=True)
class Rate:
    """One error rate of one model: errors out of the rows of the class it is of."""

    errors: int
    rows: int

    @property
    def share(self) -> float | None:
        """The rate: errors over rows (None: no rows of the class)."""
        return self.errors / self.rows if self.rows else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """Its 95% Wilson interval."""
        return wilson(self.errors, self.rows)

    def text(self, between: str = "-", interval: bool = True, missing: str = "-") -> str:
        """The rate for people, with its interval, or alone; ``missing`` without rows.

        "0.034 .021-.052" (the terminal's, for width) or, with ``between`` " to ",
        "0.034 (0.021 to 0.052)".
        """
        if self.share is None:
            return missing
        if not interval:
            return f"{self.share:.3f}"
        low, high = self.interval
        if between == "-":
            return f"{self.share:.3f} {_bare(low)}-{_bare(high)}"
        return f"{self.share:.3f} ({low:.3f}{between}{high:.3f})"


def _bare(value: float) -> str:
    """A share in three decimals without its leading zero: ".021" (1 stays "1.000")."""
    text = f"{value:.3f}"
    return text[1:] if text.startswith("0.") else text


HEADINGS = ("slice", "neg", "FPR (95%)", "serving", "pos", "FNR (95%)", "serving", "")


@dataclass(frozen=True)
class SliceRates:
    """One slice at one threshold: both models' false positive and negative rates."""

    column: str | None
    value: str | None
    threshold: float
    candidate: Operating
    serving: Operating | None

    @property
    def name(self) -> str:
        """``Overall`` or ``column=value``."""
        return slice_label(self.column, self.value)

    @property
    def rows(self) -> int:
        """The slice's rows."""
        c = self.candidate
        return round(c.tp + c.fp + c.tn + c.fn)

    def rate(self, kind: str, model: str = "candidate") -> Rate | None:
        """``kind`` "fpr" (false positives of the negatives) or "fnr", for ``model``."""
        point = self.candidate if model == "candidate" else self.serving
        if point is None:
            return None
        if kind == "fpr":
            return Rate(round(point.fp), round(point.fp + point.tn))
        return Rate(round(point.fn), round(point.fn + point.tp))

    def gap(self, kind: str) -> tuple[float, float] | None:
        """The 95% interval of candidate - serving rate (None: no serving model, no rows)."""
        mine, theirs = self.rate(kind), self.rate(kind, "serving")
        if theirs is None or not mine.rows or not theirs.rows:
            return None
        return gap_interval((mine.errors, mine.rows), (theirs.errors, theirs.rows))

    def cells(self, between: str = "-", missing: str = "-") -> list[str]:
        """The row for people, under ``HEADINGS``.

        Each rate's rows of its class, the candidate's rate with its interval, the
        serving model's, and the rates flagged higher than the serving model's.
        """
        fpr, fnr = self.rate("fpr"), self.rate("fnr")
        serving = [self.rate(kind, "serving") for kind in ("fpr", "fnr")]
        return [
            self.name,
            f"{fpr.rows:,}",
            fpr.text(between, missing=missing),
            serving[0].text(interval=False, missing=missing) if serving[0] else missing,
            f"{fnr.rows:,}",
            fnr.text(between, missing=missing),
            serving[1].text(interval=False, missing=missing) if serving[1] else missing,
            f"higher {','.join(self.higher)}" if self.higher else "",
        ]

    @property
    def higher(self) -> list[str]:
        """The rates ("FPR", "FNR") higher than the serving model's beyond noise."""
        return [
            kind.upper()
            for kind in ("fpr", "fnr")
            if (gap := self.gap(kind)) is not None and gap[0] > 0
        ]


def beyond_bound(rates: Sequence[SliceRates], rise: float) -> list[str]:
    """Each rate whose gap to serving lies wholly above ``rise``, for the verdict.

    E.g. "company=Cab FNR at 0.25: 0.131 against 0.035 (gap 95% interval +0.068 to
    +0.118)"; [] when none does or nothing served.
    """
    found = []
    for r in rates:
        for kind in ("fpr", "fnr"):
            gap = r.gap(kind)
            if gap is not None and gap[0] > rise:
                mine, theirs = r.rate(kind), r.rate(kind, "serving")
                found.append(
                    f"{r.name} {kind.upper()} at {r.threshold:g}: {mine.share:.3f} against "
                    f"{theirs.share:.3f} (gap 95% interval {gap[0]:+.3f} to {gap[1]:+.3f})"
                )
    return found


def not_judged(rates: Sequence[SliceRates]) -> str:
    """Why the bound could judge no rate ("": it judged at least one)."""
    if not rates:
        return "the evaluation recorded no error rates"
    if all(r.gap(kind) is None for r in rates for kind in ("fpr", "fnr")):
        return "no rate has rows of its class on both the candidate and the serving model"
    return ""


@dataclass(frozen=True)
class HeldRates:
    """The error-rate bound's verdict.

    The bound, the rates beyond it, and why it judged nothing where it could not ("":
    it judged).
    """

    bound: float
    held: list[str]
    not_judged: str = ""


def write_held(verdict: HeldRates, folder: str) -> None:
    """Keep the error-rate bound's verdict in ``folder`` (the evaluation's)."""
    write_json(asdict(verdict), folder, HELD_RATES_FILE)


def read_held(folder: str) -> HeldRates | None:
    """What ``write_held`` kept in ``folder``; None: no bound declared."""
    found = read_json(folder, HELD_RATES_FILE)
    return HeldRates(**found) if found is not None else None


def _matrices(value: MetricValue) -> dict[float, Operating]:
    return {
        m.threshold: Operating(
            m.threshold, m.true_positives, m.false_positives, m.true_negatives, m.false_negatives
        )
        for m in value.confusion_matrix_at_thresholds.matrices
    }


def load_rates(
    evaluation_uri: str, model_of: Callable[[str], str | None], min_rows: int = 0
) -> list[SliceRates]:
    """Every slice's rates at every recorded threshold, in slice order ([]: none recorded).

    ``model_of`` maps TFMA's model names to "candidate" and "baseline"; slices of fewer
    than ``min_rows`` rows are left out (their rates are noise), as crosses are.
    """
    found = []
    for per_slice in load_metrics(evaluation_uri):
        keys = per_slice.slice_key.single_slice_keys
        if len(keys) > 1:
            continue
        by_model = {
            model_of(kv.key.model_name): _matrices(kv.value)
            for kv in per_slice.metric_keys_and_values
            if kv.key.name == RATES_AT_THRESHOLDS and not kv.key.is_diff
        }
        column, value = (keys[0].column, key_value(keys[0])) if keys else (None, None)
        for threshold, point in sorted(by_model.get("candidate", {}).items()):
            rates = SliceRates(
                column, value, threshold, point, by_model.get("baseline", {}).get(threshold)
            )
            if not keys or rates.rows >= min_rows:
                found.append(rates)
    return sorted(found, key=lambda r: (r.threshold, slice_order(r.column, r.value, r.rows)))
