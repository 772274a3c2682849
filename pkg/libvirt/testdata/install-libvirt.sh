#!/bin/sh
# Installs the Debian packages the real-libvirt tests need (libvirtd with the QEMU driver and
# QEMU itself), through the suite's one installer. Idempotent. Needs root when anything is missing.
set -eu
exec bash "$(dirname "$0")/../../../deploy/local/install-deps.sh" \
  libvirt-daemon libvirt-daemon-driver-qemu qemu-system-x86 qemu-utils
