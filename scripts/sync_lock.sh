#!/usr/bin/env bash
# Make the environment of PYTHON hold exactly what LOCK lists (uv pip sync), or say in
# one line why it cannot: a lock that no longer installs was most often edited by hand.
# A sync that was stopped (Ctrl-C, a killed make) may leave a package half-copied that
# still looks installed: a marker in the environment says a sync began, and the next
# sync, finding it, reinstalls every package (from uv's cache: no download).
#   scripts/sync_lock.sh UV PYTHON LOCK
set -uo pipefail
uv=$1 python=$2 lock=$3
venv=$(dirname "$(dirname "$python")")
marker="$venv/.sync-unfinished"
again=()
if [ -e "$marker" ]; then
  echo "The last sync of $venv did not finish: reinstalling every package"
  again=(--reinstall)
fi
touch "$marker"
if ! out=$("$uv" pip sync --quiet --compile-bytecode --require-hashes "${again[@]}" --python "$python" "$lock" 2>&1); then
  # uv's cause ("Because there is no version of ...", a hash mismatch) says the most.
  reason=$(grep -m1 -iE "because|hash" <<<"$out" || grep -m1 -i "error" <<<"$out" || true)
  reason=$(sed -E 's/^[[:space:]]*(cause:|error:)?[[:space:]]*//' <<<"$reason")
  echo "error: $lock does not install (${reason:-uv pip sync failed}); was it edited by hand?" \
       "Restore it (git checkout $lock) or re-resolve it with 'make lock'." >&2
  exit 1
fi
rm -f "$marker"
