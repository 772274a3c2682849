#!/bin/bash
# Builds the kubevirt-ts test guest from Debian packages: the Debian cloud kernel and an initramfs
# of busybox-static + the kernel's virtio/CD-ROM/ACPI modules + this folder's rootfs/ (the init,
# a small cloud-init, the DHCP and ACPI handlers). Output, laid out like an upstream containerDisk
# plus kernel-boot files:
#   <out>/disk/disk.qcow2          BIOS-bootable disk: a FAT "superfloppy" with SYSLINUX, the kernel
#                                  and the initramfs (built with mtools: no loop device, no mount)
#   <out>/boot/vmlinuz             kernel-boot files (also as vmlinuz-virt / initramfs-virt, the
#   <out>/boot/initramfs.cpio.gz   paths upstream's kernel-boot example names)
# <out> is ${XDG_CACHE_HOME:-$HOME/.cache}/kubevirt-ts/images/test-guest. A stamp holds the hash of
# the recipe (this script + rootfs/); the image is rebuilt only when that hash changes.
#
# usage: build-test-guest.sh [--force] [--with-test-tools]
#   --force            rebuild even if the stamp matches
#   --with-test-tools  also install what the boot tests use (qemu-system-x86, genisoimage)
# env: KUBEVIRT_TS_GUEST_KERNEL=linux-image-...-cloud-amd64 picks a kernel package (default: newest)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kubevirt-ts
OUT=$CACHE/images/test-guest
DEBS=$CACHE/downloads/debs
# Drivers loaded at boot when the kernel builds them as modules (their dependencies come along):
# virtio disks/NICs/SCSI, SATA CD-ROMs, the ISO 9660 and FAT file systems of cloud-init volumes,
# the ACPI power button and the evdev interface acpid reads it from.
MODULES=(virtio_ring virtio virtio_pci virtio_blk virtio_net virtio_scsi virtio_rng sd_mod sr_mod ahci isofs vfat evdev button)
BUILD_PACKAGES=(busybox-static mtools syslinux syslinux-common qemu-utils)
TEST_PACKAGES=(qemu-system-x86 genisoimage)

force=0 with_test_tools=0
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --with-test-tools) with_test_tools=1 ;;
    *) echo "usage: $0 [--force] [--with-test-tools]" >&2 && exit 2 ;;
  esac
done

started=$(date +%s)
step() { echo "[test-guest +$(($(date +%s) - started))s] $*"; }

apt_updated=0
apt_update_once() {
  [ "$apt_updated" = 1 ] && return 0
  step "apt-get update"
  apt-get update -qq
  apt_updated=1
}

ensure_packages() {
  local missing=() package status
  for package in "$@"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$package")
  done
  [ ${#missing[@]} = 0 ] && return 0
  apt_update_once
  step "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

recipe_hash() {
  (
    cd "$HERE"
    echo "kernel=${KUBEVIRT_TS_GUEST_KERNEL:-newest}"
    find build-test-guest.sh rootfs -type f | LC_ALL=C sort | while read -r file; do
      echo "$file $(sha256sum <"$file")" # modes are not hashed: the build sets them
    done
  ) | sha256sum | cut -d' ' -f1
}

newest_cloud_kernel() {
  apt-cache search --names-only '^linux-image-[0-9].*-cloud-amd64$' | cut -d' ' -f1 | sort -V | tail -n1
}

# Prints module $1 after the modules it depends on, each once ($table.done lists those printed).
# $2: the kernel's modules dir, $3: a "name file" table of its module files.
module_closure() {
  local name=$1 dir=$2 table=$3 file depends dependency
  file=$(awk -v name="$name" '$1 == name { print $2; exit }' "$table")
  [ -n "$file" ] || return 0
  case "$file" in
    *.ko.xz) depends=$(busybox xzcat "$dir/$file" | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' ') ;;
    *.ko) depends=$(tr '\0' '\n' <"$dir/$file" | sed -n 's/^depends=//p' | tr ',' ' ') ;;
    *) echo "unsupported module file $file" >&2 && return 1 ;;
  esac
  for dependency in $depends; do
    case " $(cat "$table.done") " in *" $dependency "*) ;; *) module_closure "$dependency" "$dir" "$table" ;; esac
  done
  case " $(cat "$table.done") " in
    *" $name "*) ;;
    *) echo "$name" && printf ' %s' "$name" >>"$table.done" ;;
  esac
}

