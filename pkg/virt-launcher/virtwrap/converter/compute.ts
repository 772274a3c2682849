// Memory, vCPUs and CPU model, the hypervisor type, features, clock and reboot policy (upstream
// converter/compute/{memory,cpu,hypervisor_features,clock,reboot_policy}.go, converter/kvm and
// converter/vcpu).
import type { Quantity as KubeQuantity } from "../../../api/generated/k8s.js";
import type { Timer as VMITimer, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { Quantity } from "../../../defaults/quantity.js";
import type { Clock, CPUTopology, DomainSpec, Memory, Timer, VCPUsVCPU } from "../api/schema.js";
import { DomainOnRebootDestroy, DomainOnRebootRestart } from "../api/schema.js";
import type { ConverterContext } from "./context.js";
import { ConversionError, positiveInteger } from "./errors.js";

const NANOS = 1_000_000_000n;

function parseQuantity(quantity: KubeQuantity, field: string): Quantity {
  const parsed = Quantity.tryParse(quantity);
  if (parsed === undefined)
    throw new ConversionError(`${field}: quantity "${String(quantity)}" is not valid`);
  return parsed;
}

/** Upstream's QuantityToByte: whole bytes, a fraction rounded down; negative sizes refused. */
export function quantityToBytes(quantity: Quantity): Memory {
  const bytes = quantity.nanos % NANOS === 0n ? quantity.nanos / NANOS : quantity.value() - 1n;
  if (bytes < 0n) {
    throw new ConversionError(`Memory size '${quantity.toString()}' must be greater than or equal to 0`);
  }
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ConversionError(`Memory size '${quantity.toString()}' is too large`);
  }
  return { value: Number(bytes), unit: "b" };
}

function resource(map: Record<string, KubeQuantity> | undefined, name: string): KubeQuantity | undefined {
  return map !== undefined && Object.hasOwn(map, name) ? map[name] : undefined;
}

/** Upstream's GetVirtualMemory: guest memory, else the request, else the limit. */
export function virtualMemory(vmi: VirtualMachineInstance): Quantity {
  const domain = vmi.spec.domain;
  if (domain.memory?.guest !== undefined)
    return parseQuantity(domain.memory.guest, "spec.domain.memory.guest");
  const request = resource(domain.resources?.requests, "memory");
  const limit = resource(domain.resources?.limits, "memory");
  if (request === undefined && limit !== undefined)
    return parseQuantity(limit, "spec.domain.resources.limits");
  return request === undefined ? Quantity.parse(0) : parseQuantity(request, "spec.domain.resources.requests");
}

/**
 * Debian's libvirt 9.0 wants a slot count and a NUMA node before it accepts <maxMemory> (9.6 and
 * later, which upstream now targets, need neither); upstream's converter wrote this NUMA node
 * until then.
 */
const MemoryHotplugSlots = 1;

export function configureMemory(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const memory = vmi.spec.domain.memory;
  const maxGuest =
    memory?.maxGuest === undefined
      ? undefined
      : parseQuantity(memory.maxGuest, "spec.domain.memory.maxGuest");
  const guest =
    memory?.guest === undefined ? undefined : parseQuantity(memory.guest, "spec.domain.memory.guest");
  if (maxGuest === undefined || (guest !== undefined && guest.compare(maxGuest) === 0)) {
    spec.memory = quantityToBytes(virtualMemory(vmi));
    return;
  }
  if (guest === undefined) throw new ConversionError("spec.domain.memory.guest must be set with maxGuest");
  // Room for virtio-mem hotplug up to maxGuest; the device itself is attached when memory grows.
  spec.maxMemory = { ...quantityToBytes(maxGuest), slots: MemoryHotplugSlots };
  spec.memory = quantityToBytes(guest);
}

/** The NUMA node libvirt 9.0 needs for memory hotplug; runs once the vCPUs are known. */
export function configureMemoryHotplugNUMA(spec: DomainSpec): void {
  if (!spec.maxMemory || !spec.vcpu) return;
  spec.cpu.numa = {
    cells: [{ id: "0", cpus: `0-${spec.vcpu.cpus - 1}`, memory: spec.memory.value, unit: spec.memory.unit }],
  };
}

function wholeCPUs(quantity: KubeQuantity | undefined, field: string): number | undefined {
  return quantity === undefined ? undefined : Number(parseQuantity(quantity, field).value());
}

/** Upstream's GetCPUTopology: 1/1/1 by default; with no topology at all, sockets from the CPU limit or request. */
export function cpuTopology(vmi: VirtualMachineInstance): Required<CPUTopology> {
  const cpu = vmi.spec.domain.cpu;
  const topology = { sockets: cpu?.sockets || 1, cores: cpu?.cores || 1, threads: cpu?.threads || 1 };
  if (!cpu || (!cpu.cores && !cpu.sockets && !cpu.threads)) {
    const resources = vmi.spec.domain.resources;
    const fromResources =
      wholeCPUs(resource(resources?.limits, "cpu"), "spec.domain.resources.limits") ??
      wholeCPUs(resource(resources?.requests, "cpu"), "spec.domain.resources.requests");
    if (fromResources !== undefined) topology.sockets = fromResources;
  }
  return topology;
}

export const requestedVCPUs = (topology: Required<CPUTopology>): number =>
  topology.sockets * topology.cores * topology.threads;

const yesNo = (value: boolean): string => (value ? "yes" : "no");

/** QEMU's ceiling for an x86_64 guest; anything above is a typo that would only exhaust memory here. */
export const MaxDomainVCPUs = 4096;

