#!/usr/bin/env bash
# Re-resolve every lock of both stacks from pyproject.toml and the .in files:
# requirements-<stack>.lock (the runtime), then the docs' and the benchmark suite's
# tools, resolved against that runtime lock so what they share stays at its versions.
#   scripts/lock.sh UV
# The current stack is resolved for glibc 2.39 (x86_64-manylinux_2_39, the tag of
# ml-metadata 1.21's wheels) whatever host runs this, so a Debian 12 host can lock it.
set -euo pipefail
uv=$1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
compile() {  # STACK OUT INPUT [ARG]...
  local stack=$1 out=$2
  shift 2
  local target=(--python-version 3.10)
  [ "$stack" = current ] && target=(--python-version 3.13 --python-platform x86_64-manylinux_2_39)
  "$uv" pip compile "$@" "${target[@]}" --generate-hashes --no-header --quiet -o "$out"
}
for stack in legacy current; do
  echo "Resolving requirements-$stack.lock and its docs' and bench's locks"
  compile "$stack" "requirements-$stack.lock" pyproject.toml --extra dev
  for tools in docs bench; do
    compile "$stack" "requirements-$tools-$stack.lock" "requirements-$tools.in" -c "requirements-$stack.lock"
  done
done
