// The virt-launcher-eviction-interceptor (upstream admitters/pod-eviction-admitter.go): an Eviction of
// a virt-launcher Pod goes through when the VMI's eviction strategy (its own, else the cluster's) is
// None or unset, or LiveMigrateIfPossible on a VMI that is not migratable. Otherwise the VMI is marked
// for evacuation (status.evacuationNodeName set to the Pod's node) and the eviction refused: with
// LiveMigrate and LiveMigrateIfPossible virt-controller's evacuation controller then live-migrates it
// away, with External an external controller acts on the mark. LiveMigrate on a VMI that cannot migrate
// is refused without a mark. Refusals are 429, which `kubectl drain` retries until the Pod is gone.
import { AppLabel, DomainAnnotation, EvictionSourceAnnotation } from "../../../../util/constants.js";
import { z } from "zod";
import { isNotFound } from "../../../../controller/api-error.js";
import { VirtualMachineInstanceSchema, type VirtualMachineInstance } from "../../../../api/generated/v1.js";
import type { JsonPatchOperation } from "../../mutating-webhook/mutators/admission.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { denied, type AdmissionDecision, type AdmissionRequest } from "../../admission-review.js";
import { errorMessage } from "../../../../util/error-message.js";

/** The descheduler's annotation on the Eviction object (kubernetes-sigs/descheduler#1753). */
const RequestedByAnnotation = "requested-by";
const RequestedByDescheduler = "sigs.k8s.io/descheduler";

const TOO_MANY_REQUESTS = 429;

/** The Pod fields the decision reads; anything else in a Pod is ignored. */
const podSchema = z.looseObject({
  metadata: z
    .looseObject({
      name: z.string().optional(),
      namespace: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
      ownerReferences: z.array(z.looseObject({ name: z.string() })).optional(),
    })
    .optional(),
  spec: z.looseObject({ nodeName: z.string().optional() }).optional(),
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});
type EvictedPod = z.infer<typeof podSchema>;

const evictionSchema = z.looseObject({
  metadata: z.looseObject({ annotations: z.record(z.string(), z.string()).optional() }).optional(),
  deleteOptions: z.looseObject({ dryRun: z.array(z.string()).optional() }).nullish(),
});

/** The apiserver calls the admitter needs; a failed call throws (not found included). */
export interface PodEvictionClient {
  getPod(namespace: string, name: string): Promise<unknown>;
  getVMI(namespace: string, name: string): Promise<unknown>;
  patchVMI(namespace: string, name: string, patch: JsonPatchOperation[], dryRun: boolean): Promise<void>;
}

export interface PodEvictionContext {
  clusterConfig: ClusterConfig;
  client: PodEvictionClient;
}

/** What to do with an eviction of a VMI's launcher, decided from the objects alone. */
export type EvictionDecision = { action: "allow" } | { action: "deny"; message: string } | { action: "mark" };

const allowed = (): AdmissionDecision => ({ allowed: true });
const refuse = (message: string): AdmissionDecision => denied(message, TOO_MANY_REQUESTS);

/** Upstream's VMIEvictionStrategy: the VMI's own strategy, else the cluster-wide one (may be none). */
export function vmiEvictionStrategy(config: ClusterConfig, vmi: VirtualMachineInstance): string | undefined {
  return vmi.spec.evictionStrategy ?? config.getEvictionStrategy();
}

function isMigratable(vmi: VirtualMachineInstance): boolean {
  return (vmi.status?.conditions ?? []).some((c) => c.type === "LiveMigratable" && c.status === "True");
}

/** Upstream's markForEviction: whether the strategy wants the VMI evacuated; a refusal when it cannot be. */
function evacuationWanted(
  vmi: VirtualMachineInstance,
  strategy: string | undefined,
): boolean | { deny: string } {
  switch (strategy) {
    case "LiveMigrate":
      if (!isMigratable(vmi)) {
        return {
          deny: `VMI ${vmi.metadata?.name ?? ""} is configured with an eviction strategy but is not live-migratable`,
        };
      }
      return true;
    case "LiveMigrateIfPossible":
      return isMigratable(vmi);
    case "External":
      return true;
    default:
      // None, or no strategy at all: the Pod is evicted and the VM's run strategy takes over.
      return false;
  }
}

/** The eviction strategies' rules, upstream's admitLauncherPod without the calls. */
export function decideLauncherEviction(
  vmi: VirtualMachineInstance,
  pod: EvictedPod,
  strategy: string | undefined,
): EvictionDecision {
  const wanted = evacuationWanted(vmi, strategy);
  if (wanted === false) return { action: "allow" };
  if (wanted !== true) return { action: "deny", message: wanted.deny };
  if (vmi.status?.evacuationNodeName) {
    return { action: "deny", message: `Evacuation in progress: ${evacuationMessage(vmi)}` };
  }
  if (vmi.status?.nodeName !== pod.spec?.nodeName) {
    return { action: "deny", message: "Eviction request for target Pod" };
  }
  return { action: "mark" };
}

/** The message format the descheduler expects. */
function evacuationMessage(vmi: VirtualMachineInstance): string {
  return `Eviction triggered evacuation of VMI "${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.name ?? ""}"`;
}

