"""The command of every Kubeflow step: TFX's executor entry point, fixed for open-source KFP.

``python -m pipeline_def.kfp_entrypoint`` takes the arguments of TFX's
``tfx.orchestration.kubeflow.v2.container.kubeflow_v2_run_executor`` and runs it, after
the fixes that open-source Kubeflow Pipelines needs:

* TensorFlow reads ``s3://`` (KFP's MinIO or Amazon S3) only once tensorflow-io's
  filesystem plugin is loaded; it is loaded first.
* KFP's driver hands each step its input artifacts without their type: it reads
  them back from ML-Metadata with an empty schema (kubeflow/pipelines,
  ``backend/src/v2/metadata/client.go``, GetOutputArtifactsByExecutionId: ``Schema:
  "" // TODO``), and TFX's entry point then cannot tell which artifact class to
  build. Each untyped input takes the type the component declares for it, from the
  inputs spec TFX compiles into the arguments (``--json_serialized_inputs_spec_args``,
  schema 2.1.0); sky-uk/kfp-operator's TFX patch does the same.
* TFX's entry point imports a custom artifact class by its schema title, and the
  artifacts the KFP UI draws are titled ``system.HTML`` and ``system.Metrics``
  (``components/kfp_ui.py``): ``system`` is that module.
* tensorflow-io 0.37.1's S3 client aborts the process at exit ("pure virtual method
  called", exit code 134: tensorflow/io#2039, unfixed in a release), which KFP would
  record as a failed step. The process exits with the step's own status instead,
  after flushing its output.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback

from absl import app
from google.protobuf import json_format
from kfp.pipeline_spec import pipeline_spec_pb2

# TFX's entry point for Kubeflow V2 steps; not in tfx.v1.
from tfx.orchestration.kubeflow.v2.container import kubeflow_v2_run_executor


def load_s3_filesystem() -> None:
    """Register tensorflow-io's s3:// filesystem with TensorFlow."""
    import tensorflow_io  # noqa: F401 - imported for its filesystem plugins


def register_ui_artifact_types() -> None:
    """Make ``system.HTML`` and ``system.Metrics`` importable by their titles."""
    from components import kfp_ui

    sys.modules.setdefault("system", kfp_ui)


def typed_executor_input(invocation: str, inputs_spec: str | None) -> str:
    """The ExecutorInput JSON ``invocation`` with each untyped input artifact typed.

    The type is the component's declaration in ``inputs_spec`` (a
    ComponentInputsSpec in JSON); artifacts that carry a type keep it.
    """
    executor_input = json_format.Parse(
        invocation, pipeline_spec_pb2.ExecutorInput(), ignore_unknown_fields=True
    )
    if not inputs_spec:
        return invocation
    declared = json_format.Parse(
        inputs_spec, pipeline_spec_pb2.ComponentInputsSpec(), ignore_unknown_fields=True
    ).artifacts
    for name, artifacts in executor_input.inputs.artifacts.items():
        for artifact in artifacts.artifacts:
            kind = artifact.type.WhichOneof("kind")
            untyped = kind is None or not getattr(artifact.type, kind)
            if untyped and name in declared:
                artifact.type.CopyFrom(declared[name].artifact_type)
    return json_format.MessageToJson(executor_input)


def parse_flags(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """TFX's entry-point flags, with the executor input's artifacts typed."""
    args, beam_args = kubeflow_v2_run_executor._parse_flags(argv)  # noqa: SLF001
    args.json_serialized_invocation_args = typed_executor_input(
        args.json_serialized_invocation_args, args.json_serialized_inputs_spec_args
    )
    return args, beam_args


def _exit(code: int) -> None:
    """Flush what the step printed and logged, then leave without running C++ destructors."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(parsed: tuple[argparse.Namespace, list[str]]) -> None:
    """Run the step's executor as TFX's entry point does; exit with its status."""
    load_s3_filesystem()
    register_ui_artifact_types()
    try:
        kubeflow_v2_run_executor.main(parsed)
    except Exception:  # noqa: BLE001 - any executor error fails the step, with its trace
        traceback.print_exc()
        _exit(1)
    _exit(0)


if __name__ == "__main__":
    app.run(main, flags_parser=parse_flags)
