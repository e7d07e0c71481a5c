#!/usr/bin/env bash
# Print the path of a Python interpreter matching .python-version (e.g. 3.10),
# looking first on PATH, then in pyenv's versions. Exit 1 with a message naming
# what is missing when there is none.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
want=$(tr -d '[:space:]' < "$here/.python-version")

matches() { "$1" -c "import sys; sys.exit(0 if '%d.%d' % sys.version_info[:2] == '$want' else 1)" 2>/dev/null; }

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

echo "error: Python $want (named in .python-version) was not found: not as python$want on PATH," \
     "nor under $pyenv_root/versions. Install it, e.g. 'pyenv install $want'." >&2
exit 1
