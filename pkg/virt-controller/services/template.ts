// Upstream's TemplateService (template.go): renders the virt-launcher Pod of a VMI, and the attachment
// pod of its hotplugged volumes (hotplug-attachment.ts). A pure function of the VMI, the cluster
// configuration and virt-controller's flags (plus a random source for the qemu timeout jitter); anything
// it cannot render faithfully is refused with an error naming the field.
import type { V1PodSecurityContext, V1SeccompProfile } from "@kubernetes/client-node";
import type { VirtualMachineInstance, Volume as VMIVolume } from "../../api/generated/v1.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { NonRootUID, VirtualMachineUnpausedCondition } from "../../util/constants.js";
import {
  containerDiskContainers,
  containerDiskInitContainers,
  containerDiskPullSecrets,
} from "./container-disk.js";
import { launcherArgs, launcherGracePeriodSeconds, GracePeriodPaddingSeconds } from "./launcher-args.js";
import { getMemoryOverhead } from "./memory-overhead.js";
import { renderAffinity, renderNodeSelector } from "./node-placement.js";
import { launcherHostname, launcherMetadata } from "./pod-metadata.js";
import type { Pod, PodSpec } from "../../api/core/v1/pod.js";
import { launcherVerbosity, renderComputeContainer } from "./render-compute.js";
import { renderContext, type LauncherSettings, type RenderContext } from "./render-context.js";
import { renderResources } from "./render-resources.js";
import { renderVolumes, serviceAccountOfVolumes } from "./render-volumes.js";
import type { PersistentVolumeClaim, PVCLookup } from "../../api/core/v1/persistentvolumeclaim.js";
import { serialConsoleLogContainer } from "./serial-console-log.js";
import { unsupportedFeatures } from "./unsupported.js";
import { networkToResource, type NADGetter } from "../../network/multus/nad.js";
import { generateNetworkAnnotations } from "../../network/pod/annotations/generator.js";
import { FeatureGate } from "../../virt-config/featuregate/feature-gates.js";
import { renderHotplugAttachmentPod } from "./hotplug-attachment.js";
import { extractImageIDsFromSourcePod } from "./container-disk-image-ids.js";

/** Upstream's wording for every rendering failure: "failed to render launch manifest: <why>". */
export class LaunchManifestError extends Error {
  override readonly name = "LaunchManifestError";
  constructor(reason: string) {
    super(`failed to render launch manifest: ${reason}`);
  }
}

/** The seccomp profile the KubeVirt CR asks launcher Pods to run with, if any. */
function seccompProfile(config: ClusterConfig): V1SeccompProfile | undefined {
  const custom = config.getConfig().seccompConfiguration?.virtualMachineInstanceProfile?.customProfile;
  if (custom?.localhostProfile) return { type: "Localhost", localhostProfile: custom.localhostProfile };
  if (custom?.runtimeDefaultProfile) return { type: "RuntimeDefault" };
  return undefined;
}

/** fsGroup 107 so the (always non-root) virtiofsd can write; the user the launcher runs as. */
function podSecurityContext(context: RenderContext): V1PodSecurityContext {
  const securityContext: V1PodSecurityContext = { fsGroup: NonRootUID };
  if (context.nonRoot) {
    Object.assign(securityContext, { runAsUser: NonRootUID, runAsGroup: NonRootUID, runAsNonRoot: true });
  } else {
    securityContext.runAsUser = 0;
  }
  const seccomp = seccompProfile(context.config);
  if (seccomp) securityContext.seccompProfile = seccomp;
  const selinuxType = context.config.getConfig().selinuxLauncherType;
  if (selinuxType) securityContext.seLinuxOptions = { type: selinuxType };
  return securityContext;
}

