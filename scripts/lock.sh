#!/usr/bin/env bash
# Re-resolve every lock of both stacks from pyproject.toml and the .in files:
# requirements/<stack>.lock (the runtime), then the docs' and the benchmark suite's
# tools, resolved against that runtime lock so what they share stays at its versions.
#   scripts/lock.sh UV
# The current stack is resolved for glibc 2.39 (x86_64-manylinux_2_39, the tag of
# ml-metadata 1.21's wheels) whatever host runs this, so a Debian 12 host can lock it,
# and for each Python it runs on (scripts/stack.sh --versions current): one lock, where
# a package whose pin differs between them is listed once per Python, under a marker
# (python_full_version), so that pip and uv install it by hash on either.
set -euo pipefail
uv=$1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=$(dirname "$uv")/python
read -r -a current_versions <<<"$(scripts/stack.sh --versions current)"
compile() {  # STACK OUT INPUT [ARG]...
  local stack=$1 out=$2
  shift 2
  if [ "$stack" = legacy ]; then
    "$uv" pip compile "$@" --python-version 3.10 --generate-hashes --no-header --quiet -o "$out"
    return
  fi
  local parts=() version
  for version in "${current_versions[@]}"; do
    "$uv" pip compile "$@" --python-version "$version" --python-platform x86_64-manylinux_2_39 \
      --generate-hashes --no-header --quiet -o "$out.$version"
    parts+=("$version" "$out.$version")
  done
  merge "$out" "${parts[@]}"
  for version in "${current_versions[@]}"; do rm "$out.$version"; done
}
# OUT (VERSION LOCK)...: the first lock's entries as they are where every lock agrees;
# an entry that differs (or is missing from one) carries a marker per version.
merge() {
  "$python" - "$@" <<'PY'
import re
import sys

out, args = sys.argv[1], sys.argv[2:]
pairs = list(zip(args[::2], args[1::2]))


def entries(path):
    """name -> (pin line, the lines after it) of a uv lock, in its order."""
    found, name = {}, None
    for line in open(path).read().splitlines():
        if re.match(r"[A-Za-z0-9]", line):
            name = line.split("==")[0].lower()
            found[name] = [line, []]
        elif name is not None:
            found[name][1].append(line)
    return found


locks = {version: entries(path) for version, path in pairs}
names = sorted({n for e in locks.values() for n in e})
lines = []
for name in names:
    pins = {v: e[name][0] for v, e in locks.items() if name in e}
    if len(pins) == len(locks) and len(set(pins.values())) == 1:
        version = next(iter(pins))
        lines += [pins[version], *locks[version][name][1]]
        continue
    for version, pin in pins.items():
        marker = f"python_version == '{version}'"
        lines += [pin.replace(" \\", f" ; {marker} \\", 1), *locks[version][name][1]]
open(out, "w").write("\n".join(lines) + "\n")
PY
}
for stack in legacy current; do
  echo "Resolving requirements/$stack.lock and its docs' and bench's locks"
  compile "$stack" "requirements/$stack.lock" pyproject.toml --extra dev
  for tools in docs bench; do
    compile "$stack" "requirements/$tools-$stack.lock" "requirements/$tools.in" -c "requirements/$stack.lock"
  done
done
