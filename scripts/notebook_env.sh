#!/usr/bin/env bash
# Build .venv-notebook: a classic Jupyter Notebook server (requirements/notebook.lock)
# that displays TFMA's own views, with the runtime's .venv as its kernel.
#
#   scripts/notebook_env.sh [ENV_DIR]     (make notebook calls it when the locks change)
#
# Why two environments: the runtime lock holds Notebook 7 and JupyterLab 4, which do
# not load TFMA 0.47's widget (a classic nbextension). The server's environment is
# small (about 90 packages) and holds no TensorFlow; the kernel is the runtime's own
# Python, so the views read results with exactly the TFMA that wrote them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
env_dir=${1:-$here/.venv-notebook}
runtime_py=$here/.venv/bin/python
lock=$here/requirements/notebook.lock
kernel_name=wide-deep

if [ ! -x "$runtime_py" ]; then
  echo "error: $runtime_py is missing; build the runtime first (make .venv/.synced-from-lock)" >&2
  exit 1
fi
uv=$here/.venv/bin/uv  # the runtime lock's uv, already there

if [ ! -x "$env_dir/bin/python" ]; then
  # The server's lock was compiled for Python 3.10 (its classic Notebook 6 line).
  python=$("$here/scripts/find_python.sh" 3.10)
  echo "Creating $env_dir with $python"
  "$uv" venv --quiet --python "$python" "$env_dir"
fi
# Keep the environment out of git without touching the project's .gitignore.
echo '*' > "$env_dir/.gitignore"
"$uv" pip sync --quiet --python "$env_dir/bin/python" "$lock"

jupyter=$env_dir/bin/jupyter
# Jupyter's installers narrate every file; show their output only when they fail.
quiet() { local out; out=$("$@" 2>&1) || { echo "$out" >&2; return 1; }; }

# The TFMA nbextension's JavaScript, from the kernel's own TFMA package (found without
# importing it: importing TFMA loads TensorFlow), so the page and the kernel's widget
# models are always the same TFMA version.
tfma_dir=$("$runtime_py" -c \
  "import importlib.util as u; print(u.find_spec('tensorflow_model_analysis').submodule_search_locations[0])")
quiet "$jupyter" nbextension install --sys-prefix --overwrite \
  --destination tensorflow_model_analysis "$tfma_dir/static"
quiet "$jupyter" nbextension enable --sys-prefix tensorflow_model_analysis/extension
quiet "$jupyter" nbextension enable --sys-prefix --py widgetsnbextension
# This project's fix for loading TFMA's view templates under requirejs (see its header).
quiet "$jupyter" nbextension install --sys-prefix --overwrite \
  --destination wide_deep_tfma "$here/notebooks/nbextension"
quiet "$jupyter" nbextension enable --sys-prefix wide_deep_tfma/main

# The kernel: the runtime's Python. Its ipywidgets must be the 7 line whose frontend
# widgetsnbextension 3.6 is (ipywidgets 8 speaks another protocol version).
"$runtime_py" - <<'EOF'
import sys
from importlib.metadata import version
if not version("ipywidgets").startswith("7."):
    sys.exit(f"error: the runtime has ipywidgets {version('ipywidgets')}; "
             "this server's widgetsnbextension 3.6 serves ipywidgets 7 only")
EOF
# Written here rather than by `ipykernel install`, which warns that a prefix outside
# the runtime's own Jupyter path "may not be found" (this server does search it).
kernel_dir=$env_dir/share/jupyter/kernels/$kernel_name
mkdir -p "$kernel_dir"
cat > "$kernel_dir/kernel.json" <<EOF
{
  "argv": ["$runtime_py", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
  "display_name": "Python 3.10 (wide-deep .venv)",
  "language": "python"
}
EOF
echo "$env_dir: classic Notebook $("$env_dir/bin/python" -c \
  'from importlib.metadata import version; print(version("notebook"))'), kernel '$kernel_name' = $runtime_py"