/** VMI scheduling fields that pass to the Pod unchanged. */
function schedulingFields(vmi: VirtualMachineInstance): Partial<PodSpec> {
  const spec = vmi.spec;
  // The VMI spec uses the same Kubernetes definitions for these fields as the Pod spec does.
  const passed: Partial<PodSpec> = {
    subdomain: spec.subdomain,
    dnsConfig: spec.dnsConfig as PodSpec["dnsConfig"],
    dnsPolicy: spec.dnsPolicy,
    schedulerName: spec.schedulerName,
    tolerations: spec.tolerations as PodSpec["tolerations"],
    topologySpreadConstraints: spec.topologySpreadConstraints as PodSpec["topologySpreadConstraints"],
    priorityClassName: spec.priorityClassName || undefined,
    serviceAccountName: spec.serviceAccountName || undefined,
  };
  return Object.fromEntries(Object.entries(passed).filter(([, value]) => value !== undefined));
}

function imagePullSecrets(
  vmi: VirtualMachineInstance,
  settings: LauncherSettings,
): PodSpec["imagePullSecrets"] {
  const names = containerDiskPullSecrets(vmi);
  if (settings.imagePullSecret && !names.includes(settings.imagePullSecret))
    names.push(settings.imagePullSecret);
  return names.length > 0 ? names.map((name) => ({ name })) : undefined;
}

/** Without an apiserver client no NAD can be read: a VMI on a multus network cannot be rendered. */
const refuseNADs: NADGetter = async (namespace, name) => {
  throw new Error(`no client to read network attachment definition ${namespace}/${name}`);
};

export class TemplateService {
  constructor(
    private readonly settings: LauncherSettings,
    private readonly clusterConfig: () => ClusterConfig,
    /** virt-controller's PVC cache: a claim's volumeMode decides between a mount and a block device. */
    private readonly pvcs: PVCLookup,
    private readonly random: () => number = Math.random,
    /** A GET of a NetworkAttachmentDefinition through the apiserver (upstream reads one per render). */
    private readonly getNAD: NADGetter = refuseNADs,
  ) {}

  get launcherImage(): string {
    return this.settings.launcherImage;
  }

  /**
   * The launcher Pod for a VMI (named by the apiserver from generateName); rejects with
   * LaunchManifestError. Reads the NADs of its multus networks for their device-plugin resources,
   * unless the ExternalNetResourceInjection gate leaves that to someone else.
   */
  async renderLaunchManifest(
    vmi: VirtualMachineInstance,
    imageIDs?: ReadonlyMap<string, string>,
  ): Promise<Pod> {
    const config = this.clusterConfig();
    this.refuseUnrenderable(vmi, config);
    let networkResources = new Map<string, string>();
    if (!config.isFeatureGateEnabled(FeatureGate.ExternalNetResourceInjection)) {
      networkResources = await networkToResource(this.getNAD, vmi).catch((err: unknown) => {
        throw new LaunchManifestError(err instanceof Error ? err.message : String(err));
      });
    }
    return this.renderLaunchManifestWith(vmi, networkResources, imageIDs);
  }

  /**
   * A migration target's launcher Pod (upstream's RenderMigrationManifest): the VMI's launcher Pod with
   * the disk images pinned to the digests the source pod runs.
   */
  async renderMigrationManifest(vmi: VirtualMachineInstance, sourcePod: Pod): Promise<Pod> {
    let imageIDs: Map<string, string>;
    try {
      imageIDs = extractImageIDsFromSourcePod(vmi, sourcePod);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(
        `can not proceed with the migration when no reproducible image digest can be detected: ${why}`,
      );
    }
    return this.renderLaunchManifest(vmi, imageIDs);
  }

  private refuseUnrenderable(vmi: VirtualMachineInstance, config: ClusterConfig): void {
    const refused = unsupportedFeatures(vmi, config);
    if (refused.length > 0) throw new LaunchManifestError(refused.join("; "));
    if (!vmi.metadata?.name || !vmi.metadata.namespace || !vmi.metadata.uid) {
      throw new LaunchManifestError("the VMI has no name, namespace or uid");
    }
  }

