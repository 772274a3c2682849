// What the converter needs to know beyond the VMI (upstream converter/types ConverterContext):
// where the launcher put each disk image and socket, which tap device virt-handler made for each
// interface, and the cluster switches that shape the domain. `upstreamLayoutContext` fills it
// with upstream's paths inside the launcher pod.
import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { Network, VirtualMachineInstance, VolumeStatus } from "../../../api/generated/v1.js";
import type { ConfigDiskKind } from "../../layout.js";

/** A containerDisk: a writable qcow2 overlay whose backing file is the image from the container. */
export interface ContainerDiskPaths {
  kind: "containerDisk";
  overlayPath: string;
  imagePath: string;
  /** The image's format as `qemu-img info` reports it (upstream's DisksInfo). */
  imageFormat: string;
}
export interface EmptyDiskPaths {
  kind: "emptyDisk";
  path: string;
}
/** An ISO the launcher builds: cloud-init data, or a config volume's files (upstream pkg/config). */
export interface IsoPaths {
  kind: "cloudInitNoCloud" | "cloudInitConfigDrive" | ConfigDiskKind;
  isoPath: string;
}
/**
 * A persistentVolumeClaim or dataVolume: the device node a Block claim shows up as, and the raw image
 * in a Filesystem claim's mount; `ConverterContext.blockVolumes` tells which one the launcher has.
 */
export interface ClaimPaths {
  kind: "persistentVolumeClaim" | "dataVolume";
  devicePath: string;
  imagePath: string;
}
/** An ephemeral volume: a writable qcow2 overlay over its claim, which the guest never writes. */
export interface EphemeralPaths {
  kind: "ephemeral";
  overlayPath: string;
  devicePath: string;
  imagePath: string;
}
/** A hostDisk: the node's image file, as mounted in the launcher. */
export interface HostDiskPaths {
  kind: "hostDisk";
  path: string;
}
/** By kind, which is also the name of the VMI volume source the paths are for. */
export type VolumePaths =
  ContainerDiskPaths | EmptyDiskPaths | IsoPaths | ClaimPaths | EphemeralPaths | HostDiskPaths;

/** The host side of an interface, prepared by virt-handler in the pod's network namespace. */
export interface InterfacePlumbing {
  tapDevice: string;
  /** The MAC to give the guest when the VMI names none (e.g. the pod NIC's, as upstream's bridge binding does). */
  mac?: string;
  mtu?: number;
}

/** SMBIOS system fields from the cluster configuration (KubeVirt CR `smbios`). */
export interface SMBios {
  manufacturer: string;
  product: string;
  version: string;
  sku: string;
  family: string;
}

export interface ConverterContext {
  /** `spec.configuration.developerConfiguration.useEmulation` of the KubeVirt CR. */
  allowEmulation: boolean;
  /** Whether /dev/kvm is usable in the launcher. */
  hypervisorDeviceAvailable: boolean;
  emulatorPath: string;
  serialConsoleSocket: string;
  vncSocket: string;
  /** Where the kernel-boot container's kernel and initrd were put (by their base names). */
  kernelBootDir: string;
  /** By volume name. */
  volumes: ReadonlyMap<string, VolumePaths>;
  /**
   * Claim-backed volumes (persistentVolumeClaim, dataVolume, ephemeral) whose claim is in Block mode,
   * as the launcher found them (upstream IsBlockPVC and IsBlockDV): a device at /dev/<volume>, or for a
   * hotplugged volume in the hotplug dir.
   */
  blockVolumes: ReadonlySet<string>;
  /** Hotplugged volumes (a status with `hotplugVolume`) by name, with that status (upstream HotplugVolumes). */
  hotplugVolumes: ReadonlyMap<string, VolumeStatus>;
  /**
   * Volumes with a status that were not hotplugged (upstream PermanentVolumes). Only these and hotplugged
   * volumes mounted in the pod become disks; while none has a status yet, every disk does.
   */
  permanentVolumes: ReadonlySet<string>;
  /** Where virt-handler hands hotplugged volumes to the launcher pod (upstream v1.HotplugDiskDir). */
  hotplugDiskDir: string;
  /** By interface name. */
  interfaces: ReadonlyMap<string, InterfacePlumbing>;
  smbios?: SMBios;
  /** Seconds; 0 leaves the balloon without a stats period. */
  memBalloonStatsPeriod: number;
  /** Cluster-wide switches (KubeVirt CR); the VMI can still ask for the serial console log itself. */
  freePageReportingDisabled: boolean;
  serialConsoleLogDisabled: boolean;
}

