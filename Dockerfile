# The image every step of the compiled Kubeflow pipeline runs in. It is built on the
# Apache Beam SDK image of the locked Beam version, so it is also a valid custom SDK
# container for Beam workers on Dataflow, Flink and Spark (their /opt/apache/beam/boot
# entrypoint is kept; Kubeflow steps name their own command). The install steps are
# scripts/install_image.sh, which `make kfp-local` runs for real before it executes
# the compiled pipeline's steps.
#
#   docker build -t REGISTRY/taxi-wide-deep:TAG . && docker push REGISTRY/taxi-wide-deep:TAG
#
# BEAM_VERSION must be the lock's apache-beam (a test checks it). The image holds what
# steps import (modules, components, pipeline_def); the runners and the operator tools
# (pipeline_ops) stay where people type commands.
ARG BEAM_VERSION=2.60.0
FROM apache/beam_python3.10_sdk:${BEAM_VERSION}

# graphviz draws the model diagram (model.png) the Trainer leaves for TensorBoard.
RUN apt-get update \
    && apt-get install -y --no-install-recommends graphviz \
    && rm -rf /var/lib/apt/lists/*

# Keras 2 (tf_keras) for TFX, TFT and TFMA. The project's code sets it when imported
# (modules/__init__.py); Beam workers started by the SDK's boot entrypoint may
# unpickle TFT and TFMA code before any of it, so the image sets it too.
ENV TF_USE_LEGACY_KERAS=1 \
    PYTHONUNBUFFERED=1

WORKDIR /src
COPY requirements.lock pyproject.toml README.md ./
COPY scripts/install_image.sh scripts/
RUN scripts/install_image.sh python --deps-only

COPY modules/ modules/
COPY components/ components/
COPY pipeline_def/ pipeline_def/
RUN scripts/install_image.sh python
