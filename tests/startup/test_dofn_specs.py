"""Beam's DoFn specs answered once per DoFn object, and the same answers as Beam's own."""

from __future__ import annotations

import gc

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms import userstate
from apache_beam.transforms.userstate import BagStateSpec, TimerSpec, on_timer
from fresh_process import printed_by

from startup import dofn_specs

BAG = BagStateSpec("seen", beam.coders.VarIntCoder())
ALARM = TimerSpec("alarm", beam.TimeDomain.WATERMARK)
# Beam reads a DoFn's state and timers from its methods' default values.
BAG_PARAM = beam.DoFn.StateParam(BAG)
ALARM_PARAM = beam.DoFn.TimerParam(ALARM)


class _Stateful(beam.DoFn):
    def process(self, element, bag=BAG_PARAM, alarm=ALARM_PARAM):
        bag.add(element[1])
        alarm.clear()  # nothing rings: the DoFn has a timer to be found
        yield element

    @on_timer(ALARM)
    def ring(self):
        yield "rang"


class _Twice(beam.DoFn):
    def process(self, element, a=BAG_PARAM, b=BAG_PARAM):
        yield element


def _counted() -> tuple[list, object]:
    asked = []

    def get_specs(dofn):
        asked.append(type(dofn).__name__)  # not the DoFn: a test lets it die
        return beam_get_specs(dofn)

    return asked, dofn_specs.answered_once(get_specs)


# Beam's own function, under the conftest's prepare() adjustment.
beam_get_specs = getattr(userstate.get_dofn_specs, "__wrapped__", userstate.get_dofn_specs)


def test_a_dofn_is_read_once_while_it_lives_and_a_new_one_again():
    asked, get_specs = _counted()
    stateful, plain = _Stateful(), beam.Map(len).dofn
    first = get_specs(stateful)
    assert first == ({BAG}, {ALARM})
    first[0].clear()  # what a caller does with its copy is its own
    assert [get_specs(stateful) for _ in range(4)] == [({BAG}, {ALARM})] * 4
    assert get_specs(plain) == (set(), set())
    assert asked == ["_Stateful", "CallableWrapperDoFn"]
    del stateful
    gc.collect()
    assert len(get_specs.answered) == 1  # a dead DoFn's answer is let go
    assert get_specs(_Stateful()) == ({BAG}, {ALARM})
    assert len(asked) == 3


def test_a_dofn_with_a_parameter_twice_raises_each_time_it_is_asked():
    asked, get_specs = _counted()
    twice = _Twice()
    for _ in range(2):
        with pytest.raises(ValueError, match="duplicate process method parameters"):
            get_specs(twice)
    assert len(asked) == 2


def test_a_stateful_pipeline_runs_as_before_with_beam_asking_once_per_dofn(monkeypatch):
    assert hasattr(userstate.get_dofn_specs, "answered"), "the conftest's prepare() left Beam as is"
    asked, get_specs = _counted()
    questions = []

    def asking(dofn):
        questions.append(type(dofn).__name__)
        return get_specs(dofn)

    monkeypatch.setattr(userstate, "get_dofn_specs", asking)
    with beam.Pipeline() as pipeline:
        seen = (
            pipeline
            | beam.Create([("a", 1), ("a", 2), ("b", 3)])
            | beam.ParDo(_Stateful())
            | beam.combiners.Count.Globally()
        )
        assert_that(seen, equal_to([3]))
    assert "_Stateful" in questions
    assert len(asked) < len(questions) / 2, (len(asked), len(questions))


# Beam loaded after prepare(): not by it, and every module that binds the function
# from Beam's own module (the direct runner's evaluators) binds the adjusted one.
_AFTER_PREPARE = """
import sys
from startup import process
process.prepare()
assert "apache_beam" not in sys.modules, "prepare() imported Beam"
from apache_beam.runners.direct import transform_evaluator
from apache_beam.transforms import userstate
print(hasattr(userstate.get_dofn_specs, "answered"),
      transform_evaluator.get_dofn_specs is userstate.get_dofn_specs)
"""


@pytest.mark.slow  # starts a process that imports Beam
def test_beam_loaded_after_prepare_is_adjusted_where_every_module_reads_it():
    assert printed_by(_AFTER_PREPARE) == ["True", "True"]
