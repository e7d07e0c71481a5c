"""Each row unpacked once per set of options: every metric bit for bit what TFMA computes alone."""

from __future__ import annotations

import numpy as np
import pytest
from fresh_process import printed_by
from tensorflow_model_analysis.metrics import metric_types, metric_util

from startup import tfma_row_inputs

# In a fresh process, TFMA as it ships or adjusted before it loads (its binary confusion
# matrices bind the function at import): the taxi Evaluator's metric combiners fed 400
# seeded rows, each row handed to every combiner in turn, once per slice it is in, as
# TFMA's ``_ComputationsCombineFn`` does. Prints the combiners, a digest of their
# outputs (floats by their bits), the rows TFMA unpacked and the function's name.
_COMBINE = """
import hashlib, os, random
import numpy as np
from startup import process, tfma_row_inputs
os.environ.update(process.ENVIRONMENT)
if {adjusted}:
    tfma_row_inputs.unpack_once()
from tensorflow_model_analysis.metrics import metric_specs, metric_types, metric_util
import datasets
from pipeline_def.evaluation import eval_config

config = eval_config(datasets.load("taxi"), 0.9, 0.01)
names = [""]
if {two_models}:
    names = ["candidate", "baseline"]
    config.model_specs[0].name = "candidate"
    baseline = config.model_specs.add()
    baseline.CopyFrom(config.model_specs[0])
    baseline.name, baseline.is_baseline = "baseline", True
    for spec in config.metrics_specs:
        spec.model_names[:] = names
unpacked = [0]
if {adjusted}:
    tfma = tfma_row_inputs._TFMA[tfma_row_inputs._NAME]
    def counted(*args, **kwargs):
        unpacked[0] += 1
        return tfma(*args, **kwargs)
    tfma_row_inputs._TFMA[tfma_row_inputs._NAME] = counted
computations = metric_specs.to_computations(config.metrics_specs, eval_config=config)
combiners = [c.combiner for c in computations if isinstance(c, metric_types.MetricComputation)]
accumulators = [c.create_accumulator() for c in combiners]
rng = random.Random(0)
each = (lambda by_model: by_model[""]) if names == [""] else (lambda by_model: by_model)
for _ in range(400):
    label = float(rng.random() < 0.3)
    element = metric_types.StandardMetricInputs(
        labels=each({{n: np.array([label]) for n in names}}),
        predictions=each({{n: np.array([rng.random()], dtype=np.float32) for n in names}}),
        example_weights=each({{n: np.array([1.0]) for n in names}}),
    )
    for _ in range(rng.choice([1, 3, 4])):
        accumulators = [c.add_input(a, element) for c, a in zip(combiners, accumulators)]

def canonical(value):
    if isinstance(value, dict):
        pairs = sorted(canonical(k) + ":" + canonical(v) for k, v in value.items())
        return "{{" + ",".join(pairs) + "}}"
    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return value.dtype.str + value.tobytes().hex()
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString(deterministic=True).hex()
    if hasattr(value, "__dict__"):
        return type(value).__name__ + canonical(vars(value))
    if hasattr(type(value), "__slots__"):
        slots = {{s: getattr(value, s) for s in type(value).__slots__}}
        return type(value).__name__ + canonical(slots)
    assert " at 0x" not in repr(value), repr(value)
    return repr(value)

outputs = [c.extract_output(a) for c, a in zip(combiners, accumulators)]
digest = hashlib.sha256(canonical(outputs).encode()).hexdigest()
print(len(combiners), digest, unpacked[0], metric_util.to_label_prediction_example_weight.__name__)
"""


@pytest.mark.slow  # two fresh processes import TFMA
@pytest.mark.parametrize("two_models", [False, True], ids=["candidate", "with_baseline"])
def test_every_metric_is_bit_for_bit_tfma_s_own(two_models):
    shipped = printed_by(_COMBINE.format(adjusted=False, two_models=two_models))
    adjusted = printed_by(_COMBINE.format(adjusted=True, two_models=two_models))

    assert shipped[-1] == "to_label_prediction_example_weight"
    assert adjusted[-1] == tfma_row_inputs.unpacked_once.__name__
    assert int(adjusted[0]) >= (26 if two_models else 13)  # the combiners, one per metric
    assert adjusted[1] == shipped[1]  # every combiner's output, bit for bit
    # 400 rows: each unpacked a handful of times (once per set of options), not per metric.
    assert 400 <= int(adjusted[2]) <= 400 * (10 if two_models else 5)


def test_a_positional_option_is_passed_to_tfma_as_given():

    element = metric_types.StandardMetricInputs(
        labels=np.array([1.0]), predictions=np.array([0.25]), example_weights=np.array([2.0])
    )
    assert metric_util.to_label_prediction_example_weight is tfma_row_inputs.unpacked_once
    (by_name,) = list(tfma_row_inputs.unpacked_once(element, None, "", example_weighted=True))
    (kept,) = list(tfma_row_inputs.unpacked_once(element, example_weighted=True))
    (again,) = list(tfma_row_inputs.unpacked_once(element, example_weighted=True))
    assert [a.tolist() for a in by_name] == [[1.0], [0.25], [2.0]] == [a.tolist() for a in kept]
    assert all(a is b for a, b in zip(kept, again, strict=True))  # the row's answer, kept