/**
 * The VMI's volume statuses split as upstream's manager does for its converter context: hotplugged
 * volumes with their status, and the others.
 */
export function hotplugAndPermanentVolumes(vmi: VirtualMachineInstance): {
  hotplugVolumes: Map<string, VolumeStatus>;
  permanentVolumes: Set<string>;
} {
  const hotplugVolumes = new Map<string, VolumeStatus>();
  const permanentVolumes = new Set<string>();
  for (const status of vmi.status?.volumeStatus ?? []) {
    if (status.hotplugVolume) hotplugVolumes.set(status.name, status);
    else permanentVolumes.add(status.name);
  }
  return { hotplugVolumes, permanentVolumes };
}

// Upstream's fixed directories inside the launcher pod.
export const VirtPrivateDir = "/var/run/kubevirt-private";
export const VirtShareDir = "/var/run/kubevirt";
export const HotplugDiskDir = posix.join(VirtShareDir, "hotplug-disks");
export const EphemeralDiskDir = "/var/run/kubevirt-ephemeral-disks";
export const ContainerDiskDir = posix.join(VirtShareDir, "container-disks");
export const KernelBootDir = posix.join(ContainerDiskDir, "kernel-boot");
export const EmptyDiskDir = "/var/run/libvirt/empty-disks";
export const DefaultEmulatorPath = "/usr/bin/qemu-system-x86_64";
/** Upstream's default `memBalloonStatsPeriod` in the KubeVirt configuration. */
export const DefaultMemBalloonStatsPeriod = 10;

const TapNameForPrimaryIface = "tap0";
const HashedIfacePrefix = "pod";
const MaxIfaceNameLen = 11;

/** The pod interface name of a secondary (Multus) network: "pod" + the start of sha256(name). */
export function hashedPodInterfaceName(networkName: string): string {
  const digest = createHash("sha256").update(networkName).digest("hex");
  return HashedIfacePrefix + digest.slice(0, MaxIfaceNameLen);
}

/** The tap virt-handler creates for a network: tap0 for the pod network, tap<hash> for secondary ones. */
export function tapDeviceName(network: Network): string {
  if (network.multus && !network.multus.default) {
    return "tap" + hashedPodInterfaceName(network.name).slice(HashedIfacePrefix.length);
  }
  return TapNameForPrimaryIface;
}

export interface UpstreamLayoutOptions {
  allowEmulation: boolean;
  hypervisorDeviceAvailable: boolean;
  /** Format of each containerDisk image, by volume name (the launcher probes it with qemu-img). */
  containerDiskFormat: (volumeName: string) => string;
  smbios?: SMBios;
  /** Volumes whose claim is in Block mode; none when absent. */
  blockVolumes?: ReadonlySet<string>;
}

/** Upstream pkg/config's ISO dirs (and the one file name of the serviceAccount disk). */
const UpstreamConfigDisks: Record<ConfigDiskKind, (volumeName: string) => string> = {
  configMap: (volume) => posix.join(VirtPrivateDir, "config-map-disks", `${volume}.iso`),
  secret: (volume) => posix.join(VirtPrivateDir, "secret-disks", `${volume}.iso`),
  downwardAPI: (volume) => posix.join(VirtPrivateDir, "downwardapi-disks", `${volume}.iso`),
  serviceAccount: () => posix.join(VirtPrivateDir, "service-account-disk", "service-account.iso"),
};
const ConfigDiskKinds = Object.keys(UpstreamConfigDisks) as ConfigDiskKind[];

/** Upstream converter GetBlockDeviceVolumePath and GetFilesystemVolumePath. */
function upstreamClaimPaths(volumeName: string): { devicePath: string; imagePath: string } {
  return {
    devicePath: posix.join("/dev", volumeName),
    imagePath: posix.join(VirtPrivateDir, "vmi-disks", volumeName, "disk.img"),
  };
}

