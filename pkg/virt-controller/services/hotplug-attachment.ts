// The attachment pod of a running VMI's hotplugged claims (upstream's RenderHotplugAttachmentPodTemplate
// in template.go, with its resources and tolerations from renderresources.go). The pod runs next to the
// virt-launcher Pod on its node, controlled by it, and only holds the claims: a Block claim as a device
// under /path/<volume>/<claim uid>, a Filesystem claim mounted at /<volume>, while its container-disk
// process listens on /path/hp.sock so virt-handler finds the container. virt-handler then hands each
// claim from this pod to the launcher's hotplug-disks directory.
import type { V1Toleration } from "@kubernetes/client-node";
import type { VirtualMachineInstance, Volume as VMIVolume } from "../../api/generated/v1.js";
import type { PersistentVolumeClaim } from "../../api/core/v1/persistentvolumeclaim.js";
import type { Pod, ResourceRequirements } from "../../api/core/v1/pod.js";
import { isPVCBlock, pvcNameFromVirtVolume } from "../../storage/types/pvc.js";
import { VolumePhase } from "../../storage/types/volume.js";
import { AppLabel, NonRootUID } from "../../util/constants.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { supportContainerList } from "./render-context.js";
import { HotplugDisksVolume } from "./render-volumes.js";

/** The attachment pod's container name, and the value of its `kubevirt.io` label. */
export const HotplugDiskContainer = "hotplug-disk";
export const HotplugAttachmentPodGenerateName = "hp-volume-";
/** Where the attachment container mounts its hotplug-disks emptyDir. */
export const HotplugAttachmentMountPath = "/path";
const HostnameLabel = "kubernetes.io/hostname";

/** The attachment container's requests and limits, each overridable through supportContainerResources. */
export function hotplugContainerResources(config: ClusterConfig): ResourceRequirements {
  return {
    limits: supportContainerList(config, "hotplug-disk", "limits", { cpu: "100m", memory: "80M" }),
    requests: supportContainerList(config, "hotplug-disk", "requests", { cpu: "10m", memory: "2M" }),
  };
}

/** An attachment pod still schedules on a node that is cordoned or under pressure: its VM runs there. */
export function hotplugPodTolerations(): V1Toleration[] {
  return [
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/pid-pressure",
  ].map((key) => ({ key, operator: "Exists", effect: "NoSchedule" }));
}

const sameToleration = (a: V1Toleration, b: V1Toleration): boolean =>
  a.key === b.key &&
  a.operator === b.operator &&
  a.value === b.value &&
  a.effect === b.effect &&
  a.tolerationSeconds === b.tolerationSeconds;

/** Sorted by key, each toleration once. */
function mergedTolerations(tolerations: readonly V1Toleration[]): V1Toleration[] {
  const sorted = [...tolerations].sort((a, b) =>
    (a.key ?? "") < (b.key ?? "") ? -1 : a.key === b.key ? 0 : 1,
  );
  const kept: V1Toleration[] = [];
  for (const toleration of sorted) {
    if (!kept.some((other) => sameToleration(other, toleration))) kept.push(toleration);
  }
  return kept;
}

export interface HotplugAttachmentOptions {
  launcherImage: string;
  config: ClusterConfig;
}

/**
 * The attachment pod for `volumes` (the ready hotplugged volumes), to be created in the owner Pod's
 * namespace; `claimMap` maps a volume's name to its claim. A volume whose status virt-handler already
 * reports MountedToPod or Ready keeps its claim in the pod, but a Filesystem claim is not mounted again.
 */
export function renderHotplugAttachmentPod(
  volumes: readonly VMIVolume[],
  ownerPod: Pod,
  vmi: VirtualMachineInstance,
  claimMap: ReadonlyMap<string, PersistentVolumeClaim>,
  options: HotplugAttachmentOptions,
): Pod {
  const container: Pod["spec"]["containers"][number] = {
    name: HotplugDiskContainer,
    image: options.launcherImage,
    command: ["/bin/sh", "-c", "/usr/bin/container-disk --copy-path /path/hp"],
    resources: hotplugContainerResources(options.config),
    securityContext: {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      runAsUser: NonRootUID,
      seccompProfile: { type: "RuntimeDefault" },
      capabilities: { drop: ["ALL"] },
      seLinuxOptions: {
        ...(options.config.getConfig().selinuxLauncherType
          ? { type: options.config.getConfig().selinuxLauncherType }
          : {}),
        level: "s0",
      },
    },
    volumeMounts: [
      {
        name: HotplugDisksVolume,
        mountPath: HotplugAttachmentMountPath,
        mountPropagation: "HostToContainer",
      },
    ],
  };
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: HotplugAttachmentPodGenerateName,
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Pod",
          name: ownerPod.metadata.name ?? "",
          uid: ownerPod.metadata.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      labels: { [AppLabel]: HotplugDiskContainer },
    },
    spec: {
      containers: [container],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: HostnameLabel, operator: "In", values: [ownerPod.spec.nodeName ?? ""] },
                ],
              },
            ],
          },
        },
      },
      tolerations: mergedTolerations([...hotplugPodTolerations(), ...(ownerPod.spec.tolerations ?? [])]),
      volumes: [{ name: HotplugDisksVolume, emptyDir: {} }],
      terminationGracePeriodSeconds: 0,
    },
  };
  // Upstream copies the launcher's SELinux level onto the container here; no node here runs SELinux.

  const phases = new Map<string, string | undefined>();
  for (const status of vmi.status?.volumeStatus ?? []) {
    if (status.hotplugVolume) phases.set(status.name, status.phase);
  }
  for (const volume of volumes) {
    const claimName = pvcNameFromVirtVolume(volume);
    if (claimName === "") continue;
    const phase = phases.get(volume.name);
    const skipMount = phase === VolumePhase.Ready || phase === VolumePhase.MountedToPod;
    pod.spec.volumes?.push({ name: volume.name, persistentVolumeClaim: { claimName } });
    const pvc = claimMap.get(volume.name);
    if (!pvc) continue;
    if (isPVCBlock(pvc.spec.volumeMode)) {
      (container.volumeDevices ??= []).push({
        name: volume.name,
        devicePath: `${HotplugAttachmentMountPath}/${volume.name}/${pvc.metadata.uid ?? ""}`,
      });
    } else if (!skipMount) {
      container.volumeMounts?.push({ name: volume.name, mountPath: `/${volume.name}` });
    }
  }
  return pod;
}
