// Questions upstream asks of a VMI in many places (core/v1 types.go helpers, pkg/vmitrait, pkg/network
// vmispec), answered once for the renderer and the controllers.
import type { CPU, VirtualMachineInstance } from "../api/generated/v1.js";
import { DeprecatedNonRootVMIAnnotation } from "../util/constants.js";
import { compareQuantities, isZero } from "../util/quantity-math.js";

/** hardware.GetNumberOfVCPUs: cores × sockets × threads, where a zero factor is skipped (0 if all are). */
export function vcpuCountFromTopology(cpu: CPU): number {
  let vcpus = cpu.cores ?? 0;
  for (const factor of [cpu.sockets ?? 0, cpu.threads ?? 0]) {
    if (factor !== 0) vcpus = vcpus === 0 ? factor : vcpus * factor;
  }
  return vcpus;
}

/** The guest's vCPUs for scheduling: the topology when there is one, else 1. */
export function vcpusForScheduling(vmi: VirtualMachineInstance): number {
  const cpu = vmi.spec.domain.cpu;
  return cpu ? vcpuCountFromTopology(cpu) : 1;
}

export function isCPUDedicated(vmi: VirtualMachineInstance): boolean {
  return vmi.spec.domain.cpu?.dedicatedCpuPlacement === true;
}

/** Memory and CPU requests equal to their limits: the user asks for QoS class Guaranteed. */
export function wantsGuaranteedQoS(vmi: VirtualMachineInstance): boolean {
  const requests = vmi.spec.domain.resources?.requests ?? {};
  const limits = vmi.spec.domain.resources?.limits ?? {};
  const memoryWantsIt =
    (isZero(requests["memory"]) && !isZero(limits["memory"])) ||
    (!isZero(requests["memory"]) && compareQuantities(requests["memory"], limits["memory"]) === 0);
  const cpuWantsIt = !isZero(requests["cpu"]) && compareQuantities(requests["cpu"], limits["cpu"]) === 0;
  return memoryWantsIt && cpuWantsIt;
}

/** The launcher runs as the qemu user (set by the mutating webhook in status.runtimeUser). */
export function isNonRoot(vmi: VirtualMachineInstance): boolean {
  const annotated = vmi.metadata?.annotations?.[DeprecatedNonRootVMIAnnotation] !== undefined;
  return annotated || (vmi.status?.runtimeUser ?? 0) !== 0;
}

/** A pod network interface needs /dev/net/tun, which is also there when interfaces are left to defaults. */
export function requiresTunDevice(vmi: VirtualMachineInstance): boolean {
  const devices = vmi.spec.domain.devices;
  return (devices.interfaces?.length ?? 0) > 0 || devices.autoattachPodInterface !== false;
}

/** virtio NICs get vhost-net in the kernel unless emulation is allowed (then QEMU's userland NIC is used). */
export function requiresVhostNetDevice(vmi: VirtualMachineInstance, allowEmulation: boolean): boolean {
  const virtio = (vmi.spec.domain.devices.interfaces ?? []).some(
    (iface) => iface.model === undefined || iface.model === "" || iface.model === "virtio",
  );
  return virtio && !allowEmulation;
}

export function autoAttachesVSOCK(vmi: VirtualMachineInstance): boolean {
  return vmi.spec.domain.devices.autoattachVSOCK === true;
}

export function hasContainerDisk(vmi: VirtualMachineInstance): boolean {
  return (vmi.spec.volumes ?? []).some((volume) => volume.containerDisk !== undefined);
}
