#!/usr/bin/env bash
# Build an Ubuntu root (SUITE: noble for 24.04, jammy for 22.04) as a fresh Ubuntu server
# holds it for a new user of this project: its own python3, make, git and curl, and
# none of python3-venv, python3-dev or g++, which make itself must install or name. It
# stands in for an Ubuntu host in CI, which has none (the kernel stays this machine's).
# As root, from Ubuntu's archive; the archive's keyring is fetched over HTTPS from the
# archive, so debootstrap checks the release files' signatures against it.
#   .ci/ubuntu_root.sh SUITE ROOT
set -euo pipefail
suite=$1 root=$2
mirror=${UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}
keyring_deb=https://archive.ubuntu.com/ubuntu/pool/main/u/ubuntu-keyring/ubuntu-keyring_2023.11.28.1_all.deb
rm -rf --one-file-system "$root" "$root.keyring"
command -v debootstrap >/dev/null 2>&1 \
  || "$(dirname "${BASH_SOURCE[0]}")/../scripts/system_deps.sh" --install "to build an Ubuntu root" debootstrap \
  || exit 1
mkdir -p "$root.keyring"
curl -fsSL -o "$root.keyring/keyring.deb" "$keyring_deb"
dpkg-deb -x "$root.keyring/keyring.deb" "$root.keyring"
# Debian 12's debootstrap has no script for suites newer than its release: Ubuntu's are
# all gutsy's (as Ubuntu's own debootstrap links them).
script=/usr/share/debootstrap/scripts/$suite
[ -e "$script" ] || script=/usr/share/debootstrap/scripts/gutsy
echo "Building an Ubuntu $suite root at $root"
debootstrap --variant=minbase --keyring="$root.keyring/usr/share/keyrings/ubuntu-archive-keyring.gpg" \
  --include=python3,make,git,curl,ca-certificates "$suite" "$root" "$mirror" "$script" >"$root.log" 2>&1 \
  || { tail -n 5 "$root.log" >&2; exit 1; }
# What an installed system has and debootstrap leaves out for some suites (jammy):
# without localhost in /etc/hosts, TFX 1.16's gRPC servers cannot bind.
[ -s "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
echo "deb $mirror $suite main universe" >"$root/etc/apt/sources.list"
echo "deb $mirror $suite-updates main universe" >>"$root/etc/apt/sources.list"
# This machine's certificate authorities (its egress proxy's), as debian_root.sh does.
if compgen -G "/usr/local/share/ca-certificates/*" >/dev/null; then
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >>"$root.log" 2>&1
fi
rm -rf "$root.keyring"
chroot "$root" python3 --version
