// The launcher Pod's volumes and the compute container's mounts (upstream's rendervolumes.go): emptyDirs
// shared between virt-launcher, virt-handler and the helper containers, the Secrets a VMI refers to
// (cloud-init data and access credentials), and the VMI's own storage: claims (mounted, or passed as
// block devices by their volumeMode), host disks and config volumes, where virt-launcher reads them.
import path from "node:path";
import type { V1VolumeDevice } from "@kubernetes/client-node";
import type { Volume as VMIVolume, VirtualMachineInstance } from "../../api/generated/v1.js";
import { SecretSourceDir, VirtPrivateDir, VirtShareDir } from "../../util/constants.js";
import {
  ConfigMapSourceDir,
  DownwardAPISourceDir,
  PvcBaseDir,
  volumeSourcePath,
} from "../../config/config-paths.js";
import { isBlockClaim, type PVCLookup } from "../../api/core/v1/persistentvolumeclaim.js";
import { PvcNotFoundError } from "../../storage/types/pvc.js";
import { ContainerDisksVolume, VirtBinShareDirVolume } from "./container-disk.js";
import type { Volume, VolumeMount } from "../../api/core/v1/pod.js";
import type { LauncherSettings } from "./render-context.js";

export const HotplugDisksVolume = "hotplug-disks";

const emptyDir = (name: string): Volume => ({ name, emptyDir: {} });
const secretVolume = (name: string, secretName: string): Volume => ({ name, secret: { secretName } });

export interface RenderedVolumes {
  volumes: Volume[];
  /** The compute container's mounts. */
  mounts: VolumeMount[];
  /** The compute container's block devices (Block claims). */
  devices?: V1VolumeDevice[];
}

/** A Secret holding cloud-init user or network data, mounted under both spellings the launcher accepts. */
function cloudInitSecret(volumeName: string, suffix: "udata" | "ndata", secretName: string): RenderedVolumes {
  const podVolume = `${volumeName}-${suffix}`;
  const keys = suffix === "udata" ? ["userdata", "userData"] : ["networkdata", "networkData"];
  return {
    volumes: [secretVolume(podVolume, secretName)],
    mounts: keys.map((key) => ({
      name: podVolume,
      mountPath: path.posix.join(SecretSourceDir, volumeName, key),
      subPath: key,
      readOnly: true,
    })),
  };
}

/** Inline cloud-init data travels in the VMI spec; only Secret references need volumes. */
function cloudInitVolumes(vmi: VirtualMachineInstance): RenderedVolumes[] {
  return (vmi.spec.volumes ?? []).flatMap((volume) => {
    const parts: RenderedVolumes[] = [];
    const noCloud = volume.cloudInitNoCloud;
    if (noCloud?.secretRef?.name) parts.push(cloudInitSecret(volume.name, "udata", noCloud.secretRef.name));
    const configDrive = volume.cloudInitConfigDrive;
    if (configDrive?.secretRef?.name) {
      parts.push(cloudInitSecret(volume.name, "udata", configDrive.secretRef.name));
    }
    const networkSecret = (noCloud ?? configDrive)?.networkDataSecretRef?.name;
    if (networkSecret) parts.push(cloudInitSecret(volume.name, "ndata", networkSecret));
    return parts;
  });
}

/**
 * A claim as the compute container sees it: a Block claim as the device /dev/<volume>, a Filesystem
 * claim mounted at the vmi-disks dir of the volume, where the launcher keeps disk.img.
 */
function claimVolume(
  vmi: VirtualMachineInstance,
  volume: VMIVolume,
  source: { claimName: string; readOnly?: boolean },
  lookup: PVCLookup,
): RenderedVolumes {
  const namespace = vmi.metadata?.namespace ?? "";
  const pvc = lookup(namespace, source.claimName);
  if (!pvc) throw new PvcNotFoundError(`didn't find PVC ${source.claimName}`);
  const podVolume: Volume = {
    name: volume.name,
    persistentVolumeClaim:
      source.readOnly === undefined
        ? { claimName: source.claimName }
        : { claimName: source.claimName, readOnly: source.readOnly },
  };
  if (isBlockClaim(pvc)) {
    return {
      volumes: [podVolume],
      mounts: [],
      devices: [{ name: volume.name, devicePath: path.posix.join("/dev", volume.name) }],
    };
  }
  return {
    volumes: [podVolume],
    mounts: [{ name: volume.name, mountPath: volumeSourcePath(PvcBaseDir, volume.name) }],
  };
}

/** The directory of a host disk image, from the node; created when the disk may be. */
function hostDiskVolume(volume: VMIVolume, hostDisk: { path: string; type: string }): RenderedVolumes {
  const type = hostDisk.type === "DiskOrCreate" ? "DirectoryOrCreate" : "Directory";
  return {
    volumes: [{ name: volume.name, hostPath: { path: path.posix.dirname(hostDisk.path), type } }],
    mounts: [{ name: volume.name, mountPath: volumeSourcePath(PvcBaseDir, volume.name) }],
  };
}

