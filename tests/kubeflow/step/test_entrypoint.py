"""The step entry point's flags: what reaches Beam is what the spec compiled in, no more."""

from __future__ import annotations

import json

import pytest

from kubeflow.step.entrypoint import parse_flags

PROGRAM = "/usr/lib/python3/site-packages/kubeflow/step/entrypoint.py"


@pytest.fixture
def tfx_flags(tmp_path) -> list[str]:
    invocation = {"inputs": {}, "outputs": {"outputFile": str(tmp_path / "output.json")}}
    return [
        "--executor_class_path", "tfx.components.statistics_gen.executor.Executor",
        "--json_serialized_invocation_args", json.dumps(invocation),
    ]  # fmt: skip


def test_the_program_path_is_not_a_beam_argument(tfx_flags):
    # A non-empty list makes TFX build a source package of itself for each Beam step.
    args, beam_args = parse_flags([PROGRAM, *tfx_flags])
    assert beam_args == []
    assert args.executor_class_path == "tfx.components.statistics_gen.executor.Executor"


def test_the_beam_arguments_the_spec_compiles_in_reach_beam_in_order(tfx_flags):
    compiled = ["--runner=DataflowRunner", "--project=p", "--sdk_container_image=img:1"]
    _, beam_args = parse_flags([PROGRAM, *tfx_flags, *compiled])
    assert beam_args == compiled
