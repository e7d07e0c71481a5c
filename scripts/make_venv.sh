#!/usr/bin/env bash
# Make VENV a working virtual environment of one of VERSIONs, creating it when missing
# and replacing one left half-built (a make stopped while it was created) or whose
# Python is gone (a pyenv version removed): its Python runs and imports pip, or it is
# removed and built again, without anyone running rm -rf. A creation that fails is
# removed too, so the next make starts clean.
#   scripts/make_venv.sh VENV VERSION...
set -euo pipefail
venv=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$venv/bin/python" -c "import pip" 2>/dev/null && exit 0
if [ -e "$venv" ]; then
  echo "Removing $venv, left half-built by a stopped make or without its Python; building it again"
  rm -rf "$venv"
fi
python=$("$here/find_python.sh" "$@")
# What the environment needs of the host besides Python, installed as root, else named:
# g++, since pyfarmhash (TFDV's) is published as source only and uv compiles it; the
# time zone database, without which ZetaSQL (in TFX's libraries) aborts the run at its
# first step ("Check failed: absl::LoadTimeZone"), as on a minimal Ubuntu 22.04.
need() {  # PACKAGE WHY TEST...
  local package=$1 why=$2
  shift 2
  "$@" >/dev/null 2>&1 || "$here/system_deps.sh" --install "$why" "$package" || exit 1
}
need g++ "pyfarmhash, which TFDV needs, compiles from source" command -v g++
need tzdata "TFX's libraries abort without the time zone database" test -e "${TZDIR:-/usr/share/zoneinfo}/America/Los_Angeles"
echo "Creating $venv with $python"
if ! "$python" -m venv "$venv"; then
  rm -rf "$venv"
  echo "error: $python could not create $venv (its output is above); nothing was left behind" >&2
  exit 1
fi