function upstreamVolumePaths(
  vmi: VirtualMachineInstance,
  options: UpstreamLayoutOptions,
): Map<string, VolumePaths> {
  const paths = new Map<string, VolumePaths>();
  const { name = "", namespace = "" } = vmi.metadata ?? {};
  (vmi.spec.volumes ?? []).forEach((volume, index) => {
    if (volume.containerDisk) {
      paths.set(volume.name, {
        kind: "containerDisk",
        overlayPath: posix.join(EphemeralDiskDir, "disk-data", volume.name, "disk.qcow2"),
        imagePath: posix.join(ContainerDiskDir, `disk_${index}.img`),
        imageFormat: options.containerDiskFormat(volume.name),
      });
    } else if (volume.emptyDisk) {
      paths.set(volume.name, { kind: "emptyDisk", path: posix.join(EmptyDiskDir, `${volume.name}.qcow2`) });
    } else if (volume.cloudInitNoCloud) {
      const isoPath = posix.join(EphemeralDiskDir, "cloud-init-data", namespace, name, "noCloud.iso");
      paths.set(volume.name, { kind: "cloudInitNoCloud", isoPath });
    } else if (volume.cloudInitConfigDrive) {
      const isoPath = posix.join(EphemeralDiskDir, "cloud-init-data", namespace, name, "configdrive.iso");
      paths.set(volume.name, { kind: "cloudInitConfigDrive", isoPath });
    } else if (volume.persistentVolumeClaim || volume.dataVolume) {
      const kind = volume.persistentVolumeClaim ? "persistentVolumeClaim" : "dataVolume";
      paths.set(volume.name, { kind, ...upstreamClaimPaths(volume.name) });
    } else if (volume.ephemeral) {
      const overlayPath = posix.join(EphemeralDiskDir, "disk-data", volume.name, "disk.qcow2");
      paths.set(volume.name, { kind: "ephemeral", overlayPath, ...upstreamClaimPaths(volume.name) });
    } else if (volume.hostDisk) {
      const path = posix.join(VirtPrivateDir, "vmi-disks", volume.name, posix.basename(volume.hostDisk.path));
      paths.set(volume.name, { kind: "hostDisk", path });
    } else {
      const kind = ConfigDiskKinds.find((candidate) => volume[candidate]);
      if (kind) paths.set(volume.name, { kind, isoPath: UpstreamConfigDisks[kind](volume.name) });
    }
  });
  return paths;
}

function upstreamInterfaces(vmi: VirtualMachineInstance): Map<string, InterfacePlumbing> {
  const plumbing = new Map<string, InterfacePlumbing>();
  for (const network of vmi.spec.networks ?? []) {
    plumbing.set(network.name, { tapDevice: tapDeviceName(network) });
  }
  return plumbing;
}

/** A context with upstream's launcher-pod layout and configuration defaults. */
export function upstreamLayoutContext(
  vmi: VirtualMachineInstance,
  options: UpstreamLayoutOptions,
): ConverterContext {
  const privateDir = posix.join(VirtPrivateDir, vmi.metadata?.uid ?? "");
  return {
    allowEmulation: options.allowEmulation,
    hypervisorDeviceAvailable: options.hypervisorDeviceAvailable,
    emulatorPath: DefaultEmulatorPath,
    serialConsoleSocket: posix.join(privateDir, "virt-serial0"),
    vncSocket: posix.join(privateDir, "virt-vnc"),
    kernelBootDir: KernelBootDir,
    volumes: upstreamVolumePaths(vmi, options),
    blockVolumes: options.blockVolumes ?? new Set(),
    ...hotplugAndPermanentVolumes(vmi),
    hotplugDiskDir: HotplugDiskDir,
    interfaces: upstreamInterfaces(vmi),
    smbios: options.smbios,
    memBalloonStatsPeriod: DefaultMemBalloonStatsPeriod,
    freePageReportingDisabled: false,
    serialConsoleLogDisabled: false,
  };
}