function checkTopology(topology: Required<CPUTopology>): number {
  for (const [name, value] of Object.entries(topology)) positiveInteger(value, `spec.domain.cpu.${name}`);
  const count = requestedVCPUs(topology);
  if (count > MaxDomainVCPUs) {
    throw new ConversionError(
      `the domain would have ${count} vCPUs, more than the ${MaxDomainVCPUs} QEMU allows`,
    );
  }
  return count;
}

function configureCPUTopology(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const topology = cpuTopology(vmi);
  let count = checkTopology(topology);
  const maxSockets = vmi.spec.domain.cpu?.maxSockets;
  // CPU hotplug (amd64): room for maxSockets, with the requested vCPUs enabled and the rest pluggable.
  if (maxSockets) {
    const minEnabled = topology.cores * topology.threads;
    const enabled = count;
    topology.sockets = maxSockets;
    count = checkTopology(topology);
    const vcpus: VCPUsVCPU[] = [];
    for (let id = 0; id < count; id++) {
      vcpus.push({ id, enabled: yesNo(id < enabled), hotpluggable: yesNo(id >= minEnabled) });
    }
    spec.vcpus = { vcpu: vcpus };
  }
  spec.cpu.topology = topology;
  spec.vcpu = { placement: "static", cpus: count };
}

const HostModel = "host-model";
const HostPassthrough = "host-passthrough";

function configureCPUModel(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const model = vmi.spec.domain.cpu?.model;
  if (!model) spec.cpu.mode = HostModel;
  else if (model === HostModel || model === HostPassthrough) spec.cpu.mode = model;
  else {
    spec.cpu.mode = "custom";
    spec.cpu.model = model;
  }
}

function configureCPUFeatures(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const cpu = vmi.spec.domain.cpu;
  if (!cpu) return;
  const features = (cpu.features ?? []).map((feature) => ({ name: feature.name, policy: feature.policy }));
  // libvirt refuses a named model whose cpu_map lists the deprecated mpx the host lacks (amd64).
  const namedModel = cpu.model !== HostModel && cpu.model !== HostPassthrough;
  if (namedModel && !features.some((feature) => feature.name === "mpx")) {
    features.push({ name: "mpx", policy: "disable" });
  }
  if (features.length > 0) spec.cpu.features = features;
}

export function configureCPU(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  configureCPUTopology(vmi, spec);
  configureCPUModel(vmi, spec);
  configureCPUFeatures(vmi, spec);
}

/** Upstream's KVM configurator: software emulation (TCG) only when KVM is missing and emulation allowed. */
export function configureHypervisor(context: ConverterContext, spec: DomainSpec): void {
  spec.devices.emulator = context.emulatorPath;
  if (context.hypervisorDeviceAvailable) return;
  if (!context.allowEmulation) throw new ConversionError("kvm not present and emulation is not allowed");
  spec.type = "qemu";
}

const enabled = (state: { enabled?: boolean } | undefined): boolean =>
  state !== undefined && state.enabled !== false;

export function configureFeatures(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  spec.features = {};
  const source = vmi.spec.domain.features;
  if (!source) return;
  // ACPI is a plain struct upstream: on unless switched off.
  if (source.acpi?.enabled !== false) spec.features.acpi = {};
  if (enabled(source.apic)) spec.features.apic = {};
  if (enabled(source.smm)) spec.features.smm = {};
  // amd64 has a VMware I/O port that nothing here wants.
  spec.features.vmPort = { state: "off" };
}

const present = (timer: { present?: boolean }): string => yesNo(timer.present !== false);

function convertTimers(timer: VMITimer): Timer[] {
  const timers: Timer[] = [];
  const { rtc, pit, kvm, hpet, hyperv } = timer;
  if (rtc) timers.push({ name: "rtc", track: rtc.track, tickPolicy: rtc.tickPolicy, present: present(rtc) });
  if (pit) timers.push({ name: "pit", present: present(pit), tickPolicy: pit.tickPolicy });
  if (kvm) timers.push({ name: "kvmclock", present: present(kvm) });
  if (hpet) timers.push({ name: "hpet", present: present(hpet), tickPolicy: hpet.tickPolicy });
  if (hyperv) timers.push({ name: "hypervclock", present: present(hyperv) });
  return timers;
}

/** A guest that requires invariant TSC must get the frequency virt-controller measured for its node. */
function tscFrequency(vmi: VirtualMachineInstance): number | undefined {
  const needsInvTSC = (vmi.spec.domain.cpu?.features ?? []).some(
    (feature) => feature.name === "invtsc" && (feature.policy === "require" || feature.policy === "force"),
  );
  const frequency = vmi.status?.topologyHints?.tscFrequency;
  return needsInvTSC && frequency !== undefined && frequency > 0 ? frequency : undefined;
}

export function configureClock(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const source = vmi.spec.domain.clock;
  let clock: Clock | undefined;
  if (source) {
    clock = {};
    if (source.utc) {
      clock.offset = "utc";
      clock.adjustment = source.utc.offsetSeconds === undefined ? "reset" : String(source.utc.offsetSeconds);
    } else if (source.timezone) {
      clock.offset = "timezone";
      clock.timezone = source.timezone;
    }
    if (source.timer) clock.timer = convertTimers(source.timer);
  }
  const frequency = tscFrequency(vmi);
  if (frequency !== undefined) {
    clock ??= {};
    clock.timer = [...(clock.timer ?? []), { name: "tsc", frequency: String(frequency) }];
  }
  if (clock) spec.clock = clock;
}

export function configureRebootPolicy(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const policy = vmi.spec.domain.rebootPolicy;
  if (policy === "Terminate") spec.onReboot = DomainOnRebootDestroy;
  else if (policy === "Reboot") spec.onReboot = DomainOnRebootRestart;
}
