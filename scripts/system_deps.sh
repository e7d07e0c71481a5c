#!/usr/bin/env bash
# Install the named Debian packages when they are missing. Without root or apt-get,
# say in one line which are missing and what goes without them, and carry on.
#   scripts/system_deps.sh [--without "WHAT GOES WITHOUT THEM"] PACKAGE...
# (default: the tests that need them skip with that reason).
set -uo pipefail
without="the tests that need them will be skipped"
if [ "${1:-}" = --without ]; then without=$2; shift 2; fi
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian packages: ${missing[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    && exit 0
  echo "warning: apt-get could not install ${missing[*]}" >&2
else
  echo "warning: missing Debian packages ${missing[*]} (not root or no apt-get): install them with" \
       "'sudo apt-get install ${missing[*]}'; $without." >&2
fi
exit 0
