#!/usr/bin/env bash
# Build, once, the Debian 13 root in which the current stack runs on a host whose C
# library cannot run it (Debian 12: glibc 2.36; ml-metadata 1.21 and TFDV 1.21 need
# glibc 2.38-2.39 and GCC 13's libstdc++). From Debian's packages only (debootstrap);
# the Python packages come later from PyPI, inside the root, by `make` itself.
#   scripts/debian_root.sh ROOT
# A root is used only once it is complete: it is built under ROOT.partial and renamed
# at the end, so a build that was killed leaves ROOT.partial, which the next build
# removes and starts again, and never a ROOT that looks usable.
set -euo pipefail
root=$1
partial="$root.partial"
suite=trixie
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# python3-dev and g++: pyfarmhash (TFDV's) is published as source only and compiles.
# make runs the targets inside; graphviz draws the model diagram.
packages=python3,python3-venv,python3-dev,g++,make,ca-certificates,curl,graphviz,git

[ -d "$root" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "error: the current stack needs glibc 2.39 or newer, which this host lacks, and only" \
       "root can build the Debian 13 root it would run in (debootstrap, chroot): run as root," \
       "use the image (see Dockerfile), or a Debian 13 / Ubuntu 24.04 host; STACK=legacy runs here." >&2
  exit 2
fi
if [ -e "$partial" ]; then
  echo "Found a half-built Debian root at $partial (a build was stopped): removing it and building again"
  rm -rf --one-file-system "$partial"
fi
command -v debootstrap >/dev/null 2>&1 \
  || "$(dirname "${BASH_SOURCE[0]}")/system_deps.sh" --install "to build the Debian 13 root" debootstrap \
  || exit 1
echo "Building a Debian 13 ($suite) root at $root for the current stack (once; about 2 minutes, 450 MB)"
log="$partial.log"
mkdir -p "$(dirname "$root")"
if ! debootstrap --variant=minbase --include="$packages" "$suite" "$partial" "$mirror" >"$log" 2>&1; then
  echo "error: debootstrap failed; its log is $log (last lines below)" >&2
  tail -n 5 "$log" >&2
  exit 1
fi
# The host's own certificate authorities (a proxy's, say) so that pip reaches PyPI from
# inside as it does outside.
if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
  cp -r /usr/local/share/ca-certificates/. "$partial/usr/local/share/ca-certificates/"
  chroot "$partial" update-ca-certificates >>"$log" 2>&1
fi
mv "$log" "$partial/debootstrap-run.log"
mv "$partial" "$root"
echo "Debian 13 root ready at $root"