/** Claims and host disks (hotplugged volumes excepted: virt-handler attaches those). */
function storageVolumes(vmi: VirtualMachineInstance, lookup: PVCLookup): RenderedVolumes[] {
  const hotplugged = new Set(
    (vmi.status?.volumeStatus ?? []).filter((status) => status.hotplugVolume).map((status) => status.name),
  );
  for (const volume of vmi.spec.volumes ?? []) {
    if (volume.persistentVolumeClaim?.hotpluggable || volume.dataVolume?.hotpluggable)
      hotplugged.add(volume.name);
  }
  return (vmi.spec.volumes ?? []).flatMap((volume) => {
    if (hotplugged.has(volume.name)) return [];
    if (volume.persistentVolumeClaim) return [claimVolume(vmi, volume, volume.persistentVolumeClaim, lookup)];
    // A DataVolume's claim has its name (CDI makes it).
    if (volume.dataVolume) return [claimVolume(vmi, volume, { claimName: volume.dataVolume.name }, lookup)];
    // The ephemeral disk's base claim is passed as the VMI gives it (read-only or not).
    const ephemeralClaim = volume.ephemeral?.persistentVolumeClaim;
    if (ephemeralClaim) return [claimVolume(vmi, volume, ephemeralClaim, lookup)];
    if (volume.hostDisk) return [hostDiskVolume(volume, volume.hostDisk)];
    return [];
  });
}

/**
 * configMap, secret and downwardAPI volumes become pod volumes; only those a disk uses are mounted, where
 * the launcher builds their ISO images from. A serviceAccount volume needs none: it reads the pod's token.
 */
function configVolumes(vmi: VirtualMachineInstance): RenderedVolumes[] {
  const volumes = vmi.spec.volumes ?? [];
  const diskNames = new Set((vmi.spec.domain.devices.disks ?? []).map((disk) => disk.name));
  return volumes.flatMap((volume): RenderedVolumes[] => {
    let podVolume: Volume | undefined;
    let dir: string | undefined;
    if (volume.secret) {
      podVolume = { name: volume.name, secret: { secretName: volume.secret.secretName } };
      if (volume.secret.optional !== undefined) podVolume.secret!.optional = volume.secret.optional;
      dir = SecretSourceDir;
    } else if (volume.configMap) {
      podVolume = { name: volume.name, configMap: { name: volume.configMap.name } };
      if (volume.configMap.optional !== undefined) podVolume.configMap!.optional = volume.configMap.optional;
      dir = ConfigMapSourceDir;
    } else if (volume.downwardAPI) {
      podVolume = {
        name: volume.name,
        downwardAPI: {
          items: (volume.downwardAPI.fields ?? []) as NonNullable<Volume["downwardAPI"]>["items"],
        },
      };
      dir = DownwardAPISourceDir;
    }
    if (!podVolume || !dir) return [];
    const mounts = diskNames.has(volume.name)
      ? [{ name: volume.name, mountPath: volumeSourcePath(dir, volume.name), readOnly: true }]
      : [];
    return [{ volumes: [podVolume], mounts }];
  });
}

/** The ServiceAccount whose token a serviceAccount volume carries into the guest. */
export function serviceAccountOfVolumes(vmi: VirtualMachineInstance): string | undefined {
  return (vmi.spec.volumes ?? []).find((volume) => volume.serviceAccount)?.serviceAccount?.serviceAccountName;
}

/** SSH keys and passwords propagated into the guest come from Secrets, mounted read-only. */
function accessCredentialVolumes(vmi: VirtualMachineInstance): RenderedVolumes[] {
  return (vmi.spec.accessCredentials ?? []).flatMap((credential) => {
    const secretName =
      credential.sshPublicKey?.source.secret?.secretName ??
      credential.userPassword?.source.secret?.secretName;
    if (!secretName) return [];
    const volumeName = `${secretName}-access-cred`;
    return [
      {
        volumes: [secretVolume(volumeName, secretName)],
        mounts: [
          { name: volumeName, mountPath: path.posix.join(SecretSourceDir, volumeName), readOnly: true },
        ],
      },
    ];
  });
}

/** virt-handler mounts hotplugged disks here later; the mount must propagate from the host. */
function hotplugVolumes(vmi: VirtualMachineInstance, settings: LauncherSettings): RenderedVolumes[] {
  if (vmi.spec.domain.devices.disableHotplug === true) return [];
  return [
    {
      volumes: [emptyDir(HotplugDisksVolume)],
      mounts: [
        { name: HotplugDisksVolume, mountPath: settings.hotplugDiskDir, mountPropagation: "HostToContainer" },
      ],
    },
  ];
}

/** Throws PvcNotFoundError when a claim the VMI uses is not in the cache. */
export function renderVolumes(
  vmi: VirtualMachineInstance,
  settings: LauncherSettings,
  lookup: PVCLookup,
): RenderedVolumes {
  const base: RenderedVolumes = {
    volumes: [
      emptyDir("private"),
      emptyDir("public"),
      emptyDir("sockets"),
      emptyDir(VirtBinShareDirVolume),
      emptyDir("libvirt-runtime"),
      emptyDir("ephemeral-disks"),
      emptyDir(ContainerDisksVolume),
    ],
    mounts: [
      { name: "private", mountPath: VirtPrivateDir },
      { name: "public", mountPath: VirtShareDir },
      { name: "ephemeral-disks", mountPath: settings.ephemeralDiskDir },
      { name: "libvirt-runtime", mountPath: "/var/run/libvirt" },
      { name: "sockets", mountPath: path.posix.join(settings.virtShareDir, "sockets") },
      {
        name: ContainerDisksVolume,
        mountPath: settings.containerDiskDir,
        mountPropagation: "HostToContainer",
      },
    ],
  };
  const parts = [
    base,
    ...storageVolumes(vmi, lookup),
    ...cloudInitVolumes(vmi),
    ...configVolumes(vmi),
    ...accessCredentialVolumes(vmi),
    ...hotplugVolumes(vmi, settings),
  ];
  return {
    volumes: parts.flatMap((part) => part.volumes),
    mounts: parts.flatMap((part) => part.mounts),
    devices: parts.flatMap((part) => part.devices ?? []),
  };
}
