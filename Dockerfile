# The image every step of the compiled Kubeflow pipeline runs in: the same locked
# dependencies as .venv, and this project installed as a package, so components
# import modules.* and pipeline_def.* by module path (no module files are copied
# from the machine that compiled the pipeline).
#
#   docker build -t REGISTRY/taxi-wide-deep:TAG .
#   docker push REGISTRY/taxi-wide-deep:TAG
FROM python:3.10-slim

ENV TF_USE_LEGACY_KERAS=1 \
    PYTHONUNBUFFERED=1 \
    UV_COMPILE_BYTECODE=1

WORKDIR /pipeline
COPY requirements.lock pyproject.toml README.md ./
RUN pip install --no-cache-dir "uv==$(sed -n 's/^uv==\([^ ]*\).*/\1/p' requirements.lock)" \
    && uv pip sync --system --no-cache requirements.lock

COPY modules/ modules/
COPY pipeline_def/ pipeline_def/
COPY components/ components/
COPY local_runner.py kubeflow_runner.py ./
RUN uv pip install --system --no-cache --no-deps .
