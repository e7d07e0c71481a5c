#!/usr/bin/env bash
# Make the environment of PYTHON hold exactly what LOCK lists (uv pip sync), or say in
# one line why it cannot: a lock that no longer resolves was most often edited by hand;
# a full disk or a failed download is named as such (with what is left on the disk).
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
  # uv's cause ("Because there is no version of ...", a hash mismatch) says the most;
  # for a failed download or copy, its last "Caused by" line names the fault.
  reason=$(grep -m1 -iE "because|hash" <<<"$out" || grep -iE "caused by" <<<"$out" | tail -n1 ||
           grep -m1 -i "error" <<<"$out" || true)
  reason=$(sed -E 's/^[[:space:]]*(caused by:|error:)?[[:space:]]*//I' <<<"$reason")
  if grep -q "os error 28" <<<"$out"; then
    echo "error: the disk is full while installing $lock into $venv ($reason):" \
         "$(df -h --output=avail "$venv" | tail -n1 | tr -d ' ') left on its disk; the" \
         "environment needs about 4 GB beside uv's cache. Free some space and run make again." >&2
  elif grep -qiE "because|hash" <<<"$reason"; then
    echo "error: $lock does not install ($reason); was it edited by hand?" \
         "Restore it (git checkout $lock) or re-resolve it with 'make lock'." >&2
  else
    echo "error: $lock did not install into $venv (${reason:-uv pip sync failed})." \
         "Run make again: what was installed is kept." >&2
  fi
  exit 1
fi
rm -f "$marker"
