// The launcher pod's fixed directories (upstream pkg/util's VirtShareDir, VirtPrivateDir and the
// emptyDir mounts) and where storage volumes land under them (upstream pkg/config, pkg/host-disk).
// A library because virt-controller, virt-handler and the launcher all need the same paths.
import { basename, join } from "node:path";

export interface LauncherLayout {
  /** `--kubevirt-share-dir`: shared with virt-handler (sockets, container disks). */
  virtShareDir: string;
  /** `--ephemeral-disk-dir`: overlays and cloud-init ISOs. */
  ephemeralDiskDir: string;
  /** `--container-disk-dir`: where virt-handler puts each containerDisk's image. */
  containerDiskDir: string;
  /** The launcher's private dir (upstream /var/run/kubevirt-private): libvirt's config and logs,
   * the console sockets, the network cache virt-handler writes. */
  privateDir: string;
  /** libvirt's XDG_RUNTIME_DIR (upstream /var/run): its sockets and QEMU pid files. */
  runDir: string;
}

export const DEFAULT_LAYOUT: LauncherLayout = {
  virtShareDir: "/var/run/kubevirt",
  ephemeralDiskDir: "/var/run/kubevirt-ephemeral-disks",
  containerDiskDir: "/var/run/kubevirt/container-disks",
  privateDir: "/var/run/kubevirt-private",
  runDir: "/var/run",
};

/** The five roots under one folder, for a launcher (or a test) run outside a pod. */
export const layoutUnder = (base: string): LauncherLayout => ({
  virtShareDir: join(base, "share"),
  ephemeralDiskDir: join(base, "ephemeral"),
  containerDiskDir: join(base, "container-disks"),
  privateDir: join(base, "private"),
  runDir: join(base, "run"),
});

/** libvirt's runtime dir and socket in the pod (virt-handler's target proxy connects to the socket). */
export const libvirtRuntimeDir = (layout: LauncherLayout): string => join(layout.runDir, "libvirt");
export const libvirtSocket = (layout: LauncherLayout): string =>
  join(libvirtRuntimeDir(layout), "libvirt-sock");

export const ephemeralDiskDataDir = (layout: LauncherLayout): string =>
  join(layout.ephemeralDiskDir, "disk-data");

/** The config volume kinds the launcher turns into ISO images (upstream pkg/config). */
export type ConfigDiskKind = "configMap" | "secret" | "downwardAPI" | "serviceAccount";

const configDirs: Record<ConfigDiskKind, { source: string; disks: string }> = {
  configMap: { source: "config-map", disks: "config-map-disks" },
  secret: { source: "secret", disks: "secret-disks" },
  downwardAPI: { source: "downwardapi", disks: "downwardapi-disks" },
  serviceAccount: { source: "", disks: "service-account-disk" },
};

export const CONFIG_DISK_KINDS = Object.keys(configDirs) as readonly ConfigDiskKind[];

/**
 * Where virt-controller mounts a config volume's files: `<private>/config-map/<volume>` and so on;
 * a serviceAccount volume is read from the pod's own token mount, as upstream.
 */
export const configSourceDir = (layout: LauncherLayout, kind: ConfigDiskKind, volumeName: string): string =>
  kind === "serviceAccount"
    ? ServiceAccountTokenDir
    : join(layout.privateDir, configDirs[kind].source, volumeName);

/** The ISO the launcher builds from a config volume: `<private>/config-map-disks/<volume>.iso`, ... */
export const configDiskPath = (layout: LauncherLayout, kind: ConfigDiskKind, volumeName: string): string =>
  join(
    layout.privateDir,
    configDirs[kind].disks,
    kind === "serviceAccount" ? "service-account.iso" : `${volumeName}.iso`,
  );

/** The pod's ServiceAccount token mount (kubelet's fixed path). */
export const ServiceAccountTokenDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/** A Filesystem PVC's (or a hostDisk's) mount: `<private>/vmi-disks/<volume>` (upstream pkg/host-disk). */
export const pvcMountDir = (layout: LauncherLayout, volumeName: string): string =>
  join(layout.privateDir, "vmi-disks", volumeName);
/** The raw image inside a Filesystem PVC, created by virt-handler when absent. */
export const pvcDiskImagePath = (layout: LauncherLayout, volumeName: string): string =>
  join(pvcMountDir(layout, volumeName), "disk.img");
/** A Block PVC's device node, where the Pod's volumeDevices put it. */
export const blockVolumeDevicePath = (volumeName: string): string => `/dev/${volumeName}`;
/** An ephemeral volume's writable overlay over its read-only PVC. */
export const ephemeralOverlayPath = (layout: LauncherLayout, volumeName: string): string =>
  join(ephemeralDiskDataDir(layout), volumeName, "disk.qcow2");
/** A hostDisk's image: virt-controller mounts the node directory holding it at the volume's mount dir. */
export const hostDiskImagePath = (layout: LauncherLayout, volumeName: string, hostPath: string): string =>
  join(pvcMountDir(layout, volumeName), basename(hostPath));

/**
 * Where virt-handler hands hotplugged volumes to the launcher pod (upstream v1.HotplugDiskDir):
 * `<share>/hotplug-disks`, the pod's `hotplug-disks` emptyDir.
 */
export const hotplugDiskDir = (layout: LauncherLayout): string => join(layout.virtShareDir, "hotplug-disks");
/** A hotplugged Filesystem claim's disk.img, bind-mounted as `<volume>.img` (upstream GetHotplugFilesystemVolumePath). */
export const hotplugFilesystemVolumePath = (layout: LauncherLayout, volumeName: string): string =>
  join(hotplugDiskDir(layout), `${volumeName}.img`);
/** A hotplugged Block claim's device node, `<volume>` (upstream GetHotplugBlockDeviceVolumePath). */
export const hotplugBlockDeviceVolumePath = (layout: LauncherLayout, volumeName: string): string =>
  join(hotplugDiskDir(layout), volumeName);
