// The status a new VMI starts with: guest memory and CPU topology as defaulted in the spec.
import type {
  CPUTopology,
  VirtualMachineInstance,
  VirtualMachineInstanceStatus,
} from "../api/generated/v1.js";

function statusOf(vmi: VirtualMachineInstance): VirtualMachineInstanceStatus {
  return (vmi.status ??= {});
}

export function setGuestMemoryStatus(vmi: VirtualMachineInstance): void {
  const guest = vmi.spec.domain.memory?.guest;
  if (guest === undefined || guest === null) return;
  statusOf(vmi).memory = { guestAtBoot: guest, guestCurrent: guest, guestRequested: guest };
}

export function setCurrentCPUTopologyStatus(vmi: VirtualMachineInstance): void {
  const cpu = vmi.spec.domain.cpu;
  const status = statusOf(vmi);
  if (!cpu || status.currentCPUTopology) return;
  // Zero counts are left out, as Go's omitempty does.
  const topology: CPUTopology = {};
  if (cpu.sockets) topology.sockets = cpu.sockets;
  if (cpu.cores) topology.cores = cpu.cores;
  if (cpu.threads) topology.threads = cpu.threads;
  status.currentCPUTopology = topology;
}
