#!/usr/bin/env bash
# Make the environment of PYTHON hold exactly what LOCK lists (uv pip sync), or say in
# one line why it cannot: a lock that no longer installs was most often edited by hand.
#   scripts/sync_lock.sh UV PYTHON LOCK
set -uo pipefail
uv=$1 python=$2 lock=$3
if ! out=$("$uv" pip sync --quiet --compile-bytecode --require-hashes --python "$python" "$lock" 2>&1); then
  reason=$(grep -m1 -E "error|Because|×" <<<"$out" | sed 's/^[[:space:]×]*//')
  echo "error: $lock does not install (${reason:-uv pip sync failed}); was it edited by hand?" \
       "Restore it (git checkout $lock) or re-resolve it with 'make lock'." >&2
  exit 1
fi
