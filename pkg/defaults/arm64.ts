// arm64 defaults (upstream pkg/defaults/arm64.go). This port runs on amd64; these only keep specs
// that name another architecture from getting amd64's answers.
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import { setDefaultDisksBus } from "./disk-bus.js";

export const DefaultArm64CPUModel = "host-passthrough";

export function isARM64(spec: VirtualMachineInstanceSpec): boolean {
  return spec.architecture === "arm64";
}

function setDefaultArm64Bootloader(spec: VirtualMachineInstanceSpec): void {
  const firmware = (spec.domain.firmware ??= {});
  if (!firmware.bootloader) firmware.bootloader = { efi: {} };
  const efi = firmware.bootloader.efi;
  if (efi && (efi.secureBoot === undefined || efi.secureBoot === null)) efi.secureBoot = false;
}

export function setArm64Defaults(spec: VirtualMachineInstanceSpec): void {
  const cpu = (spec.domain.cpu ??= {});
  if (!cpu.model) cpu.model = DefaultArm64CPUModel;
  setDefaultArm64Bootloader(spec);
  // QEMU on arm64 has no SATA.
  setDefaultDisksBus(spec, "virtio");
}
