import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";

/**
 * Whether the spec uses a PCIe bus that needs pcie-root-port controllers for hotplug: not on flat-bus
 * architectures (s390x, ppc64le) nor on non-PCIe machine types (i440fx).
 */
export function supportsPCIeHotplug(spec: VirtualMachineInstanceSpec): boolean {
  const architecture = spec.architecture ?? "";
  if (architecture !== "amd64" && architecture !== "arm64" && architecture !== "") return false;
  const machine = spec.domain.machine;
  if (machine && !(machine.type ?? "").includes("q35") && !(machine.type ?? "").startsWith("virt"))
    return false;
  return true;
}
