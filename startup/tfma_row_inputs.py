"""Each row's label, prediction and weight unpacked once per set of options, not once per metric.

TFMA hands each row of each slice to every metric's combiner in turn
(``_ComputationsCombineFn.add_input``), and each combiner unpacks the same row again
with ``metric_util.to_label_prediction_example_weight``: model and output lookups, the
label's transform, shape checks and conversions, in Python. On the taxi run's 3,000
test rows the Evaluator's metrics asked for it 65,910 times, six a row and slice; kept
per row and set of options, 15,000 of those were computed, and TFMA's evaluation took
about a fifth less (``benchmarks/bench_evaluator.py``).

Here the answer for the row at hand is kept, per set of options, until a different
row arrives: the next combiner asking the same of the same row gets the same arrays.
The combiners TFMA ships read those arrays and never write them (they also receive
arrays that are views of the row itself). A row is the very object TFMA passes; the
one kept is held, so no other row can take its identity. An option that is not a
plain value (the eval config, a sub key) is told apart by identity, and kept with the
answer for the same reason. Kept per thread: Beam's threads each have their own.

Applied by ``startup.process.prepare()`` as TFMA's ``metric_util`` loads, before the
modules that bind the function at import (``binary_confusion_matrices`` takes it as
a default argument). A combiner pickled with this function (that default) unpickles
it by name and, in a process not prepared, adjusts TFMA there first.
"""

from __future__ import annotations

import importlib
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

from startup.after_import import when_imported

METRIC_UTIL = "tensorflow_model_analysis.metrics.metric_util"
_NAME = "to_label_prediction_example_weight"
# Options told apart by value; any other is told apart by identity.
_BY_VALUE = frozenset({str, bool, int, float, type(None)})
# TFMA's own function, once it is replaced.
_TFMA: dict[str, Callable[..., Iterator[Any]]] = {}
_LAST = threading.local()


def unpack_once() -> None:
    """Have each row unpacked once per set of options, when TFMA's metric_util loads (or now)."""
    when_imported(METRIC_UTIL, _adjust)


def _adjust(module: types.ModuleType) -> None:
    if getattr(module, _NAME) is not unpacked_once:
        _TFMA[_NAME] = getattr(module, _NAME)
        setattr(module, _NAME, unpacked_once)


def _tfma_function() -> Callable[..., Iterator[Any]]:
    """TFMA's own function (TFMA adjusted here first, if this process was not prepared)."""
    if _NAME not in _TFMA:
        _adjust(importlib.import_module(METRIC_UTIL))
    return _TFMA[_NAME]


def unpacked_once(inputs: Any, *args: Any, **options: Any) -> Iterator[Any]:
    """TFMA's ``to_label_prediction_example_weight``, answered once per row and options."""
    unpack = _tfma_function()
    if args:  # TFMA's combiners name every option; a positional one is passed through
        yield from unpack(inputs, *args, **options)
        return
    if getattr(_LAST, "inputs", None) is not inputs:
        _LAST.inputs, _LAST.answers = inputs, {}
    key = tuple((k, v if type(v) in _BY_VALUE else id(v)) for k, v in options.items())
    found = _LAST.answers.get(key)
    if found is None:
        # The options are kept with the answer: the identities in the key stay theirs.
        found = _LAST.answers[key] = (tuple(unpack(inputs, **options)), options)
    yield from found[0]
