#!/bin/bash
# Builds the kubevirt-ts test guest from Debian packages: the Debian cloud kernel and an initramfs
# of busybox-static + qemu-guest-agent + dropbear + OpenSSH's sftp-server (with their shared libraries) + the kernel's
# virtio/CD-ROM/ACPI/FAT modules + sudo/sudo.c + this folder's rootfs/ (the init, a small
# cloud-init, the personalities, the DHCP and ACPI handlers). One image per personality, each
# laid out like an upstream containerDisk plus kernel-boot files:
#   <out>/disk/disk.qcow2          BIOS-bootable disk (MBR): partition 1 a FAT volume with SYSLINUX,
#                                  the kernel, the initramfs and the boot counter; partition 2 a
#                                  small ext4 volume (built with mtools/mke2fs: no loop device, no mount)
#   <out>/boot/vmlinuz             kernel-boot files (also as vmlinuz-virt / initramfs-virt, the
#   <out>/boot/initramfs.cpio.gz   paths upstream's kernel-boot example names)
# <out> is ${XDG_CACHE_HOME:-$HOME/.cache}/kubevirt-ts/images/test-guest for the default
# personality and .../images/test-guest-<personality> for the others; their initramfs differ only
# in the name of the personality (a second cpio archive appended to the shared one). A stamp holds
# the hash of the recipe (this script + rootfs/ + sudo/); the images are rebuilt only when it changes.
#
# usage: build-test-guest.sh [--force] [--with-test-tools]
#   --force            rebuild even if the stamp matches
#   --with-test-tools  also install what the boot tests use (qemu-system-x86, genisoimage,
#                      openssh-client)
# env: KUBEVIRT_TS_GUEST_KERNEL=linux-image-...-cloud-amd64 picks a kernel package (default: newest)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kubevirt-ts
OUT=$CACHE/images/test-guest
DEBS=$CACHE/downloads/debs
# Drivers loaded at boot when the kernel builds them as modules (their dependencies come along):
# virtio disks/NICs/SCSI, SATA CD-ROMs, the ISO 9660 and FAT file systems of cloud-init volumes,
# the code pages a FAT mount needs, the guest agent's virtio-serial port, the ACPI power button and
# the evdev interface acpid reads it from.
MODULES=(virtio_ring virtio virtio_pci virtio_blk virtio_net virtio_scsi virtio_rng virtio_console sd_mod sr_mod ahci
  isofs vfat nls_cp437 nls_ascii ext4 evdev button)
BUILD_PACKAGES=(busybox-static mtools syslinux syslinux-common qemu-utils e2fsprogs fdisk gcc libc6-dev)
TEST_PACKAGES=(qemu-system-x86 genisoimage openssh-client)
# Taken from their Debian packages (unpacked, not installed here), with the shared libraries they
# load (the host's copies: the packages' dependencies are installed for that).
# sftp-server: dropbear runs /usr/lib/sftp-server for the sftp subsystem, which OpenSSH's scp (9.0 and
# later, what `virtctl scp` runs) speaks by default.
GUEST_PACKAGES=(qemu-guest-agent dropbear-bin openssh-sftp-server)
GUEST_BINARIES=(usr/sbin/qemu-ga usr/sbin/dropbear usr/bin/dropbearkey usr/lib/openssh/sftp-server)
# rootfs/usr/lib/kubevirt-ts/personalities/<name>; the first is the default (kubevirt-ts/test-guest).
PERSONALITIES=(test-guest cirros alpine alpine-with-test-tooling fedora)

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
    find build-test-guest.sh rootfs sudo -type f | LC_ALL=C sort | while read -r file; do
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
  mkdir -p "$rootfs"/bin "$rootfs"/sbin "$rootfs"/lib/modules "$rootfs"/root "$rootfs"/usr/bin "$rootfs"/usr/sbin
  for directory in dev proc sys run tmp boot data home; do mkdir -p "$rootfs/$directory"; done
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"
  done
  ln -s ../bin/busybox "$rootfs/sbin/init"
  cp -R "$HERE/rootfs/." "$rootfs/"
  chmod 700 "$rootfs/root"
  chmod 600 "$rootfs/etc/shadow"
  chmod 1777 "$rootfs/tmp"
  chmod 755 "$rootfs/init" "$rootfs/sbin/nocloud" "$rootfs/sbin/shutdown" "$rootfs/sbin/chpasswd" \
    "$rootfs/usr/share/udhcpc/default.script" "$rootfs/etc/acpi/power-button" \
    "$rootfs/usr/lib/kubevirt-ts/personality" "$rootfs/usr/lib/kubevirt-ts/boot-disk" \
    "$rootfs/usr/lib/kubevirt-ts/service" "$rootfs/usr/lib/kubevirt-ts/systemctl"
}

