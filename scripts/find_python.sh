#!/usr/bin/env bash
# Print the path of a Python interpreter of VERSION (3.10 for the legacy stack, 3.13 for
# the current one), looking first on PATH, then in pyenv's versions. Exit 1 with a
# message naming what is missing when there is none.
#   scripts/find_python.sh VERSION
set -euo pipefail
want=${1:?usage: scripts/find_python.sh VERSION}

# The version, and venv with ensurepip (Debian's own Python has them only with python3-venv).
matches() { "$1" -c "import ensurepip, sys, venv; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)" 2>/dev/null; }

for candidate in "python$want" python3 python; do
  path=$(command -v "$candidate" 2>/dev/null) || continue
  if matches "$path"; then echo "$path"; exit 0; fi
done

pyenv_root=${PYENV_ROOT:-}
if [ -z "$pyenv_root" ] && command -v pyenv >/dev/null 2>&1; then pyenv_root=$(pyenv root); fi
[ -n "$pyenv_root" ] || pyenv_root="$HOME/.pyenv"
for path in $(ls -d "$pyenv_root"/versions/"$want"*/bin/python 2>/dev/null | sort -V -r); do
  if matches "$path"; then echo "$path"; exit 0; fi
done

echo "error: Python $want was not found: not as python$want on PATH," \
     "nor under $pyenv_root/versions. Install it (e.g. 'pyenv install $want'), or choose" \
     "the other stack with STACK=current or STACK=legacy (docs/explanation/stack.md)." >&2
exit 1