# Copies the wanted modules (uncompressed) and their dependencies into the initramfs and
# writes lib/modules/load-order; modules built into the kernel are skipped.
install_modules() {
  local kernel_root=$1 version=$2 rootfs=$3 wanted name file
  local dir=$kernel_root/lib/modules/$version table=$WORK/module-files
  (cd "$dir" && find kernel -name '*.ko' -o -name '*.ko.xz') |
    awk '{ n = $0; sub(/.*\//, "", n); sub(/\.ko(\.xz)?$/, "", n); gsub(/-/, "_", n); print n, $0 }' >"$table"
  : >"$table.done"
  : >"$rootfs/lib/modules/load-order"
  for wanted in "${MODULES[@]}"; do
    if sed 's|.*/||; s|\.ko$||; s|-|_|g' "$dir/modules.builtin" | grep -x "$wanted" >/dev/null; then continue; fi
    if ! awk -v name="$wanted" '$1 == name { found = 1 } END { exit !found }' "$table"; then
      step "note: $version has no module $wanted"
      continue
    fi
    module_closure "$wanted" "$dir" "$table" >>"$rootfs/lib/modules/load-order"
  done
  while read -r name; do
    file=$(awk -v name="$name" '$1 == name { print $2; exit }' "$table")
    case "$file" in
      *.xz) busybox xzcat "$dir/$file" >"$rootfs/lib/modules/$name.ko" ;;
      *) cp "$dir/$file" "$rootfs/lib/modules/$name.ko" ;;
    esac
  done <"$rootfs/lib/modules/load-order"
  step "modules: $(tr '\n' ' ' <"$rootfs/lib/modules/load-order")"
}

make_rootfs() {
  local rootfs=$1 directory applet
  mkdir -p "$rootfs"/bin "$rootfs"/sbin "$rootfs"/lib/modules "$rootfs"/root
  for directory in dev proc sys run tmp; do mkdir -p "$rootfs/$directory"; done
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"
  done
  ln -s ../bin/busybox "$rootfs/sbin/init"
  cp -R "$HERE/rootfs/." "$rootfs/"
  chmod 755 "$rootfs/init" "$rootfs/sbin/nocloud" "$rootfs/usr/share/udhcpc/default.script" \
    "$rootfs/etc/acpi/power-button"
}

# A FAT file system on the whole disk (no partition table), SYSLINUX in its boot sector.
make_boot_disk() {
  local image=$1 kernel=$2 initramfs=$3 size_mib
  size_mib=$(($(stat -c %s "$kernel" "$initramfs" | awk '{ s += $1 } END { print int(s / 1048576) }') + 8))
  truncate -s "${size_mib}M" "$image"
  export MTOOLS_SKIP_CHECK=1
  mformat -i "$image" -v TESTGUEST -T $((size_mib * 2048)) -h 64 -s 32 ::
  cat >"$WORK/syslinux.cfg" <<'EOF'
SERIAL 0 115200
PROMPT 0
TIMEOUT 0
DEFAULT guest
LABEL guest
  LINUX /vmlinuz
  INITRD /initramfs.gz
  APPEND console=tty0 console=ttyS0,115200n8 quiet panic=5
EOF
  mcopy -i "$image" "$kernel" ::/vmlinuz
  mcopy -i "$image" "$initramfs" ::/initramfs.gz
  mcopy -i "$image" "$WORK/syslinux.cfg" ::/syslinux.cfg
  syslinux --install "$image"
}

