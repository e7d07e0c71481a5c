# The image every step of the compiled Kubeflow pipeline runs in, on the current stack
# (TFX 1.21, Python 3.13; docs/explanation/stack.md). The Apache Beam SDK images are
# built on Debian 12, whose glibc 2.36 cannot run ml-metadata 1.21 or TFDV 1.21, so
# the image is Debian 13's Python image with the Beam SDK harness copied in from the
# SDK image of the locked Beam version, as Beam documents for a custom container on
# another base ("Use a different base image", beam.apache.org/documentation/runtime/
# environments/): /opt/apache/beam/boot stays the entrypoint, so the image is also a
# valid custom SDK container for Beam workers on Dataflow, Flink and Spark (Kubeflow
# steps name their own command). The install steps are scripts/install_image.sh,
# which `make kfp-local` runs for real before it executes the compiled pipeline's steps.
#
#   docker build -t REGISTRY/wide-deep-tfx:TAG . && docker push REGISTRY/wide-deep-tfx:TAG
#
# BEAM_VERSION must be the current lock's apache-beam (a test checks it). The image
# holds what steps import (modules, components, pipeline_def); the runners and the
# operator tools (pipeline_ops) stay where people type commands.
ARG BEAM_VERSION=2.77.0
FROM apache/beam_python3.13_sdk:${BEAM_VERSION} AS beam

FROM python:3.13-slim-trixie
COPY --from=beam /opt/apache/beam /opt/apache/beam
ENTRYPOINT ["/opt/apache/beam/boot"]

# graphviz draws the model diagram (model.png) the Trainer leaves for TensorBoard;
# g++ builds pyfarmhash (TFDV's), which PyPI has as source only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends graphviz g++ \
    && rm -rf /var/lib/apt/lists/*

# Keras 2 (tf_keras) for TFX, TFT and TFMA: what startup/process.py's prepare() sets
# in every process the product starts, here for what starts outside its code (Beam's
# workers, booted by the SDK's entrypoint). tests/test_process_start.py keeps the two equal.
ENV TF_USE_LEGACY_KERAS=1 \
    PYTHONUNBUFFERED=1

WORKDIR /src
COPY requirements/current.lock requirements/legacy.lock requirements/
COPY pyproject.toml README.md ./
COPY scripts/install_image.sh scripts/
RUN scripts/install_image.sh python --deps-only

COPY modules/ modules/
COPY datasets/ datasets/
COPY startup/ startup/
COPY data_layout/ data_layout/
COPY review/ review/
COPY serving/ serving/
COPY scoring/ scoring/
COPY kubeflow/__init__.py kubeflow/
COPY kubeflow/step/ kubeflow/step/
COPY components/ components/
COPY pipeline_def/ pipeline_def/
RUN scripts/install_image.sh python
