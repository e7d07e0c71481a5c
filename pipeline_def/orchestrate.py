"""The one definition compiled for the local orchestrator, LocalDagRunner.

It applies a per-node rule TFX's DSL cannot express: the nodes in
``node_ids.UNCACHED`` read state outside their inputs and are never served from a
cache (TFX sets caching for a whole pipeline only). The Kubeflow spec applies the same
rule (``kubeflow.operator.spec``).
"""

from __future__ import annotations

from tfx import v1 as tfx

# The IR compiler is what LocalDagRunner.run calls; it is not in tfx.v1, and neither
# is the IR it returns, which LocalDagRunner.run_with_ir takes.
from tfx.dsl.compiler import compiler
from tfx.proto.orchestration import pipeline_pb2

from pipeline_def import node_ids
from pipeline_def.config import PipelineConfig
from pipeline_def.pipeline import create_pipeline


def local_ir(config: PipelineConfig) -> pipeline_pb2.Pipeline:
    """The pipeline compiled for LocalDagRunner, with the uncached nodes' cache off."""
    ir = compiler.Compiler().compile(create_pipeline(config))
    for node in ir.nodes:
        if node.pipeline_node.node_info.id in node_ids.UNCACHED:
            node.pipeline_node.execution_options.caching_options.enable_cache = False
    return ir


def run_locally(config: PipelineConfig) -> None:
    """Run the whole pipeline in this process with TFX's LocalDagRunner."""
    tfx.orchestration.LocalDagRunner().run_with_ir(local_ir(config))
