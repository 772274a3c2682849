// Upstream pkg/instancetype/apply: an instance type's spec written into a VMI spec. Every field the VMI
// already sets that the instance type also sets is a conflict (nothing is applied then); without
// conflicts the preference fills in what the VMI leaves unset.
import type { Path } from "../../api/field.js";
import type { ObjectMeta } from "../../api/generated/k8s.js";
import type { VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import { Quantity } from "../../defaults/quantity.js";
import { Path as FieldPath } from "../../api/field.js";
import { Conflict } from "../conflict/conflicts.js";
import type { VMIApplier } from "../expand/expand.js";
import { applyPreferenceToVMI, preferredSpread, preferredTopology } from "../preference/apply/vmi.js";

type Spec = VirtualMachineInstancetypeSpec;
type VMISpec = VirtualMachineInstanceSpec;

const has = (list: Record<string, unknown> | undefined, key: string) => list !== undefined && key in list;

function applyNodeSelector(base: Path, it: Spec, vmi: VMISpec): Conflict[] {
  if (it.nodeSelector === undefined) return [];
  if (vmi.nodeSelector !== undefined) return [new Conflict(base.child("nodeSelector"))];
  vmi.nodeSelector = { ...it.nodeSelector };
  return [];
}

function applySchedulerName(base: Path, it: Spec, vmi: VMISpec): Conflict[] {
  if (!it.schedulerName) return [];
  if (vmi.schedulerName) return [new Conflict(base.child("schedulerName"))];
  vmi.schedulerName = it.schedulerName;
  return [];
}

function cpuConflicts(base: Path, it: Spec, vmi: VMISpec): Conflict[] {
  const cpu = vmi.domain.cpu ?? {};
  const resources = vmi.domain.resources;
  const conflicts: Conflict[] = [];
  const at = (...names: string[]) => conflicts.push(new Conflict(base.child("domain", ...names)));
  if (has(resources?.requests, "cpu")) at("resources", "requests", "cpu");
  if (has(resources?.limits, "cpu")) at("resources", "limits", "cpu");
  if (cpu.sockets) at("cpu", "sockets");
  if (cpu.cores) at("cpu", "cores");
  if (cpu.threads) at("cpu", "threads");
  if (cpu.model && it.cpu.model !== undefined) at("cpu", "model");
  if (cpu.dedicatedCpuPlacement && it.cpu.dedicatedCPUPlacement !== undefined)
    at("cpu", "dedicatedCPUPlacement");
  if (cpu.isolateEmulatorThread && it.cpu.isolateEmulatorThread !== undefined)
    at("cpu", "isolateEmulatorThread");
  if (cpu.numa !== undefined && it.cpu.numa !== undefined) at("cpu", "numa");
  if (cpu.realtime !== undefined && it.cpu.realtime !== undefined) at("cpu", "realtime");
  return conflicts;
}

/** vCPUs as sockets, cores or threads, per the preference's preferredCPUTopology (sockets by default). */
export function guestCPUTopology(
  vCPUs: number,
  preference: VirtualMachinePreferenceSpec | undefined,
): { sockets: number; cores: number; threads: number } {
  const topology = { sockets: 1, cores: 1, threads: 1 };
  if (vCPUs === 1) return topology;
  // Go's unsigned division truncates.
  const div = (a: number, b: number) => Math.trunc(a / b);
  switch (preferredTopology(preference)) {
    case "preferCores":
    case "cores":
      topology.cores = vCPUs;
      break;
    case "preferSockets":
    case "preferAny":
    case "sockets":
    case "any":
      topology.sockets = vCPUs;
      break;
    case "preferThreads":
    case "threads":
      topology.threads = vCPUs;
      break;
    case "preferSpread":
    case "spread": {
      const { ratio, across } = preferredSpread(preference ?? {});
      if (across === "SocketsCores") {
        topology.cores = ratio;
        topology.sockets = div(vCPUs, ratio);
      } else if (across === "CoresThreads") {
        topology.threads = ratio;
        topology.cores = div(vCPUs, ratio);
      } else if (across === "SocketsCoresThreads") {
        const threadsPerCore = 2;
        topology.threads = threadsPerCore;
        topology.cores = ratio;
        topology.sockets = div(div(vCPUs, threadsPerCore), ratio);
      }
      break;
    }
  }
  return topology;
}

function applyCPU(base: Path, it: Spec, preference: VirtualMachinePreferenceSpec | undefined, vmi: VMISpec) {
  const cpu = (vmi.domain.cpu ??= {});
  const conflicts = cpuConflicts(base, it, vmi);
  if (conflicts.length > 0) return conflicts;
  if (it.cpu.model !== undefined) cpu.model = it.cpu.model;
  if (it.cpu.dedicatedCPUPlacement !== undefined) cpu.dedicatedCpuPlacement = it.cpu.dedicatedCPUPlacement;
  if (it.cpu.isolateEmulatorThread !== undefined) cpu.isolateEmulatorThread = it.cpu.isolateEmulatorThread;
  if (it.cpu.numa !== undefined) cpu.numa = structuredClone(it.cpu.numa);
  if (it.cpu.realtime !== undefined) cpu.realtime = structuredClone(it.cpu.realtime);
  if (it.cpu.maxSockets !== undefined) cpu.maxSockets = it.cpu.maxSockets;
  Object.assign(cpu, guestCPUTopology(it.cpu.guest, preference));
  return [];
}

function memoryConflict(base: Path, it: Spec, vmi: VMISpec): Conflict | undefined {
  const memory = vmi.domain.memory ?? {};
  const resources = vmi.domain.resources;
  const at = (...names: string[]) => new Conflict(base.child("domain", ...names));
  if (memory.guest !== undefined) return at("memory", "guest");
  if (memory.hugepages !== undefined && it.memory.hugepages !== undefined) return at("memory", "hugepages");
  if (memory.maxGuest !== undefined && it.memory.maxGuest !== undefined) return at("memory", "maxGuest");
  if (has(resources?.requests, "memory")) return at("resources", "requests", "memory");
  if (has(resources?.limits, "memory")) return at("resources", "limits", "memory");
  return undefined;
}

/** The pod's memory request for an overcommitted guest, computed in float32 and truncated as upstream. */
export function overcommittedRequest(guest: string | number, overcommitPercent: number): string {
  const quantity = Quantity.parse(guest);
  const f = Math.fround;
  const bytes = Math.trunc(f(f(Number(quantity.value())) * f(1 - f(f(overcommitPercent) / 100))));
  return Quantity.fromInteger(BigInt(bytes), quantity.format).toString();
}

function applyMemory(base: Path, it: Spec, vmi: VMISpec): Conflict[] {
  const memory = (vmi.domain.memory ??= {});
  const conflict = memoryConflict(base, it, vmi);
  if (conflict) return [conflict];
  memory.guest = it.memory.guest;
  const overcommit = it.memory.overcommitPercent ?? 0;
  if (overcommit > 0) {
    const resources = (vmi.domain.resources ??= {});
    (resources.requests ??= {}).memory = overcommittedRequest(it.memory.guest, overcommit);
  }
  if (it.memory.hugepages !== undefined) memory.hugepages = structuredClone(it.memory.hugepages);
  if (it.memory.maxGuest !== undefined) memory.maxGuest = it.memory.maxGuest;
  return [];
}

function applyIOThreads(base: Path, it: Spec, vmi: VMISpec): Conflict[] {
  const count = it.ioThreads?.supplementalPoolThreadCount;
  if (count === undefined) return [];
  if (vmi.domain.ioThreads?.supplementalPoolThreadCount !== undefined) {
    return [new Conflict(base.child("domain", "ioThreads", "supplementalPoolThreadCount"))];
  }
  (vmi.domain.ioThreads ??= {}).supplementalPoolThreadCount = count;
  return [];
}

/** A member the instance type sets whole: a conflict when the VMI sets it too (lists: when not empty). */
function applyWhole<K extends "ioThreadsPolicy" | "launchSecurity">(
  base: Path,
  key: K,
  it: Spec,
  vmi: VMISpec,
) {
  if (it[key] === undefined) return [];
  if (vmi.domain[key] !== undefined) return [new Conflict(base.child("domain", key))];
  vmi.domain[key] = structuredClone(it[key]) as VMISpec["domain"][K];
  return [];
}

function applyDeviceList<K extends "gpus" | "hostDevices">(base: Path, key: K, it: Spec, vmi: VMISpec) {
  const wanted = it[key];
  if (!wanted?.length) return [];
  const devices = (vmi.domain.devices ??= {});
  if (devices[key]?.length) return [new Conflict(base.child("domain", "devices", key))];
  devices[key] = structuredClone(wanted) as NonNullable<VMISpec["domain"]["devices"]>[K];
  return [];
}

function applyAnnotations(annotations: Record<string, string> | undefined, metadata: ObjectMeta): Conflict[] {
  const target = (metadata.annotations ??= {});
  const conflicts: Conflict[] = [];
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (key in target) {
      // Upstream's path here is not under the spec: `annotations.<key>`.
      if (target[key] !== value) conflicts.push(new Conflict(FieldPath.of("annotations", key)));
      continue;
    }
    target[key] = value;
  }
  return conflicts;
}

export const vmiApplier: VMIApplier = {
  applyToVMI(field, instancetypeSpec, preferenceSpec, vmiSpec, vmiMetadata) {
    if (instancetypeSpec === undefined && preferenceSpec === undefined) return [];
    if (instancetypeSpec !== undefined) {
      const it = instancetypeSpec;
      const conflicts = [
        ...applyNodeSelector(field, it, vmiSpec),
        ...applySchedulerName(field, it, vmiSpec),
        ...applyCPU(field, it, preferenceSpec, vmiSpec),
        ...applyMemory(field, it, vmiSpec),
        ...applyIOThreads(field, it, vmiSpec),
        ...applyWhole(field, "ioThreadsPolicy", it, vmiSpec),
        ...applyWhole(field, "launchSecurity", it, vmiSpec),
        ...applyDeviceList(field, "gpus", it, vmiSpec),
        ...applyDeviceList(field, "hostDevices", it, vmiSpec),
        ...applyAnnotations(it.annotations, vmiMetadata),
      ];
      if (conflicts.length > 0) return conflicts;
    }
    applyPreferenceToVMI(preferenceSpec, vmiSpec, vmiMetadata);
    return [];
  },
};