# The names a Debian package depends on (first alternative, no versions).
deb_depends() {
  dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v '^$'
}

# Prints the cached .deb of package $1, downloading it first if needed (progress on stderr).
guest_deb() {
  local package=$1 deb
  deb=$(find "$DEBS" -name "${package}_*.deb" -print -quit)
  if [ -z "$deb" ]; then
    step "downloading $package" >&2
    (cd "$DEBS" && apt-get download -qq -o APT::Sandbox::User=root "$package")
    deb=$(find "$DEBS" -name "${package}_*.deb" -print -quit)
  fi
  echo "$deb"
}

# Copies the shared libraries the given ELF files load (ldd, resolved on this host) and the
# dynamic loader into the rootfs, at the same paths.
copy_library_closure() {
  local rootfs=$1 library
  shift
  if ldd "$@" | grep 'not found'; then
    echo "a shared library of $* is missing on this host" >&2 && return 1
  fi
  for library in $(ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' | sort -u); do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
  done
}

# The guest agent, the ssh server and sudo, with what they load.
install_guest_programs() {
  local rootfs=$1 package deb binary
  local unpacked=$WORK/packages binaries=("$rootfs/usr/bin/sudo")
  mkdir -p "$unpacked"
  for package in "${GUEST_PACKAGES[@]}"; do
    deb=$(guest_deb "$package")
    # shellcheck disable=SC2046 # one word per dependency
    ensure_packages $(deb_depends "$deb")
    dpkg-deb -x "$deb" "$unpacked"
    echo "${package//-/_}_version=$(dpkg-deb -f "$deb" Version)" >>"$WORK/versions"
  done
  for binary in "${GUEST_BINARIES[@]}"; do
    mkdir -p "$(dirname "$rootfs/$binary")"
    cp "$unpacked/$binary" "$rootfs/$binary"
    binaries+=("$rootfs/$binary")
  done
  ln -sfn openssh/sftp-server "$rootfs/usr/lib/sftp-server" # as the package links it
  gcc -Os -Wall -Wextra -Werror -o "$rootfs/usr/bin/sudo" "$HERE/sudo/sudo.c"
  strip "$rootfs/usr/bin/sudo"
  chmod 4755 "$rootfs/usr/bin/sudo"
  copy_library_closure "$rootfs" "${binaries[@]}"
  step "guest programs: ${GUEST_BINARIES[*]} usr/bin/sudo, $(du -sh "$rootfs/lib/x86_64-linux-gnu" | cut -f1) of libraries"
}

# The image folder of a personality: the default one keeps the historical name.
image_name() {
  if [ "$1" = "${PERSONALITIES[0]}" ]; then echo test-guest; else echo "test-guest-$1"; fi
}

# The shared initramfs plus, for all but the default personality, an appended cpio archive that
# holds only /etc/kubevirt-ts/image-personality (the kernel unpacks the archives in order).
make_initramfs() {
  local personality=$1 out=$2 marker=$WORK/marker-$1
  cp "$WORK/initramfs.cpio.gz" "$out"
  [ "$personality" = "${PERSONALITIES[0]}" ] && return 0
  mkdir -p "$marker/etc/kubevirt-ts"
  echo "$personality" >"$marker/etc/kubevirt-ts/image-personality"
  (cd "$marker" && find . | LC_ALL=C sort | busybox cpio -o -H newc 2>/dev/null) | gzip -9 >>"$out"
}

# An MBR disk: partition 1 (bootable) a FAT volume with SYSLINUX in its boot sector, the kernel and
# the initramfs; partition 2 a small ext4 volume (something guest-fsfreeze can freeze; FAT cannot).
make_boot_disk() {
  local image=$1 kernel=$2 initramfs=$3 boot_mib data_mib=8 offset=$((1 << 20))
  boot_mib=$(($(stat -c %s "$kernel" "$initramfs" | awk '{ s += $1 } END { print int(s / 1048576) }') + 8))
  truncate -s "$((1 + boot_mib + data_mib))M" "$image"
  sfdisk --quiet --no-reread --no-tell-kernel "$image" >/dev/null <<EOF
label: dos
start=2048, size=$((boot_mib * 2048)), type=e, bootable
start=$(((1 + boot_mib) * 2048)), size=$((data_mib * 2048)), type=83
EOF
  dd if=/usr/lib/syslinux/mbr/mbr.bin of="$image" bs=440 count=1 conv=notrunc status=none
  export MTOOLS_SKIP_CHECK=1
  mformat -i "$image@@$offset" -v TESTGUEST -T $((boot_mib * 2048)) -h 64 -s 32 -H 2048 ::
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
  mcopy -i "$image@@$offset" "$kernel" ::/vmlinuz
  mcopy -i "$image@@$offset" "$initramfs" ::/initramfs.gz
  mcopy -i "$image@@$offset" "$WORK/syslinux.cfg" ::/syslinux.cfg
  syslinux --offset "$offset" --install "$image"
  rm -f "$WORK/data.img"
  mke2fs -q -F -t ext4 -L kvts-data -E root_owner=0:0 "$WORK/data.img" "${data_mib}M" >/dev/null
  dd if="$WORK/data.img" of="$image" bs=1M seek=$((1 + boot_mib)) conv=notrunc status=none
}

up_to_date() {
  local personality out
  for personality in "${PERSONALITIES[@]}"; do
    out=$CACHE/images/$(image_name "$personality")
    [ "$(cat "$out/stamp" 2>/dev/null || true)" = "$hash" ] && [ -f "$out/disk/disk.qcow2" ] &&
      [ -f "$out/boot/vmlinuz" ] && [ -f "$out/boot/initramfs.cpio.gz" ] || return 1
  done
}

mkdir -p "$CACHE/images"
exec 9>"$CACHE/images/.test-guest.lock"
flock 9

hash=$(recipe_hash)
if [ "$force" = 0 ] && up_to_date; then
  [ "$with_test_tools" = 0 ] || ensure_packages "${TEST_PACKAGES[@]}"
  step "up to date (recipe $(echo "$hash" | cut -c1-12))"
  echo "$OUT"
  exit 0
fi

step "building test guest (recipe $(echo "$hash" | cut -c1-12)) into $OUT and $OUT-*"
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
install_guest_programs "$WORK/rootfs"
cat >"$WORK/rootfs/etc/test-guest-release" <<EOF
kernel_package=$kernel_package
busybox_version=$(dpkg-query -W -f='${Version}' busybox-static)
$(cat "$WORK/versions")
recipe=$hash
EOF
(cd "$WORK/rootfs" && find . | LC_ALL=C sort | busybox cpio -o -H newc 2>"$WORK/cpio.log") |
  gzip -9 >"$WORK/initramfs.cpio.gz"
cp "$WORK/kernel/boot/vmlinuz-$version" "$WORK/vmlinuz"

for personality in "${PERSONALITIES[@]}"; do
  out=$WORK/out/$(image_name "$personality")
  step "image $(basename "$out"): initramfs, bootable disk (MBR, FAT + SYSLINUX, ext4) as qcow2"
  mkdir -p "$out/boot" "$out/disk"
  ln "$WORK/vmlinuz" "$out/boot/vmlinuz"
  ln "$WORK/vmlinuz" "$out/boot/vmlinuz-virt"
  make_initramfs "$personality" "$out/boot/initramfs.cpio.gz"
  ln "$out/boot/initramfs.cpio.gz" "$out/boot/initramfs-virt"
  make_boot_disk "$WORK/disk.img" "$out/boot/vmlinuz" "$out/boot/initramfs.cpio.gz"
  qemu-img convert -f raw -O qcow2 "$WORK/disk.img" "$out/disk/disk.qcow2"
  rm -f "$WORK/disk.img"
  { cat "$WORK/rootfs/etc/test-guest-release" && echo "personality=$personality"; } >"$out/release"
  echo "$hash" >"$out/stamp"
done

# Swap each new image in whole, so a reader never sees half of one.
for personality in "${PERSONALITIES[@]}"; do
  name=$(image_name "$personality")
  target=$CACHE/images/$name
  rm -rf "$target.old"
  [ ! -e "$target" ] || mv "$target" "$target.old"
  mv "$WORK/out/$name" "$target"
  rm -rf "$target.old"
done
step "done: kernel $version, disk $(du -h "$OUT/disk/disk.qcow2" | cut -f1), initramfs $(du -h "$OUT/boot/initramfs.cpio.gz" | cut -f1), images ${PERSONALITIES[*]}"
echo "$OUT"
