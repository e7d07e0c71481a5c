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
# pyfarmhash (TFDV's) is published as source only: uv compiles it.
if ! command -v g++ >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing g++ (pyfarmhash, which TFDV needs, compiles from source)"
    apt-get update -qq >/dev/null 2>&1 \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends g++ >/dev/null 2>&1 \
      || { echo "error: apt-get could not install g++: 'apt-get install g++' says why" >&2; exit 1; }
  else
    echo "error: g++ is missing, and pyfarmhash (which TFDV needs) compiles from source: 'sudo apt-get install g++'" >&2
    exit 1
  fi
fi
echo "Creating $venv with $python"
if ! "$python" -m venv "$venv"; then
  rm -rf "$venv"
  echo "error: $python could not create $venv (its output is above); nothing was left behind" >&2
  exit 1
fi
