#!/usr/bin/env bash
# Install the project as the pipeline image holds it, into the Python environment of
# PYTHON: the locked dependencies, then the project itself as a package (a copy, not
# an editable link), so steps import modules.*, components.* and pipeline_def.* from
# site-packages. The Dockerfile runs it, and so does the Kubeflow harness
# (make kfp-local) before it runs the compiled pipeline's steps.
#
#   scripts/install_image.sh PYTHON [--deps-only]
#
# --deps-only installs the dependencies alone (the Dockerfile's cached layer).
set -euo pipefail
python=${1:?usage: scripts/install_image.sh PYTHON [--deps-only]}
project=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The stack is the one of PYTHON's version (pyproject.toml's markers tell them apart).
stack=$("$python" -c 'import sys; print("current" if sys.version_info >= (3, 11) else "legacy")')
lock="$project/requirements/$stack.lock"
uv_version=$(sed -n 's/^uv==\([^ ]*\).*/\1/p' "$lock")
"$python" -m pip install --quiet --disable-pip-version-check "uv==$uv_version"
uv=$("$python" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/uv
"$uv" pip install --quiet --compile-bytecode --python "$python" --require-hashes -r "$lock"
[ "${2:-}" = "--deps-only" ] && exit 0
# setuptools comes from the lock: the build uses what was locked, not a fresh download.
"$uv" pip install --quiet --compile-bytecode --python "$python" --no-deps --no-build-isolation \
  --reinstall-package wide-deep-tfx "$project"
# The project declares the commands people type (wide-deep-run, ...), whose modules
# the image does not hold: remove their stubs rather than ship commands that fail
# with ModuleNotFoundError. -I: only what is installed counts, not the folder here.
"$python" -I - <<'PY'
import importlib.metadata
import importlib.util
import os
import sysconfig

bin_dir = sysconfig.get_path("scripts")
for entry in importlib.metadata.distribution("wide-deep-tfx").entry_points:
    if entry.group != "console_scripts":
        continue
    try:
        held = importlib.util.find_spec(entry.module) is not None
    except ModuleNotFoundError:  # a parent package is absent
        held = False
    if not held:
        os.remove(os.path.join(bin_dir, entry.name))
PY