mkdir -p "$CACHE/images"
exec 9>"$CACHE/images/.test-guest.lock"
flock 9

hash=$(recipe_hash)
if [ "$force" = 0 ] && [ "$(cat "$OUT/stamp" 2>/dev/null || true)" = "$hash" ] &&
  [ -f "$OUT/disk/disk.qcow2" ] && [ -f "$OUT/boot/vmlinuz" ] && [ -f "$OUT/boot/initramfs.cpio.gz" ]; then
  [ "$with_test_tools" = 0 ] || ensure_packages "${TEST_PACKAGES[@]}"
  step "up to date (recipe $(echo "$hash" | cut -c1-12))"
  echo "$OUT"
  exit 0
fi

step "building test guest (recipe $(echo "$hash" | cut -c1-12)) into $OUT"
ensure_packages "${BUILD_PACKAGES[@]}"
[ "$with_test_tools" = 0 ] || ensure_packages "${TEST_PACKAGES[@]}"

kernel_package=${KUBEVIRT_TS_GUEST_KERNEL:-$(newest_cloud_kernel)}
if [ -z "$kernel_package" ]; then
  apt_update_once
  kernel_package=$(newest_cloud_kernel)
fi
[ -n "$kernel_package" ] || { echo "no linux-image-*-cloud-amd64 package known to apt" >&2 && exit 1; }

WORK=$(mktemp -d "$CACHE/images/.test-guest.build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DEBS"
deb=$(find "$DEBS" -name "${kernel_package}_*.deb" -print -quit)
if [ -z "$deb" ]; then
  step "downloading $kernel_package"
  (cd "$DEBS" && apt-get download -qq -o APT::Sandbox::User=root "$kernel_package")
  deb=$(find "$DEBS" -name "${kernel_package}_*.deb" -print -quit)
fi
step "unpacking $(basename "$deb")"
dpkg-deb -x "$deb" "$WORK/kernel"
version=${kernel_package#linux-image-}

step "assembling the initramfs (busybox $(dpkg-query -W -f='${Version}' busybox-static))"
make_rootfs "$WORK/rootfs"
install_modules "$WORK/kernel" "$version" "$WORK/rootfs"
cat >"$WORK/rootfs/etc/test-guest-release" <<EOF
kernel_package=$kernel_package
busybox_version=$(dpkg-query -W -f='${Version}' busybox-static)
recipe=$hash
EOF
mkdir -p "$WORK/out/boot" "$WORK/out/disk"
(cd "$WORK/rootfs" && find . | LC_ALL=C sort | busybox cpio -o -H newc 2>"$WORK/cpio.log") |
  gzip -9 >"$WORK/out/boot/initramfs.cpio.gz"
cp "$WORK/kernel/boot/vmlinuz-$version" "$WORK/out/boot/vmlinuz"
ln "$WORK/out/boot/vmlinuz" "$WORK/out/boot/vmlinuz-virt"
ln "$WORK/out/boot/initramfs.cpio.gz" "$WORK/out/boot/initramfs-virt"

step "making the bootable disk (FAT + SYSLINUX) and converting it to qcow2"
make_boot_disk "$WORK/disk.img" "$WORK/out/boot/vmlinuz" "$WORK/out/boot/initramfs.cpio.gz"
qemu-img convert -f raw -O qcow2 "$WORK/disk.img" "$WORK/out/disk/disk.qcow2"
cp "$WORK/rootfs/etc/test-guest-release" "$WORK/out/release"
echo "$hash" >"$WORK/out/stamp"

# Swap the new image in whole, so a reader never sees half of one.
rm -rf "$OUT.old"
[ ! -e "$OUT" ] || mv "$OUT" "$OUT.old"
mv "$WORK/out" "$OUT"
rm -rf "$OUT.old"
step "done: kernel $version, disk $(du -h "$OUT/disk/disk.qcow2" | cut -f1), initramfs $(du -h "$OUT/boot/initramfs.cpio.gz" | cut -f1)"
echo "$OUT"
