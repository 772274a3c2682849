// With the LiveUpdate rollout strategy a VMI is started with room to grow: CPU sockets and guest
// memory can be hot-plugged up to maxSockets / maxGuest (upstream defaults.go setupHotplug and
// pkg/liveupdate/memory ValidateLiveUpdateMemory).
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import type { ClusterConfig } from "../virt-config/cluster-config.js";
import { Quantity } from "./quantity.js";

/** Each machine type has its own vCPU limit; 512 is the bound upstream picks for all. */
export const MaxHotplugVCPUs = 512;
/** A power of two of at least one transparent hugepage (2 MiB on x86_64), as QEMU recommends. */
export const HotplugBlockAlignmentBytes = 0x200000n;
/** The size of a 1 GiB hugepage. */
export const Hotplug1GHugePagesBlockAlignmentBytes = 0x40000000n;
/** Enough for the guest kernel's own structures and swiotlb, and it keeps the PCI hole below. */
const RequiredMinGuestMemory = 0x40000000n;

export function setupCPUHotplug(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  const cpu = (spec.domain.cpu ??= {});
  const sockets = cpu.sockets ?? 0;
  if (!cpu.maxSockets) {
    let maxSockets = config.getMaximumCpuSockets();
    if (sockets > maxSockets && maxSockets !== 0) maxSockets = sockets;
    if (maxSockets !== 0) cpu.maxSockets = maxSockets;
  }
  if (!cpu.maxSockets) {
    const perSocket = (cpu.cores ?? 0) * (cpu.threads ?? 0);
    let maxSockets = sockets * config.getMaxHotplugRatio();
    if (maxSockets * perSocket > MaxHotplugVCPUs) {
      maxSockets = Math.max(Math.floor(MaxHotplugVCPUs / perSocket), sockets);
    }
    if (maxSockets !== 0) cpu.maxSockets = maxSockets;
  }
}

function memoryBlockAlignment(spec: VirtualMachineInstanceSpec): bigint {
  return spec.domain.memory?.hugepages?.pageSize === "1Gi"
    ? Hotplug1GHugePagesBlockAlignmentBytes
    : HotplugBlockAlignmentBytes;
}

/** Why memory hotplug cannot work for this spec (upstream's messages), or undefined when it can. */
export function validateLiveUpdateMemory(
  spec: VirtualMachineInstanceSpec,
  maxGuest: Quantity | undefined,
): string | undefined {
  const domain = spec.domain;
  if (domain.cpu?.realtime) return "Memory hotplug is not compatible with realtime VMs";
  if (domain.cpu?.numa?.guestMappingPassthrough)
    return "Memory hotplug is not compatible with guest mapping passthrough";
  if (domain.launchSecurity) return "Memory hotplug is not compatible with encrypted VMs";
  const alignment = memoryBlockAlignment(spec);
  const guest = Quantity.tryParse(domain.memory?.guest);
  if (guest === undefined) return "Guest memory must be configured when memory hotplug is enabled";
  if (maxGuest === undefined) return "Max guest memory must be configured when memory hotplug is enabled";
  if (guest.compare(maxGuest) > 0) return "Guest memory is greater than the configured maxGuest memory";
  const alignmentText = Quantity.fromInteger(alignment, "BinarySI").toString();
  if (guest.value() % alignment !== 0n) return `Guest memory must be ${alignmentText} aligned`;
  if (maxGuest.value() % alignment !== 0n) return `MaxGuest must be ${alignmentText} aligned`;
  if (spec.architecture !== "amd64") return "Memory hotplug is only available for x86_64 VMs";
  if (guest.value() < RequiredMinGuestMemory) {
    return "Memory hotplug is only available for VMs with at least 1Gi of guest memory";
  }
  return undefined;
}

/** Sets maxGuest when memory hotplug can work; returns why not otherwise (upstream only logs it). */
export function setupMemoryHotplug(
  config: ClusterConfig,
  spec: VirtualMachineInstanceSpec,
): string | undefined {
  const memory = (spec.domain.memory ??= {});
  if (memory.maxGuest !== undefined && memory.maxGuest !== null) return undefined;
  const guest = Quantity.tryParse(memory.guest);
  const maxGuest =
    config.getMaximumGuestMemory() ??
    (guest && Quantity.fromInteger(guest.value() * BigInt(config.getMaxHotplugRatio()), "BinarySI"));
  const problem = validateLiveUpdateMemory(spec, maxGuest);
  if (problem !== undefined || maxGuest === undefined) return problem;
  memory.maxGuest = maxGuest.toString();
  return undefined;
}

export function setupHotplug(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  if (!config.isVMRolloutStrategyLiveUpdate()) return;
  setupCPUHotplug(config, spec);
  setupMemoryHotplug(config, spec);
}
