// containerDisk volumes as upstream serves them (pkg/container-disk): an init container copies the
// `container-disk` binary out of the launcher image into a shared emptyDir; one init container per disk
// image (`volume<name>-init`, `--no-op`) makes the kubelet pull every image before the launcher starts;
// and one container per disk image (`volume<name>`) keeps the image's root file system alive next to the
// launcher for as long as the VM runs, announcing its disk under the container-disks directory.
import path from "node:path";
import type { ContainerDiskSource, VirtualMachineInstance } from "../../api/generated/v1.js";
import { NonRootUID } from "../../util/constants.js";
import { renderContainerSpec } from "./container-spec.js";
import type { Container, ResourceList, ResourceRequirements } from "../../api/core/v1/pod.js";
import { supportContainerList, type RenderContext } from "./render-context.js";
import { EphemeralStorageOverhead } from "./render-resources.js";
import { isCPUDedicated, wantsGuaranteedQoS } from "../../vmitrait/vmitrait.js";

export const ContainerDisksVolume = "container-disks";
export const VirtBinShareDirVolume = "virt-bin-share-dir";
export const KernelBootName = "kernel-boot";
export const KernelBootVolumeName = `${KernelBootName}-volume`;
const ContainerDiskBinary = "/usr/bin/container-disk";

/** A disk image to serve: a containerDisk volume, or the kernel-boot container (served like one). */
interface DiskImage {
  volumeName: string;
  source: ContainerDiskSource;
  /** The file its container announces: `disk_<volume index>` or `kernel-boot`. */
  mountedName: string;
}

export function containerDiskImages(vmi: VirtualMachineInstance): DiskImage[] {
  const images: DiskImage[] = [];
  (vmi.spec.volumes ?? []).forEach((volume, index) => {
    if (!volume.containerDisk || volume.name === KernelBootVolumeName) return;
    images.push({ volumeName: volume.name, source: volume.containerDisk, mountedName: `disk_${index}` });
  });
  const kernelBoot = vmi.spec.domain.firmware?.kernelBoot?.container;
  if (kernelBoot?.image) {
    images.push({
      volumeName: KernelBootVolumeName,
      mountedName: KernelBootName,
      source: {
        image: kernelBoot.image,
        imagePullPolicy: kernelBoot.imagePullPolicy,
        imagePullSecret: kernelBoot.imagePullSecret,
        path: "/",
      },
    });
  }
  return images;
}

/** The directory the disk containers write into, as mounted in them: `<ephemeral>/container-disk-data/<uid>`. */
export function containerDiskMountDir(context: RenderContext): string {
  return path.join(context.settings.ephemeralDiskDir, "container-disk-data", context.vmi.metadata?.uid ?? "");
}

function diskContainerResources(context: RenderContext): ResourceRequirements {
  const { config, vmi } = context;
  const requests: ResourceList = {
    ...supportContainerList(config, "container-disk", "requests", { cpu: "1m", memory: "1M" }),
    "ephemeral-storage": EphemeralStorageOverhead,
  };
  const limits = supportContainerList(config, "container-disk", "limits", { cpu: "10m", memory: "40M" });
  if (isCPUDedicated(vmi) || wantsGuaranteedQoS(vmi)) {
    requests["cpu"] = limits["cpu"] ?? "";
    requests["memory"] = limits["memory"] ?? "";
  }
  return { limits, requests };
}

function diskContainer(context: RenderContext, image: DiskImage, asInit: boolean): Container {
  const mountDir = containerDiskMountDir(context);
  const container: Container = {
    name: asInit ? `volume${image.volumeName}-init` : `volume${image.volumeName}`,
    image: context.imageIDs?.get(image.volumeName) ?? image.source.image,
    command: [ContainerDiskBinary],
    args: asInit ? ["--no-op"] : ["--copy-path", path.posix.join(mountDir, image.mountedName)],
    volumeMounts: [
      { name: ContainerDisksVolume, mountPath: mountDir },
      { name: VirtBinShareDirVolume, mountPath: "/usr/bin" },
    ],
    resources: diskContainerResources(context),
    securityContext: {
      runAsUser: NonRootUID,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    },
  };
  if (image.source.imagePullPolicy) container.imagePullPolicy = image.source.imagePullPolicy;
  return container;
}

/** Copies container-disk out of the launcher image so the disk containers can run it from any image. */
function binaryCopyContainer(context: RenderContext): Container {
  const { config, vmi, settings } = context;
  const dedicated = isCPUDedicated(vmi) || wantsGuaranteedQoS(vmi);
  const requestDefaults = dedicated ? { cpu: "10m", memory: "40M" } : { cpu: "10m", memory: "1M" };
  const limitDefaults = dedicated ? { cpu: "10m", memory: "40M" } : { cpu: "100m", memory: "40M" };
  return renderContainerSpec({
    name: "container-disk-binary",
    image: settings.launcherImage,
    imagePullPolicy: config.getImagePullPolicy(),
    userId: context.userId,
    capabilities: { drop: ["ALL"] },
    command: ["/usr/bin/cp"],
    args: ["--preserve=all", ContainerDiskBinary, `/init${ContainerDiskBinary}`],
    volumeMounts: [{ name: VirtBinShareDirVolume, mountPath: "/init/usr/bin" }],
    resources: {
      limits: supportContainerList(config, "container-disk", "limits", limitDefaults),
      requests: dedicated
        ? supportContainerList(config, "container-disk", "limits", requestDefaults)
        : supportContainerList(config, "container-disk", "requests", requestDefaults),
    },
  });
}

/** Init containers: the binary copy, then one pre-pull per disk image. Empty without disk images. */
export function containerDiskInitContainers(context: RenderContext): Container[] {
  const images = containerDiskImages(context.vmi);
  if (images.length === 0) return [];
  return [binaryCopyContainer(context), ...images.map((image) => diskContainer(context, image, true))];
}

/** One long-running container per disk image. */
export function containerDiskContainers(context: RenderContext): Container[] {
  return containerDiskImages(context.vmi).map((image) => diskContainer(context, image, false));
}

/** Pull secrets of the disk images, each once, in volume order. */
export function containerDiskPullSecrets(vmi: VirtualMachineInstance): string[] {
  const names = containerDiskImages(vmi).flatMap((image) =>
    image.source.imagePullSecret ? [image.source.imagePullSecret] : [],
  );
  return [...new Set(names)];
}
