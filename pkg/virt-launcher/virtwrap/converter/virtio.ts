// The virtio device model name (upstream converter/virtio and arch/amd64.go): virtio 1.0 only,
// unless the VMI asks for transitional devices that old guests (virtio 0.9 drivers) understand.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";

export function virtioModel(vmi: VirtualMachineInstance): string {
  return vmi.spec.domain.devices.useVirtioTransitional ? "virtio-transitional" : "virtio-non-transitional";
}
