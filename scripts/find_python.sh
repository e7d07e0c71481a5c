#!/usr/bin/env bash
# Print the path of a Python that can build the stack's environment: one of VERSIONs
# (in the order given), with venv and its C headers. Each choice is said on stderr, in
# this order, the first that answers wins:
#   1. PYTHON, when set (make run PYTHON=/path/to/python3.12): that one or an error;
#   2. python<version>, python3 or python on the PATH, then pyenv's versions;
#   3. a Python on the PATH lacking only Debian's venv or headers package: installed as
#      root (apt-get), else named in the last line;
#   4. a Python that uv manages: one installed before, or `uv python install` (from
#      python-build-standalone's releases: a failed download is one line);
#   5. none: exit 1 with one line naming each choice and its command.
#   scripts/find_python.sh VERSION...      (legacy: 3.10; current: 3.13 3.12)
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/find_python.sh VERSION..." >&2; exit 2; }
wants=("$@")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "python: $*" >&2; }
listed=$(printf '%s or ' "${wants[@]}"); listed=${listed% or }
found() { say "Python $2 at $1 ($3)"; echo "$1"; exit 0; }

# "VERSION MISSING...": its minor version, then what it lacks of venv and dev.
probe() {
  "$1" - 2>/dev/null <<'PY'
import os, sys, sysconfig
try:
    import ensurepip, venv  # Debian ships them in python3.X-venv
    lacks = []
except ImportError:
    lacks = ["venv"]
if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
    lacks.append("dev")
print("%d.%d" % sys.version_info[:2], *lacks)
PY
}
wanted() { local v; for v in "${wants[@]}"; do [ "$v" = "$1" ] && return 0; done; return 1; }

fixable=()  # "path version lacks...": right version, Debian's venv or dev package missing
others=()   # "python3 is 3.11": of another version, said in the last line
if [ -n "${PYTHON:-}" ]; then
  read -r version lacks <<<"$(probe "$PYTHON" || echo none)"
  if ! wanted "$version"; then
    echo "error: PYTHON=$PYTHON is $( [ "$version" = none ] && echo "not a Python that runs" || echo "Python $version"); this stack runs on Python $listed" >&2
    exit 1
  fi
  [ -z "$lacks" ] && found "$PYTHON" "$version" "PYTHON"
  fixable+=("$PYTHON $version $lacks")
fi

check() {  # PATH_TO_PYTHON WHERE
  local version lacks
  read -r version lacks <<<"$(probe "$1" || echo none)"
  if ! wanted "$version"; then
    [ "$2" = "on the PATH" ] && [ "$version" != none ] && others+=("$(basename "$1") on the PATH is $version")
    return 0
  fi
  [ -z "$lacks" ] && found "$1" "$version" "$2"
  fixable+=("$1 $version $lacks")
}
for want in "${wants[@]}"; do
  for name in "python$want" python3 python; do
    path=$(command -v "$name" 2>/dev/null) && check "$path" "on the PATH"
  done
done
pyenv_root=${PYENV_ROOT:-}
if [ -z "$pyenv_root" ] && command -v pyenv >/dev/null 2>&1; then pyenv_root=$(pyenv root); fi
pyenv_root=${pyenv_root:-$HOME/.pyenv}
for want in "${wants[@]}"; do
  for path in $(ls -d "$pyenv_root"/versions/"$want"*/bin/python 2>/dev/null | sort -V -r); do
    check "$path" pyenv
  done
done

# Debian's own Python splits venv (python3.X-venv) and the headers (python3.X-dev) out.
packages=()
for entry in "${fixable[@]}"; do
  read -r path version lacks <<<"$entry"
  wanted=()
  for part in $lacks; do wanted+=("python$version-$part"); done
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "Python $version at $path lacks ${wanted[*]}: installing them"
    if "$here/system_deps.sh" --install "Python $version's venv and headers" "${wanted[@]}" >/dev/null 2>&1; then
      read -r version lacks <<<"$(probe "$path" || echo none)"
      [ -z "$lacks" ] && found "$path" "$version" "on the PATH, with ${wanted[*]} installed"
    fi
    say "apt-get could not install ${wanted[*]}"
  fi
  packages+=("${wanted[@]}")
done

# uv's own Pythons (python-build-standalone): one installed before, else a download.
uv_said=$(mktemp)
trap 'rm -f "$uv_said"' EXIT
if uv=$("$here/uv.sh" 2>"$uv_said"); then
  sed 's/^/python: /' "$uv_said" >&2
  for want in "${wants[@]}"; do
    path=$("$uv" python find --no-project --python-preference only-managed "$want" 2>/dev/null) \
      && check "$path" "managed by uv"
  done
  say "none of Python $listed on the PATH or in pyenv; asking uv to install Python ${wants[0]}"
  if out=$(UV_HTTP_RETRIES=0 UV_HTTP_TIMEOUT=${UV_HTTP_TIMEOUT:-30} "$uv" python install --no-bin "${wants[0]}" 2>&1); then
    path=$("$uv" python find --no-project --python-preference only-managed "${wants[0]}")
    check "$path" "installed by uv"
  else
    # uv's last cause is the root one (a name that does not resolve, a refused connection);
    # without one (no download offered for this host), its last line says why.
    cause=$(grep "cause:" <<<"$out" | tail -n1 || true)
    [ -n "$cause" ] || cause=$(grep -v '^\s*$' <<<"$out" | tail -n1 | sed 's/^error: //')
    host=$(grep -m1 -oE "https?://[^/]+" <<<"$out" || true)
    say "uv could not download Python ${wants[0]}${host:+ from ${host#*//}} (${cause#*cause: })"
  fi
else
  say "$(sed 's/^error: //' "$uv_said" | tail -n1)"
fi

if [ ${#packages[@]} -gt 0 ]; then
  system="'sudo apt-get install ${packages[*]}'"
else
  system="the system's Python where it is $listed ('sudo apt-get install python3-venv python3-dev')"
fi
root=""
[ "${wants[0]}" = 3.10 ] && root=", or make as root (the current stack in a Debian 13 root)"
seen=$(printf '%s\n' "${others[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')
echo "error: no Python $listed with venv and its headers here${seen:+ ($seen)}; choices: $system," \
     "'pyenv install ${wants[0]}', 'uv python install ${wants[0]}' (needs github.com)," \
     "PYTHON=/path/to/python$root, or the other stack (STACK=current or STACK=legacy;" \
     "docs/explanation/stack.md)" >&2
exit 1
