#!/usr/bin/env bash
# Point .venv at the environment of the host's own stack (VENV: .venv-current or
# .venv-legacy), so that `source .venv/bin/activate` works whichever stack that is.
# A .venv folder from before the two stacks (the legacy environment) is replaced.
#   scripts/link_venv.sh VENV
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -d .venv ] && [ ! -L .venv ]; then
  echo "Replacing the former .venv folder with a link to $1"
  rm -rf .venv
fi
ln -sfn "$1" .venv
