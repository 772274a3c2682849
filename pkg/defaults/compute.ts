// Compute defaults of a VMI spec: architecture, machine type, CPU requests and topology, CPU model,
// guest memory and eviction strategy (upstream pkg/defaults/defaults.go).
import type { CPU, Memory, ResourceRequirements, VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import type { ClusterConfig } from "../virt-config/cluster-config.js";
import { DefaultCPURequest } from "../virt-config/defaults.js";
import { Quantity } from "./quantity.js";

/** Upstream's v1.DefaultCPUModel. */
export const DefaultCPUModel = "host-model";

/** A resource quantity of a request/limit list; unparsable text counts as absent (validation refuses it). */
export function resourceQuantity(
  list: Record<string, unknown> | undefined,
  name: string,
): Quantity | undefined {
  return list === undefined ? undefined : Quantity.tryParse(list[name]);
}

/** Go's `list.Cpu().IsZero()`; text Go could never have decoded counts as set, so it is never overwritten. */
function isZeroOrAbsent(list: Record<string, unknown> | undefined, name: string): boolean {
  const raw = list?.[name];
  if (raw === undefined || raw === null) return true;
  return Quantity.tryParse(raw)?.isZero() ?? false;
}

/** Go's uint32(x) on an int64: wraps modulo 2^32. */
function toUint32(value: bigint): number {
  return Number(BigInt.asUintN(32, value));
}

function resourcesOf(spec: VirtualMachineInstanceSpec): ResourceRequirements {
  return (spec.domain.resources ??= {});
}

export function setDefaultArchitecture(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  if (!spec.architecture) spec.architecture = config.getDefaultArchitecture();
}

export function setDefaultMachineType(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  const machineType = config.getMachineType(spec.architecture);
  if (spec.domain.machine) {
    if (!spec.domain.machine.type) spec.domain.machine.type = machineType;
  } else {
    spec.domain.machine = { type: machineType };
  }
}

/** CPU limits without requests become requests; a non-default cluster cpuRequest fills missing requests. */
export function setDefaultResourceRequests(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  const resources = spec.domain.resources;
  const cpuLimit = resourceQuantity(resources?.limits, "cpu");
  if (resources && cpuLimit && !cpuLimit.isZero() && isZeroOrAbsent(resources.requests, "cpu")) {
    resources.requests = { ...resources.requests, cpu: cpuLimit.toString() };
  }
  const clusterRequest = config.getCPURequest();
  if (clusterRequest === undefined || clusterRequest.compare(Quantity.parse(DefaultCPURequest)) === 0) return;
  if (resources?.requests !== undefined && "cpu" in resources.requests) return;
  if (spec.domain.cpu?.dedicatedCpuPlacement) return;
  const target = resourcesOf(spec);
  target.requests = { ...target.requests, cpu: clusterRequest.toString() };
}

/** Guest memory from memory requests, else limits, else the hugepage size. */
export function setGuestMemory(spec: VirtualMachineInstanceSpec): void {
  const memory: Memory = (spec.domain.memory ??= {});
  if (memory.guest !== undefined && memory.guest !== null) return;
  const resources = spec.domain.resources;
  const request = resourceQuantity(resources?.requests, "memory");
  const limit = resourceQuantity(resources?.limits, "memory");
  if (request && !request.isZero()) {
    memory.guest = request.toString();
  } else if (limit && !limit.isZero()) {
    memory.guest = limit.toString();
  } else if (memory.hugepages) {
    const pageSize = Quantity.tryParse(memory.hugepages.pageSize);
    if (pageSize) memory.guest = pageSize.toString();
  }
}

/**
 * Without any topology, all vCPUs (CPU limit, else request, else one) become sockets, which perform
 * best (upstream refers to bugzilla 1653453).
 */
export function setDefaultGuestCPUTopology(spec: VirtualMachineInstanceSpec): void {
  const current = spec.domain.cpu;
  if (current && (current.cores || current.sockets || current.threads)) return;
  const cpu: CPU = (spec.domain.cpu ??= {});
  const resources = spec.domain.resources;
  const source = resourceQuantity(resources?.limits, "cpu") ?? resourceQuantity(resources?.requests, "cpu");
  cpu.sockets = source === undefined ? 1 : toUint32(source.value());
  cpu.cores = 1;
  cpu.threads = 1;
}

export function setDefaultCPUModel(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  const cpu: CPU = (spec.domain.cpu ??= {});
  if (!cpu.model) cpu.model = config.getCPUModel() || DefaultCPUModel;
}

export function setDefaultEvictionStrategy(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  if (spec.evictionStrategy === undefined || spec.evictionStrategy === null) {
    const strategy = config.getEvictionStrategy();
    if (strategy !== undefined) spec.evictionStrategy = strategy;
  }
}
