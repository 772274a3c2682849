#!/usr/bin/env bash
# Debian packages the one-machine cluster needs on the host. Idempotent: installs only what
# dpkg does not already report as installed, and refreshes the package index at most once.
#   iproute2        ip link/addr/route/netns for the control-plane link, node bridges, pod netns
#   nftables        `nft`: the node network's drop rule and kube-proxy's nftables mode
#   util-linux      unshare/nsenter/mount for pod sandboxes
#   busybox-static  what `busybox` images run, and the test guest's userland
#   openssl         certificate checks in tests
#   procps          sysctl
#   libvirt-daemon(-driver-qemu), qemu-system-x86, qemu-utils
#                   libvirt-clients + libxml2-utils: virt-xml-validate checks generated domain XML
#                   the VM layer: virt-launcher's private libvirtd and QEMU (TCG), qcow2 overlays
#   genisoimage     cloud-init NoCloud ISOs
#   mtools, syslinux, syslinux-common, fdisk (sfdisk), e2fsprogs (mke2fs)
#                   the test guest's BIOS-bootable disk, built without loop devices (the guest
#                   build adds the libraries of the qemu-guest-agent and dropbear it unpacks)
#   gcc, libc6-dev  static C helpers images carry (cmd/container-disk runs chrooted in a disk image)
#   python3-yaml    PyYAML, the YAML 1.1 reader a test reads every generated manifest with
#   buildah, debootstrap
#                   `make images` (hack/build-images): the component images built from their Dockerfiles, on a
#                   local Debian bookworm base made with debootstrap
#   golang-go is not listed: the Go toolchain comes with the machine (go >= 1.26 is required).
# With arguments, installs just those packages (the same way).
set -euo pipefail
PACKAGES=(iproute2 nftables util-linux busybox-static openssl procps ca-certificates
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients libxml2-utils qemu-system-x86 qemu-utils
  genisoimage mtools syslinux syslinux-common fdisk e2fsprogs gcc libc6-dev python3-yaml buildah debootstrap)
if (($# > 0)); then PACKAGES=("$@"); fi

missing=()
for package in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)"
  [[ "$status" == "installed" ]] || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  echo "host packages: all present"
  exit 0
fi
if [[ $EUID -ne 0 ]]; then
  echo "host packages missing: ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing host packages: ${missing[*]}"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
