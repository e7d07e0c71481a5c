#!/usr/bin/env bash
# Run a command inside the Debian 13 root (scripts/debian_root.sh builds it), in this
# project's folder, which is mounted at the same path inside: what the command writes
# (.venv-current, outputs/) lands in the project as on a native host.
#   scripts/in_root.sh ROOT COMMAND [ARG]...
# The mounts live in a mount namespace of this command's own (unshare), so they go
# away with it, however it ends, and two commands at once do not disturb each other.
set -euo pipefail
root=$1
shift
project=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ ! -x "$root/usr/bin/python3" ]; then
  echo "error: $root is not a complete Debian root (no usr/bin/python3); remove it and run make again" >&2
  exit 2
fi
root=$(cd "$root" && pwd)
mkdir -p "$root$project"
# PATH: the root's own directories; the rest of the environment (make's variables,
# certificate paths, locale, WIDE_DEEP_IN_ROOT when make sends a target in) passes
# through, as it would to a native command.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
exec unshare --mount --propagation private -- bash -c '
  set -e
  root=$1 project=$2 here=$3
  shift 3
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$project" "$root$project"
  mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
  cd "$root$here"
  exec chroot "$root" bash -c "cd \"\$0\" && exec \"\$@\"" "$here" "$@"
' bash "$root" "$project" "$PWD" "$@"