/** JSON Pointer escaping of one path segment (RFC 6901). */
const escapePointer = (segment: string): string => segment.replaceAll("~", "~0").replaceAll("/", "~1");

/** Upstream's markVMI patch: the node to evacuate, and who asked when it was the descheduler. */
export function markForEvictionPatch(
  vmi: VirtualMachineInstance,
  nodeName: string,
  byDescheduler: boolean,
): JsonPatchOperation[] {
  const patch: JsonPatchOperation[] = [{ op: "add", path: "/status/evacuationNodeName", value: nodeName }];
  if (byDescheduler) {
    if (Object.keys(vmi.metadata?.annotations ?? {}).length === 0) {
      patch.push({
        op: "add",
        path: "/metadata/annotations",
        value: { [EvictionSourceAnnotation]: "descheduler" },
      });
    } else {
      const path = `/metadata/annotations/${escapePointer(EvictionSourceAnnotation)}`;
      patch.push({ op: "replace", path, value: "descheduler" });
    }
  }
  return patch;
}

function isVirtLauncher(pod: EvictedPod): boolean {
  return pod.metadata?.labels?.[AppLabel] === "virt-launcher";
}

function isHotplugPod(pod: EvictedPod): boolean {
  return pod.metadata?.labels?.[AppLabel] === "hotplug-disk" && pod.metadata.ownerReferences?.length === 1;
}

function isCompleted(pod: EvictedPod): boolean {
  return pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded";
}

async function getPod(client: PodEvictionClient, namespace: string, name: string): Promise<EvictedPod> {
  return podSchema.parse(await client.getPod(namespace, name));
}

async function admitHotplugPod(pod: EvictedPod, context: PodEvictionContext): Promise<AdmissionDecision> {
  const namespace = pod.metadata?.namespace ?? "";
  let owner: EvictedPod;
  try {
    owner = await getPod(context.client, namespace, pod.metadata?.ownerReferences?.[0]?.name ?? "");
  } catch (error) {
    if (isNotFound(error)) return allowed();
    return refuse(`failed getting owner for hotplug pod: ${errorMessage(error)}`);
  }
  const vmiName = owner.metadata?.annotations?.[DomainAnnotation];
  if (!isVirtLauncher(owner) || isCompleted(owner) || vmiName === undefined) return allowed();
  try {
    await context.client.getVMI(namespace, vmiName);
  } catch (error) {
    if (isNotFound(error)) return allowed();
    return refuse(`kubevirt failed getting the vmi: ${errorMessage(error)}`);
  }
  const podName = pod.metadata?.name ?? "";
  return refuse(
    `cannot evict hotplug pod: ${podName} associated with running vmi: ${vmiName} in namespace ${namespace}`,
  );
}

function isDryRun(request: AdmissionRequest, eviction: z.infer<typeof evictionSchema>): boolean {
  return request.dryRun === true || eviction.deleteOptions?.dryRun?.[0] === "All";
}

async function admitLauncherPod(
  request: AdmissionRequest,
  pod: EvictedPod,
  context: PodEvictionContext,
): Promise<AdmissionDecision> {
  const vmiName = pod.metadata?.annotations?.[DomainAnnotation];
  if (vmiName === undefined) return allowed();
  const namespace = request.namespace ?? "";
  let vmi: VirtualMachineInstance;
  try {
    vmi = VirtualMachineInstanceSchema.parse(await context.client.getVMI(namespace, vmiName));
  } catch (error) {
    return refuse(`kubevirt failed getting the vmi: ${errorMessage(error)}`);
  }
  const decision = decideLauncherEviction(vmi, pod, vmiEvictionStrategy(context.clusterConfig, vmi));
  if (decision.action === "allow") return allowed();
  if (decision.action === "deny") return refuse(decision.message);
  const eviction = evictionSchema.safeParse(request.object ?? {});
  if (!eviction.success)
    return refuse(`failed to parse the eviction object: ${z.prettifyError(eviction.error)}`);
  const byDescheduler =
    eviction.data.metadata?.annotations?.[RequestedByAnnotation] === RequestedByDescheduler;
  try {
    const patch = markForEvictionPatch(vmi, pod.spec?.nodeName ?? "", byDescheduler);
    await context.client.patchVMI(namespace, vmiName, patch, isDryRun(request, eviction.data));
  } catch (error) {
    // As upstream: the caller retries the eviction.
    return refuse(`kubevirt failed marking the vmi for eviction: ${errorMessage(error)}`);
  }
  return refuse(evacuationMessage(vmi));
}

/** Admits an Eviction (CREATE pods/eviction); Pods that are not KubeVirt's are always let through. */
export async function admitPodEviction(
  request: AdmissionRequest,
  context: PodEvictionContext,
): Promise<AdmissionDecision> {
  let pod: EvictedPod;
  try {
    pod = await getPod(context.client, request.namespace ?? "", request.name ?? "");
  } catch {
    // As upstream: a Pod that cannot be read is not this webhook's to protect.
    return allowed();
  }
  if (isHotplugPod(pod)) return admitHotplugPod(pod, context);
  if (isVirtLauncher(pod) && !isCompleted(pod)) return admitLauncherPod(request, pod, context);
  return allowed();
}
