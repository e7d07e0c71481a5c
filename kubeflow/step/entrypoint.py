"""The command of every Kubeflow step: TFX's executor entry point, fixed for open-source KFP.

``python -m kubeflow.step.entrypoint`` takes the arguments of TFX's
``tfx.orchestration.kubeflow.v2.container.kubeflow_v2_run_executor`` and runs it, after
the fixes that open-source Kubeflow Pipelines needs:

* TensorFlow has no ``s3://`` filesystem (KFP's MinIO or Amazon S3): tensorflow-io's
  plugin has no build for TensorFlow 2.17 or later. KFP's launcher already copies each
  input artifact to the local path ``/s3/<bucket>/<key>`` before the step and each
  output artifact's local path back to the store after it (kubeflow/pipelines 2.16,
  ``backend/src/v2/component/launcher_v2.go``: downloadArtifacts, LocalPathForURI,
  uploadOutputArtifacts), so TFX's executor is handed those local paths instead of
  the URIs, and the ExecutorOutput names the URIs again (the launcher records what
  it names, mergeRuntimeArtifacts). The folders found by path (data root, encoded
  spans, analyzer cache, serving folder) go through TFX's fileio, which
  ``kubeflow.step.s3_fileio`` serves with boto3.
* KFP's driver hands each step its input artifacts without their type: it reads
  them back from ML-Metadata with an empty schema (kubeflow/pipelines,
  ``backend/src/v2/metadata/client.go``, GetOutputArtifactsByExecutionId: ``Schema:
  "" // TODO``), and TFX's entry point then cannot tell which artifact class to
  build. Each untyped input takes the type the component declares for it, from the
  inputs spec TFX compiles into the arguments (``--json_serialized_inputs_spec_args``,
  schema 2.1.0); sky-uk/kfp-operator's TFX patch does the same.
* TFX's entry point imports a custom artifact class by its schema title, and the
  artifacts the KFP UI draws are titled ``system.HTML`` and ``system.Metrics``
  (``kubeflow/step/ui.py``): ``system`` is that module; the scoring pipeline's are
  titled ``wide_deep.*``, and ``wide_deep`` is ``scoring/artifacts.py``.
* TFX's entry point parses the whole ``sys.argv``, its own path included, and hands
  what it does not know to Beam; that path made the list of Beam arguments non-empty,
  and TFX then builds and attaches a source package of itself to every Beam step
  (``tfx/utils/dependency_utils.py``, make_beam_dependency_flags; 2 to 3 s a step),
  which only a remote runner given no package of its own could use. The path is left
  out: the arguments the spec compiles in still reach Beam, and with them the package.
* The process exits with the step's own status, after flushing its output, without
  running C++ destructors at exit: TensorFlow's and gRPC's have aborted processes that
  had finished their work (tensorflow/io#2039), which KFP would record as a failure.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType

from absl import app
from google.protobuf import json_format
from kfp.pipeline_spec import pipeline_spec_pb2

from kubeflow.step import s3_fileio
from kubeflow.step.launcher_paths import POD_ROOT_ENV, local_path
from startup import process


def register_artifact_types() -> None:
    """Make the custom artifact types importable by their titles.

    ``system.HTML`` and ``system.Metrics`` (the UI's), and the scoring pipeline's
    ``wide_deep.Scores`` and ``wide_deep.ScoringSkew``.
    """
    from kubeflow.step import ui
    from scoring import artifacts
    from scoring.names import NAMESPACE

    sys.modules.setdefault("system", ui)
    sys.modules.setdefault(NAMESPACE, artifacts)


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


def localized(invocation: str, pod_root: str) -> tuple[str, dict[str, str]]:
    """``invocation`` with each ``s3://`` artifact URI replaced by its launcher path.

    Also the map from each local path back to its URI, for the ExecutorOutput. A
    ``gs://`` URI stays: TensorFlow reads it itself.
    """
    executor_input = json_format.Parse(
        invocation, pipeline_spec_pb2.ExecutorInput(), ignore_unknown_fields=True
    )
    remote = {}
    for lists in (executor_input.inputs.artifacts, executor_input.outputs.artifacts):
        for artifacts in lists.values():
            for artifact in artifacts.artifacts:
                if artifact.uri.startswith(s3_fileio.SCHEME):
                    local = local_path(artifact.uri, pod_root)
                    remote[local] = artifact.uri
                    artifact.uri = local
    return json_format.MessageToJson(executor_input), remote


def restore_uris(output_file: str, remote: dict[str, str]) -> None:
    """Name the artifacts of the ExecutorOutput by their URIs again, not local paths."""
    path = Path(output_file)
    if not remote or not path.is_file():
        return
    written = json.loads(path.read_text())
    for artifacts in written.get("artifacts", {}).values():
        for artifact in artifacts.get("artifacts", []):
            artifact["uri"] = remote.get(artifact.get("uri"), artifact.get("uri"))
    path.write_text(json.dumps(written))


def _tfx_entry_point() -> ModuleType:
    """TFX's entry point for Kubeflow V2 steps (not in tfx.v1), once the process is prepared.

    It imports TensorFlow: the Keras choice comes first (startup/process.py).
    """
    process.prepare()
    from tfx.orchestration.kubeflow.v2.container import kubeflow_v2_run_executor

    return kubeflow_v2_run_executor


def parse_flags(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """TFX's entry-point flags, the executor input's artifacts typed and at local paths.

    ``argv`` is the process's, as absl hands it over: its program path is not a Beam
    argument.
    """
    args, beam_args = _tfx_entry_point()._parse_flags(argv[1:])  # noqa: SLF001
    typed = typed_executor_input(
        args.json_serialized_invocation_args, args.json_serialized_inputs_spec_args
    )
    pod_root = os.environ.get(POD_ROOT_ENV, "/")
    args.json_serialized_invocation_args, args.remote_uris = localized(typed, pod_root)
    return args, beam_args


def _exit(code: int) -> None:
    """Flush what the step printed and logged, then leave without running C++ destructors."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(parsed: tuple[argparse.Namespace, list[str]]) -> None:
    """Run the step's executor as TFX's entry point does; exit with its status."""
    s3_fileio.register()
    register_artifact_types()
    args = parsed[0]
    try:
        _tfx_entry_point().main(parsed)
        output_file = json.loads(args.json_serialized_invocation_args)["outputs"]["outputFile"]
        restore_uris(output_file, args.remote_uris)
    except Exception:  # noqa: BLE001 - any executor error fails the step, with its trace
        traceback.print_exc()
        _exit(1)
    _exit(0)


if __name__ == "__main__":
    app.run(main, flags_parser=parse_flags)
