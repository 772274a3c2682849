// amd64 defaults (upstream pkg/defaults/amd64.go).
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import { setDefaultDisksBus } from "./disk-bus.js";

/**
 * SATA works out of the box in most guests, and q35 (the only machine type supported) has no IDE.
 */
export const DefaultAmd64DiskBus = "sata";

export function setAmd64Watchdog(spec: VirtualMachineInstanceSpec): void {
  const watchdog = spec.domain.devices?.watchdog;
  if (!watchdog) return;
  const i6300esb = (watchdog.i6300esb ??= {});
  if (!i6300esb.action) i6300esb.action = "reset";
}

export function setAmd64Defaults(spec: VirtualMachineInstanceSpec): void {
  setDefaultDisksBus(spec, DefaultAmd64DiskBus);
  setAmd64Watchdog(spec);
}
