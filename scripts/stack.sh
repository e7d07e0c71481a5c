#!/usr/bin/env bash
# Decide which stack make uses, and why, in one line on stdout:
#   <stack> <native|root> <default|asked> <why, for people>
#   scripts/stack.sh [current|legacy]   (empty: the host decides)
# The current stack (TFX 1.21, Python 3.13) needs glibc 2.39 or newer: ml-metadata
# 1.21's wheels are manylinux_2_39, the tag pip checks against the host's C library.
# Where it cannot run natively, STACK=current runs in a Debian 13 root (scripts/in_root.sh).
set -euo pipefail
asked=${1:-}
need=2.39
current="current (TFX 1.21, Python 3.13)"
legacy="legacy (TFX 1.16, Python 3.10)"
if [ -n "${WIDE_DEEP_IN_ROOT:-}" ]; then
  echo "current native asked"  # the outer make has said why
  exit 0
fi
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}') || true
glibc=${glibc:-none}
runs_current() { [ "$glibc" != none ] && [ "$(printf '%s\n%s\n' "$need" "$glibc" | sort -V | head -n1)" = "$need" ]; }
case "$asked" in
  "")
    if runs_current; then
      echo "current native default stack: $current; this host's glibc $glibc runs it (STACK=legacy for the other)"
    else
      echo "legacy native default stack: $legacy; this host's glibc $glibc is older than the $need the current stack needs (STACK=current runs it in a Debian 13 root)"
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
