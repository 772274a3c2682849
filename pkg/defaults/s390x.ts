// s390x defaults (upstream pkg/defaults/s390x.go); see arm64.ts for why a port for amd64 keeps them.
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import { setDefaultDisksBus } from "./disk-bus.js";

export function isS390X(spec: VirtualMachineInstanceSpec): boolean {
  return spec.architecture === "s390x";
}

/** s390x has no ACPI, so it is off unless asked for. */
export function setS390xDefaultFeatures(spec: VirtualMachineInstanceSpec): void {
  const features = (spec.domain.features ??= {});
  const acpi = (features.acpi ??= {});
  if (acpi.enabled === undefined || acpi.enabled === null) acpi.enabled = false;
}

export function setS390xDefaults(spec: VirtualMachineInstanceSpec): void {
  setDefaultDisksBus(spec, "virtio");
  const watchdog = spec.domain.devices?.watchdog;
  if (!watchdog) return;
  const diag288 = (watchdog.diag288 ??= {});
  if (!diag288.action) diag288.action = "reset";
}
