// The compute container's requests and limits (upstream's renderresources.go and the rules template.go
// picks for a VMI): the user's resources, the memory overhead, the CPU share derived from the vCPUs and
// the cluster's CPU allocation ratio, ephemeral storage for KubeVirt's own files, and the
// devices.kubevirt.io devices the launcher needs.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Quantity } from "../../defaults/quantity.js";
import type { ResourceList, ResourceRequirements } from "../../api/core/v1/pod.js";
import { addQuantity, isZero, parseQuantity, quantityOf, wholeUnits } from "../../util/quantity-math.js";
import {
  autoAttachesVSOCK,
  requiresTunDevice,
  requiresVhostNetDevice,
  vcpusForScheduling,
} from "../../vmitrait/vmitrait.js";

export const K8sDevicePrefix = "devices.kubevirt.io";
export const KvmDevice = `${K8sDevicePrefix}/kvm`;
export const TunDevice = `${K8sDevicePrefix}/tun`;
export const VhostNetDevice = `${K8sDevicePrefix}/vhost-net`;
export const VhostVsockDevice = `${K8sDevicePrefix}/vhost-vsock`;
/** Room for KubeVirt's own files in the Pod's ephemeral storage, added to whatever the user asked. */
export const EphemeralStorageOverhead = "50M";

export interface ResourceOptions {
  /** `developerConfiguration.useEmulation`: no /dev/kvm (and no vhost-net) is requested. */
  allowEmulation: boolean;
  /** `developerConfiguration.memoryOvercommit`, in percent. */
  memoryOvercommit: number;
  /** `developerConfiguration.cpuAllocationRatio`: vCPUs per requested CPU. */
  cpuAllocationRatio: number;
  memoryOverhead: Quantity;
  /** Network name → the device-plugin resource its NAD names ("" for none); upstream's WithNetworkResources. */
  networkResources?: ReadonlyMap<string, string>;
}

/** A copy of a user resource list, each quantity written as Go writes it back. */
function canonicalList(list: Record<string, string | number> | undefined): ResourceList {
  const out: ResourceList = {};
  for (const [name, value] of Object.entries(list ?? {})) {
    out[name] = quantityOf(value)?.toString() ?? String(value);
  }
  return out;
}

/** Device plugin resources go in limits only; the apiserver copies them to requests. */
function virtualizationDevices(vmi: VirtualMachineInstance, allowEmulation: boolean): ResourceList {
  const devices: ResourceList = {};
  if (requiresTunDevice(vmi)) devices[TunDevice] = "1";
  if (requiresVhostNetDevice(vmi, allowEmulation)) devices[VhostNetDevice] = "1";
  if (!allowEmulation) devices[KvmDevice] = "1";
  if (autoAttachesVSOCK(vmi)) devices[VhostVsockDevice] = "1";
  return devices;
}

/** Without a memory request: the limit, else the guest memory reduced by the overcommit percentage. */
function setDefaultMemoryRequest(
  vmi: VirtualMachineInstance,
  requests: ResourceList,
  limits: ResourceList,
  overcommit: number,
): void {
  const limit = limits["memory"];
  if (limit !== undefined && !isZero(limit) && isZero(requests["memory"])) requests["memory"] = limit;
  if (requests["memory"] !== undefined) return;
  const guest = quantityOf(vmi.spec.domain.memory?.guest);
  if (!guest || guest.value() <= 0n) return;
  requests["memory"] =
    overcommit === 100
      ? guest.toString()
      : wholeUnits((guest.value() * 100n) / BigInt(overcommit), guest.format);
}

/** vCPUs / allocation ratio, written as upstream formats it ("%g", in milli-CPUs below one CPU). */
function cpuShare(vmi: VirtualMachineInstance, cpuAllocationRatio: number): string | undefined {
  const supplementalThreads = vmi.spec.domain.ioThreads?.supplementalPoolThreadCount ?? 0;
  const cpus = vcpusForScheduling(vmi) + supplementalThreads;
  if (cpus === 0 || cpuAllocationRatio <= 0) return undefined;
  // JavaScript's shortest number text is Go's %g for every share a node can hold (below 1e6 CPUs).
  const share = cpus / cpuAllocationRatio;
  const text = share < 1 ? `${share * 1000}m` : String(share);
  return parseQuantity(text).toString();
}

/** The memory overhead goes on top of the request (unless the user overcommits it) and of any limit. */
function addMemoryOverhead(
  vmi: VirtualMachineInstance,
  requests: ResourceList,
  limits: ResourceList,
  overhead: Quantity,
): void {
  const request = requests["memory"];
  requests["memory"] =
    vmi.spec.domain.resources?.overcommitGuestOverhead === true
      ? addQuantity(request, parseQuantity("0"))
      : addQuantity(request, overhead);
  const limit = limits["memory"];
  if (limit !== undefined) limits["memory"] = addQuantity(limit, overhead);
}

function sortedByName(list: ResourceList): ResourceList {
  return Object.fromEntries(Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One of the NAD's resource per network using it, requested and limited alike (upstream's bumpResources). */
function addNetworkResources(
  requests: ResourceList,
  limits: ResourceList,
  networkResources: ReadonlyMap<string, string> | undefined,
): void {
  const one = parseQuantity("1");
  for (const resourceName of networkResources?.values() ?? []) {
    if (!resourceName) continue;
    requests[resourceName] = addQuantity(requests[resourceName], one);
    limits[resourceName] = addQuantity(limits[resourceName], one);
  }
}

export function renderResources(vmi: VirtualMachineInstance, options: ResourceOptions): ResourceRequirements {
  const requests = canonicalList(vmi.spec.domain.resources?.requests);
  const limits = canonicalList(vmi.spec.domain.resources?.limits);
  const calculatedRequests: ResourceList = {};

  const ephemeral = parseQuantity(EphemeralStorageOverhead);
  requests["ephemeral-storage"] = addQuantity(requests["ephemeral-storage"], ephemeral);
  const ephemeralLimit = limits["ephemeral-storage"];
  if (ephemeralLimit !== undefined) limits["ephemeral-storage"] = addQuantity(ephemeralLimit, ephemeral);
  Object.assign(limits, virtualizationDevices(vmi, options.allowEmulation));

  // Overcommit runs first so the overhead itself is never overcommitted.
  if (isZero(vmi.spec.domain.resources?.requests?.["memory"])) {
    setDefaultMemoryRequest(vmi, requests, limits, options.memoryOvercommit);
  }
  const share = cpuShare(vmi, options.cpuAllocationRatio);
  if (share !== undefined) calculatedRequests["cpu"] = share;
  addMemoryOverhead(vmi, requests, limits, options.memoryOverhead);

  // What the user asked for explicitly wins over what was calculated.
  const allRequests = { ...calculatedRequests, ...requests };
  addNetworkResources(allRequests, limits, options.networkResources);
  return { limits: sortedByName(limits), requests: sortedByName(allRequests) };
}
