#!/usr/bin/env bash
# Install the named Debian packages when they are missing: as root with apt-get, else
# say in one line which are missing and what to run.
#   scripts/system_deps.sh [--without "WHAT GOES WITHOUT THEM"] PACKAGE...
#     (a warning, and carry on: the tests that need them skip with that reason)
#   scripts/system_deps.sh --install "WHY THEY ARE NEEDED" PACKAGE...
#     (the caller found them missing, by its own test: an error and exit 1 where
#     they cannot be installed)
set -uo pipefail
mode=optional without="the tests that need them will be skipped" why=""
case "${1:-}" in
  --without) without=$2; shift 2 ;;
  --install) mode=install why=$2; shift 2 ;;
esac
missing=()
for pkg in "$@"; do
  [ "$mode" != install ] && dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" && continue
  missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian packages: ${missing[*]}${why:+ ($why)}"
  apt-get update -qq >/dev/null 2>&1 \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    && exit 0
  said="apt-get could not install ${missing[*]}${why:+ ($why)}: 'apt-get install ${missing[*]}' says why"
else
  said="missing Debian packages ${missing[*]}${why:+ ($why)}: install them with 'sudo apt-get install ${missing[*]}'"
fi
if [ "$mode" = optional ]; then
  echo "warning: $said; $without." >&2
  exit 0
fi
echo "error: $said" >&2
exit 1
