#!/bin/bash
# virt-handler's init container (upstream's node-labeller.sh, run from the virt-launcher image): asks
# libvirt what this node offers VMs and leaves the answers in the node-labeller volume, where
# virt-handler's node labeller reads them (virsh_domcapabilities.xml, supported_features.xml,
# capabilities.xml). Without the hypervisor device the answers are TCG's (virttype qemu).
#
# Unlike upstream, libvirt here is an unprivileged session daemon started for the question and stopped
# by its PID afterwards: the image's libvirt runs that way in every launcher Pod, and a system daemon
# would want the distribution's libvirt-qemu user and system sockets.
set -euo pipefail

OUT=${NODE_LABELLER_DIR:-/var/lib/kubevirt-node-labeller}
if [ -z "${HYPERVISOR_DEVICE:-}" ] || [ -z "${PREFERRED_VIRTTYPE:-}" ]; then
  echo "Warning: HYPERVISOR_DEVICE or PREFERRED_VIRTTYPE not set, defaulting both to kvm" >&2
  HYPERVISOR_DEVICE=kvm
  PREFERRED_VIRTTYPE=kvm
fi

ARCH=$(uname -m)
case "$ARCH" in
  x86_64) MACHINE=q35 ;;
  aarch64) MACHINE=virt ;;
  s390x) MACHINE=s390-ccw-virtio ;;
  *) exit 0 ;;
esac

# libvirt and virsh run as QEMU's user; an image that already runs as that user needs no switch.
QEMU_UID=${QEMU_UID:-107}
DROP=()
if [ "$(id -u)" = 0 ]; then
  DROP=(setpriv --reuid="$QEMU_UID" --regid="$QEMU_UID" --clear-groups)
fi
as_qemu() { "${DROP[@]}" "${QEMU_ENV[@]}" "$@"; }

# The hypervisor counts only when QEMU's user can open it. Upstream creates the node and opens it to
# everyone here; this one leaves the node's device as the node set it up (the device plugin hands it
# to launcher Pods), so a node whose device QEMU cannot use reports what TCG offers.
DEVICE=/dev/$HYPERVISOR_DEVICE
VIRTTYPE=qemu
if [ -c "$DEVICE" ] && "${DROP[@]}" test -r "$DEVICE" -a -w "$DEVICE"; then
  VIRTTYPE=$PREFERRED_VIRTTYPE
fi

WORK=$(mktemp -d /tmp/node-labeller.XXXXXX)
# libvirt's QEMU capability cache survives in the volume: it is checked against QEMU's binary, and a
# handler restart then answers in a fraction of the probe's time.
CACHE=$OUT/.cache
mkdir -p "$CACHE"
[ "${#DROP[@]}" -eq 0 ] || chown "$QEMU_UID:$QEMU_UID" "$WORK" "$CACHE"
QEMU_ENV=(env -i PATH="$PATH" HOME="$WORK" XDG_RUNTIME_DIR="$WORK/run" XDG_CONFIG_HOME="$WORK/config"
  XDG_CACHE_HOME="$CACHE")
# libvirtd's log is shown only when something failed: it warns about D-Bus and dnsmasq on every start.
# Started as a simple command, not through the function, so that $! is the daemon's own PID.
"${DROP[@]}" "${QEMU_ENV[@]}" libvirtd 2> "$WORK/libvirtd.log" &
LIBVIRTD_PID=$!
finish() {
  local status=$?
  kill "$LIBVIRTD_PID" 2>/dev/null || true
  wait "$LIBVIRTD_PID" 2>/dev/null || true
  [ "$status" -eq 0 ] || cat "$WORK/libvirtd.log" >&2
  rm -rf "$WORK"
}
trap finish EXIT

SOCKET=$WORK/run/libvirt/libvirt-sock
for _ in $(seq 1 150); do
  [ -S "$SOCKET" ] && break
  kill -0 "$LIBVIRTD_PID" 2>/dev/null || { echo "libvirtd exited before listening" >&2; exit 1; }
  sleep 0.1
done
[ -S "$SOCKET" ] || { echo "libvirtd did not listen on $SOCKET within 15s" >&2; exit 1; }

virsh_() { as_qemu virsh -q -c "qemu+unix:///session?socket=$SOCKET" "$@"; }
QUERY=(--machine "$MACHINE" --arch "$ARCH" --virttype "$VIRTTYPE")

virsh_ domcapabilities "${QUERY[@]}" > "$OUT/virsh_domcapabilities.xml.tmp"
# hypervisor-cpu-baseline exists on x86 and s390x only.
if [ "$ARCH" = x86_64 ] || [ "$ARCH" = s390x ]; then
  virsh_ hypervisor-cpu-baseline --features "${QUERY[@]}" /dev/stdin \
    < "$OUT/virsh_domcapabilities.xml.tmp" > "$OUT/supported_features.xml.tmp"
  mv "$OUT/supported_features.xml.tmp" "$OUT/supported_features.xml"
fi
virsh_ capabilities > "$OUT/capabilities.xml.tmp"
mv "$OUT/capabilities.xml.tmp" "$OUT/capabilities.xml"
mv "$OUT/virsh_domcapabilities.xml.tmp" "$OUT/virsh_domcapabilities.xml"
