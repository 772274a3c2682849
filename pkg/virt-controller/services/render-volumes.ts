// The launcher Pod's volumes and the compute container's mounts (upstream's rendervolumes.go): emptyDirs
// shared between virt-launcher, virt-handler and the helper containers, plus the Secrets a VMI refers
// to (cloud-init data and access credentials), mounted where virt-launcher reads them.
import path from "node:path";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { SecretSourceDir, VirtPrivateDir, VirtShareDir } from "../../util/constants.js";
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
    const noCloud = volume.cloudInitNoCloud;
    if (!noCloud) return [];
    const parts: RenderedVolumes[] = [];
    if (noCloud.secretRef?.name) parts.push(cloudInitSecret(volume.name, "udata", noCloud.secretRef.name));
    if (noCloud.networkDataSecretRef?.name) {
      parts.push(cloudInitSecret(volume.name, "ndata", noCloud.networkDataSecretRef.name));
    }
    return parts;
  });
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

export function renderVolumes(vmi: VirtualMachineInstance, settings: LauncherSettings): RenderedVolumes {
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
    ...cloudInitVolumes(vmi),
    ...accessCredentialVolumes(vmi),
    ...hotplugVolumes(vmi, settings),
  ];
  return {
    volumes: parts.flatMap((part) => part.volumes),
    mounts: parts.flatMap((part) => part.mounts),
  };
}
