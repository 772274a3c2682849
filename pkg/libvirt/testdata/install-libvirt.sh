#!/bin/sh
# Installs the Debian packages the real-libvirt tests need (libvirtd with the QEMU driver and
# QEMU itself). Idempotent: does nothing when they are already there. Needs root.
set -eu
PACKAGES="libvirt-daemon libvirt-daemon-driver-qemu qemu-system-x86 qemu-utils"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "install-libvirt.sh: missing$missing and not root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is intended
apt-get install -y -qq --no-install-recommends $missing
