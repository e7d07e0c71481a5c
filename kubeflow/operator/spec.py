"""The one definition compiled for Kubeflow Pipelines: the KFP v2 spec and its package.

The spec applies the per-node cache rule of the local IR (``node_ids.UNCACHED``, and on
Kubeflow ExampleGen too: ``node_ids.KUBEFLOW_UNCACHED``), and gets the config's CPU and
memory requests (TFX's own route, a node's platform config, makes the local orchestrator
refuse the pipeline).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from tfx import v1 as tfx

from pipeline_def import node_ids
from pipeline_def.config import PipelineConfig
from pipeline_def.pipeline import create_pipeline, create_scoring_pipeline

# Every container step runs this module (see kubeflow.step.entrypoint).
KFP_COMMAND = ("python", "-m", "kubeflow.step.entrypoint")


def _runtime_defaults(pipeline: tfx.dsl.Pipeline) -> dict[str, Any]:
    """Each run-time parameter's default, by name."""
    return {
        value.name: value.default
        for node in pipeline.components
        for value in node.exec_properties.values()
        if isinstance(value, tfx.dsl.experimental.RuntimeParameter)
    }


@dataclass(frozen=True)
class S3Access:
    """How the steps reach an S3 store (KFP's MinIO, or Amazon S3) from their pods.

    The endpoint goes into every step's environment for boto3 (``AWS_ENDPOINT_URL``),
    which Beam's S3 filesystem and ``kubeflow.step.s3_fileio`` use; the keys come from
    a Kubernetes secret, as KFP's own ``mlpipeline-minio-artifact`` holds them (keys
    ``accesskey`` and ``secretkey``).
    """

    endpoint: str | None  # e.g. http://minio-service.kubeflow:9000; None: Amazon S3
    secret: str | None  # the Kubernetes secret with the keys; None: the pods' own
    region: str = "us-east-1"
    access_key_field: str = "accesskey"
    secret_key_field: str = "secretkey"

    def env(self) -> dict[str, str]:
        """The environment every step gets."""
        env = {"AWS_REGION": self.region}
        if self.endpoint:
            env["AWS_ENDPOINT_URL"] = self.endpoint
        return env

    def platform_spec(self, executor_labels: list[str]) -> dict[str, Any]:
        """The kubernetes platform spec that puts the secret's keys into each step's env."""
        keys = [
            {"secretKey": self.access_key_field, "envVar": "AWS_ACCESS_KEY_ID"},
            {"secretKey": self.secret_key_field, "envVar": "AWS_SECRET_ACCESS_KEY"},
        ]
        executors = {
            label: {"secretAsEnv": [{"secretName": self.secret, "keyToEnv": keys}]}
            for label in executor_labels
        }
        return {"platforms": {"kubernetes": {"deploymentSpec": {"executors": executors}}}}


def kubeflow_spec(config: PipelineConfig, image: str, scoring: bool = False) -> dict[str, Any]:
    """The pipeline (``scoring``: the scoring one) as a KFP PipelineSpec whose steps run ``image``.

    Schema 2.1.0 is the only one the KFP v2 API server accepts
    (kubeflow/pipelines, backend/src/apiserver/template/v2_template.go), and its
    constants are the ``constant`` fields the driver reads. TFX puts the run-time
    parameters' defaults in the PipelineJob's runtimeConfig, which a YAML package
    does not carry: they are written into the root's input definitions here, where
    the server looks for them when a run gives no value.
    """
    pipeline = create_scoring_pipeline(config) if scoring else create_pipeline(config)
    runner = tfx.orchestration.experimental.KubeflowV2DagRunner(
        config=tfx.orchestration.experimental.KubeflowV2DagRunnerConfig(
            default_image=image,
            default_commands=list(KFP_COMMAND),
            use_pipeline_spec_2_1=True,
        )
    )
    spec = runner.run(pipeline, write_out=False)["pipelineSpec"]
    parameters = spec["root"].get("inputDefinitions", {}).get("parameters", {})
    for name, default in _runtime_defaults(pipeline).items():
        parameters[name]["defaultValue"] = default
    tasks = spec["root"]["dag"]["tasks"]
    for name in set(node_ids.KUBEFLOW_UNCACHED) & set(tasks):
        tasks[name]["cachingOptions"] = {"enableCache": False}
    for request in (r for r in config.resources if r.node in tasks):
        label = spec["components"][tasks[request.node]["componentRef"]["name"]]["executorLabel"]
        # The fields KFP's driver turns into the pod's requests (backend/src/v2/driver/driver.go).
        spec["deploymentSpec"]["executors"][label]["container"]["resources"] = {
            "cpuRequest": request.cpu,
            "memoryRequest": request.memory_gb,
        }
    return spec


def with_s3_access(spec: dict[str, Any], s3: S3Access) -> dict[str, Any] | None:
    """Give every container step the S3 environment; the platform spec for the secret.

    Returns the kubernetes platform spec (the package's second YAML document, which
    KFP's API server reads beside the pipeline spec), or None without a secret.
    """
    labels = []
    for label, executor in spec["deploymentSpec"]["executors"].items():
        if "container" in executor:
            env = [{"name": k, "value": v} for k, v in sorted(s3.env().items())]
            executor["container"]["env"] = env
            labels.append(label)
    return s3.platform_spec(sorted(labels)) if s3.secret else None


def write_spec(spec: dict[str, Any], path: Path, platform: dict[str, Any] | None = None) -> Path:
    """Write ``spec`` (and a platform spec) as the YAML package KFP uploads."""
    parameters = spec["root"].get("inputDefinitions", {}).get("parameters", {})
    header = [f"# PIPELINE DEFINITION\n# Name: {spec['pipelineInfo']['name']}\n"]
    header += [
        f"# Run-time parameter: {name} (default {p.get('defaultValue')!r})\n"
        for name, p in sorted(parameters.items())
    ]
    documents = [spec] if platform is None else [spec, platform]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(header) + yaml.safe_dump_all(documents, sort_keys=True))
    return path


def compile_package(
    config: PipelineConfig,
    image: str,
    output: Path,
    s3: S3Access | None = None,
    scoring: bool = False,
) -> Path:
    """Compile ``config``'s pipeline (``scoring``: its scoring pipeline) into ``output`` (YAML)."""
    spec = kubeflow_spec(config, image, scoring)
    platform = with_s3_access(spec, s3) if s3 is not None else None
    return write_spec(spec, output, platform)
