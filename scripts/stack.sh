#!/usr/bin/env bash
# Decide which stack make uses, and why, in one line on stdout:
#   <stack> <native|root> <default|asked> <why, for people>
#   scripts/stack.sh [current|legacy]   (empty: the host decides)
#   scripts/stack.sh --versions STACK   (the Pythons a stack runs on, preferred first)
# The current stack (TFX 1.21, Python 3.13 or 3.12) needs glibc 2.39 or newer:
# ml-metadata 1.21's wheels are manylinux_2_39, the tag pip checks against the host's C
# library. Where it cannot run natively, it runs in a Debian 13 root (scripts/in_root.sh):
# when STACK=current asks, and, as root, when the host has no Python for the legacy stack
# (scripts/find_python.sh says what it tried).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
versions_current="3.13 3.12"
versions_legacy="3.10"
if [ "${1:-}" = --versions ]; then
  case "${2:-}" in
    current) echo "$versions_current" ;;
    legacy) echo "$versions_legacy" ;;
    *) echo "usage: scripts/stack.sh --versions current|legacy" >&2; exit 2 ;;
  esac
  exit 0
fi
asked=${1:-}
need=2.39
current="current (TFX 1.21, Python ${versions_current// / or })"
legacy="legacy (TFX 1.16, Python $versions_legacy)"
if [ -n "${WIDE_DEEP_IN_ROOT:-}" ]; then
  # The outer make has said why; it says whether the host chose (default) or STACK asked.
  [ "$WIDE_DEEP_IN_ROOT" = default ] && echo "current native default" || echo "current native asked"
  exit 0
fi
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}') || true
glibc=${glibc:-none}
runs_current() { [ "$glibc" != none ] && [ "$(printf '%s\n%s\n' "$need" "$glibc" | sort -V | head -n1)" = "$need" ]; }
# The legacy stack has a Python here: its environment runs, or find_python.sh finds one.
# What it tried and did goes to stderr, but for its last line: where it found one, the
# build says so again; where it found none, that line names the choices, and the caller
# decides what follows.
has_legacy_python() {
  "$here/../.venv-legacy/bin/python" -c "" 2>/dev/null && return 0
  local said status=0
  said=$(mktemp)
  # shellcheck disable=SC2086
  "$here/find_python.sh" $versions_legacy >/dev/null 2>"$said" || status=$?
  head -n -1 "$said" >&2
  rm -f "$said"
  return "$status"
}
case "$asked" in
  "")
    if runs_current; then
      echo "current native default stack: $current; this host's glibc $glibc runs it (STACK=legacy for the other)"
    elif has_legacy_python || [ "$(id -u)" != 0 ]; then
      echo "legacy native default stack: $legacy; this host's glibc $glibc is older than the $need the current stack needs (STACK=current runs it in a Debian 13 root)"
    else
      echo "current root default stack: $current in a Debian 13 root (.debian13-root): this host has no Python $versions_legacy for the legacy stack, and its glibc $glibc is older than the $need the current stack needs natively"
    fi ;;
  current)
    if runs_current; then
      echo "current native asked stack: $current, as STACK asks; this host's glibc $glibc runs it"
    else
      echo "current root asked stack: $current, as STACK asks, in a Debian 13 root (.debian13-root): this host's glibc $glibc is older than $need"
    fi ;;
  legacy)
    echo "legacy native asked stack: $legacy, as STACK asks" ;;
  *)
    echo "error: STACK must be current or legacy (or unset, to let the host decide), not '$asked'" >&2
    exit 2 ;;
esac
