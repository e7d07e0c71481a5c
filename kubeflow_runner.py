"""Compile the pipeline for Kubeflow Pipelines (not built yet).

The Kubeflow runner will build a cluster ``PipelineConfig`` and hand it to the same
``pipeline_def.pipeline.create_pipeline`` that ``local_runner.py`` uses, then compile
it with TFX's KubeflowV2DagRunner. Until then this command says so and exits 2.
"""

import sys


def main() -> int:
    """Say that the Kubeflow runner is not built yet."""
    print(
        "error: the Kubeflow runner is not built yet; run the pipeline locally with "
        "`make run` (python local_runner.py)",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
