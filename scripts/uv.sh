#!/usr/bin/env bash
# Print the path of the uv that make builds environments with (and asks for a Python
# when the host has none of the stack's), fetching it once from the package index into
# .uv/<version>/: the wheel the current lock pins (uv==...), checked against that lock's
# hashes, so no pip and no Python are needed to get it. Nothing half-fetched stays:
# the wheel is unpacked in a temporary folder and moved into place whole.
#   scripts/uv.sh
# One uv for both stacks (the current lock's): it installs either stack's lock alike.
set -euo pipefail
project=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lock="$project/requirements/current.lock"
version=$(sed -n 's/^uv==\([^ ]*\).*/\1/p' "$lock")
home="$project/.uv/$version"
[ -x "$home/uv" ] && { echo "$home/uv"; exit 0; }

fail() { echo "error: could not fetch uv $version from $index: $*" >&2; exit 1; }
index=${UV_INDEX_URL:-${PIP_INDEX_URL:-https://pypi.org/simple}}
index=${index%/}
case "$(uname -m)" in
  x86_64) arch=x86_64 ;;
  aarch64) arch=aarch64 ;;
  *) echo "error: no uv wheel for this machine ($(uname -m)); install uv $version and put it on the PATH as .uv/$version/uv" >&2; exit 1 ;;
esac
# curl, else Python's urllib (a Debian root built before it held curl has python3).
fetch() {  # fetch URL SECONDS [FILE]: the body on stdout, or into FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --max-time "$2" ${3:+-o "$3"} "$1"
  elif command -v python3 >/dev/null 2>&1; then
    python3 - "$@" <<'PY'
import shutil, sys, urllib.request
url, seconds, *into = sys.argv[1:]
try:
    with urllib.request.urlopen(url, timeout=float(seconds)) as body:
        shutil.copyfileobj(body, open(into[0], "wb") if into else sys.stdout.buffer)
except OSError as err:
    sys.exit(f"urllib: {err}")
PY
  else
    echo "curl: neither curl nor python3 is here to fetch it (sudo apt-get install curl)" >&2
    return 1
  fi
}
# The lock's hashes for this version: the wheel must be one of them.
hashes=$(awk -v pin="uv==$version" '$1 == pin {on = 1; next} on && /--hash=sha256:/ {sub(/.*sha256:/, ""); sub(/[ \\].*/, ""); print; next} on {exit}' "$lock")
page=$(fetch "$index/uv/" 60 2>&1) || fail "$(tail -n1 <<<"${page##*curl: }")"
url=$(grep -o "href=\"[^\"]*uv-$version-py3-none-manylinux_2_17_$arch[^\"]*\"" <<<"$page" | head -n1 | sed 's/^href="//; s/"$//; s/&amp;/\&/g')
[ -n "$url" ] || fail "the index lists no manylinux $arch wheel of uv $version"
case "$url" in http*) ;; *) url="$index/uv/$url" ;; esac

tmp=$(mktemp -d "$project/.uv/.fetch.XXXXXX" 2>/dev/null || { mkdir -p "$project/.uv" && mktemp -d "$project/.uv/.fetch.XXXXXX"; })
trap 'rm -rf "$tmp"' EXIT
wheel="$tmp/uv.whl"
echo "Fetching uv $version (the current lock's pin) into .uv/$version" >&2
fetch "${url%%#*}" 300 "$wheel" 2>"$tmp/err" || fail "$(tail -n1 "$tmp/err")"
got=$(sha256sum "$wheel" | cut -d' ' -f1)
grep -qx "$got" <<<"$hashes" || fail "the wheel's sha256 $got is not among requirements/current.lock's hashes for uv==$version"
mkdir "$tmp/unpacked"
if command -v unzip >/dev/null 2>&1; then
  unzip -q "$wheel" -d "$tmp/unpacked"
elif command -v python3 >/dev/null 2>&1; then
  python3 -m zipfile -e "$wheel" "$tmp/unpacked"
else
  fail "neither unzip nor python3 is here to unpack the wheel (sudo apt-get install unzip)"
fi
mkdir "$tmp/home"
mv "$tmp/unpacked/uv-$version.data/scripts/uv" "$tmp/home/uv"
chmod 755 "$tmp/home/uv"
mkdir -p "$(dirname "$home")"
mv -T "$tmp/home" "$home" 2>/dev/null || [ -x "$home/uv" ]  # another make fetched it meanwhile
echo "$home/uv"