  /** The Pod once the NADs are read: network name → the resourceName its NAD asks for ("" for none). */
  renderLaunchManifestWith(
    vmi: VirtualMachineInstance,
    networkResources: ReadonlyMap<string, string>,
    imageIDs?: ReadonlyMap<string, string>,
  ): Pod {
    const config = this.clusterConfig();
    this.refuseUnrenderable(vmi, config);
    const context = renderContext(vmi, config, this.settings, imageIDs);
    const arch = vmi.spec.architecture || config.getDefaultArchitecture() || "amd64";
    const overhead = getMemoryOverhead(vmi, arch, config.getConfig().additionalGuestMemoryOverheadRatio);
    const resources = renderResources(vmi, {
      allowEmulation: config.allowEmulation(),
      memoryOvercommit: config.getMemoryOvercommit(),
      cpuAllocationRatio: config.getCPUAllocationRatio(),
      memoryOverhead: overhead,
      networkResources,
    });
    const volumes = renderVolumes(vmi, this.settings, this.pvcs);
    const compute = renderComputeContainer(context, {
      args: launcherArgs(context, this.random),
      resources,
      mounts: volumes.mounts,
    });
    if (volumes.devices && volumes.devices.length > 0) compute.volumeDevices = volumes.devices;
    const consoleLog = serialConsoleLogContainer(context, launcherVerbosity(context).value);
    const initContainers = [...(consoleLog ? [consoleLog] : []), ...containerDiskInitContainers(context)];
    const spec: PodSpec = {
      hostname: launcherHostname(vmi),
      ...schedulingFields(vmi),
      securityContext: podSecurityContext(context),
      // The kubelet waits one more padding after the launcher's own deadline before it kills.
      terminationGracePeriodSeconds: launcherGracePeriodSeconds(vmi) + GracePeriodPaddingSeconds,
      restartPolicy: "Never",
      // compute stays first: some device plugins' webhooks add their resources to the first container.
      containers: [compute, ...containerDiskContainers(context)],
      nodeSelector: renderNodeSelector(vmi, config),
      volumes: volumes.volumes,
      readinessGates: [{ conditionType: VirtualMachineUnpausedCondition }],
      enableServiceLinks: false,
      automountServiceAccountToken: false,
    };
    // A serviceAccount volume needs the account's token in the pod, where the launcher reads it.
    const serviceAccount = serviceAccountOfVolumes(vmi);
    if (serviceAccount) {
      spec.serviceAccountName = serviceAccount;
      spec.automountServiceAccountToken = true;
    }
    const affinity = renderAffinity(vmi);
    if (affinity) spec.affinity = affinity;
    if (initContainers.length > 0) spec.initContainers = initContainers;
    const pullSecrets = imagePullSecrets(vmi, this.settings);
    if (pullSecrets) spec.imagePullSecrets = pullSecrets;
    const runtimeClass = config.getConfig().defaultRuntimeClass;
    if (runtimeClass) spec.runtimeClassName = runtimeClass;
    const reportedOverhead = config.isFeatureGateEnabled(FeatureGate.VmiMemoryOverheadReport)
      ? overhead.value()
      : undefined;
    const metadata = launcherMetadata(vmi, reportedOverhead);
    metadata.annotations = { ...metadata.annotations, ...this.networkAnnotations(vmi, config) };
    return { apiVersion: "v1", kind: "Pod", metadata, spec };
  }

  /**
   * The attachment pod holding a running VMI's ready hotplugged claims next to its launcher Pod
   * (`ownerPod`); `claimMap` maps each volume's name to its claim.
   */
  renderHotplugAttachmentPod(
    volumes: readonly VMIVolume[],
    ownerPod: Pod,
    vmi: VirtualMachineInstance,
    claimMap: ReadonlyMap<string, PersistentVolumeClaim>,
  ): Pod {
    return renderHotplugAttachmentPod(volumes, ownerPod, vmi, claimMap, {
      launcherImage: this.settings.launcherImage,
      config: this.clusterConfig(),
    });
  }

  private networkAnnotations(vmi: VirtualMachineInstance, config: ClusterConfig): Record<string, string> {
    try {
      return generateNetworkAnnotations(vmi, config.getConfig().network?.binding);
    } catch (err) {
      throw new LaunchManifestError(err instanceof Error ? err.message : String(err));
    }
  }
}
