// What every part of the launcher Pod is rendered from: the VMI, the cluster configuration in force,
// and virt-controller's own flags.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { NonRootUID, RootUser } from "../../util/constants.js";
import type { ResourceList } from "../../api/core/v1/pod.js";
import { quantityOf } from "../../util/quantity-math.js";
import { isNonRoot } from "../../vmitrait/vmitrait.js";

export interface LauncherSettings {
  /** `--launcher-image`: the image of the compute container and KubeVirt's helper containers. */
  launcherImage: string;
  /** `--launcher-qemu-timeout`, seconds; a random 0–119 s is added per Pod. */
  launcherQemuTimeoutSeconds: number;
  virtShareDir: string;
  ephemeralDiskDir: string;
  containerDiskDir: string;
  hotplugDiskDir: string;
  /** `--image-pull-secret`, "" for none. */
  imagePullSecret: string;
}

export interface RenderContext {
  vmi: VirtualMachineInstance;
  config: ClusterConfig;
  settings: LauncherSettings;
  nonRoot: boolean;
  /** The uid the launcher's containers run as. */
  userId: number;
  /** Disk volume name → the image to run instead (a migration target pins the source's digests). */
  imageIDs?: ReadonlyMap<string, string>;
}

export function renderContext(
  vmi: VirtualMachineInstance,
  config: ClusterConfig,
  settings: LauncherSettings,
  imageIDs?: ReadonlyMap<string, string>,
): RenderContext {
  const nonRoot = isNonRoot(vmi);
  const context: RenderContext = { vmi, config, settings, nonRoot, userId: nonRoot ? NonRootUID : RootUser };
  if (imageIDs) context.imageIDs = imageIDs;
  return context;
}

/** Helper containers upstream sizes through `supportContainerResources` in the KubeVirt CR. */
export type SupportContainerType = "container-disk" | "guest-console-log" | "sidecar" | "hotplug-disk";

/** The configured request or limit of one resource of a helper container, when it is non-zero. */
function supportContainerResource(
  config: ClusterConfig,
  type: SupportContainerType,
  side: "requests" | "limits",
  resource: "cpu" | "memory",
): string | undefined {
  const entry = config.getConfig().supportContainerResources?.find((candidate) => candidate.type === type);
  const quantity = quantityOf(entry?.resources[side]?.[resource]);
  return quantity && !quantity.isZero() ? quantity.toString() : undefined;
}

/** Upstream's defaults for a helper container, each overridable by the KubeVirt CR. */
export function supportContainerList(
  config: ClusterConfig,
  type: SupportContainerType,
  side: "requests" | "limits",
  defaults: { cpu: string; memory: string },
): ResourceList {
  return {
    cpu: supportContainerResource(config, type, side, "cpu") ?? defaults.cpu,
    memory: supportContainerResource(config, type, side, "memory") ?? defaults.memory,
  };
}
