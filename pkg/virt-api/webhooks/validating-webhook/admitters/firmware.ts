// Firmware rules of a VMI spec (upstream vmi-create-admitter.go): EFI and BIOS are exclusive, SecureBoot
// needs SMM (except under TDX), kernel boot needs an image with a kernel or initrd at a clean absolute
// path, and ACPI tables refer to Secret volumes.
import type {
  DomainSpec,
  Firmware,
  KernelBoot,
  VirtualMachineInstanceSpec,
} from "../../../../api/generated/v1.js";
import { invalidCause, requiredCause, type Path, type StatusCause } from "../../../../api/causes.js";
import { validatePath } from "./disks.js";

export function validateFirmwareACPI(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const acpi = spec.domain.firmware?.acpi;
  if (acpi === undefined) return [];
  const slic = acpi.slicNameRef ?? "";
  const msdm = acpi.msdmNameRef ?? "";
  if (slic === "" && msdm === "") {
    return [invalidCause("ACPI was set but no SLIC nor MSDM volume reference was set", field)];
  }
  return [
    ...validateACPIReference(field, slic, spec, "slicNameRef"),
    ...validateACPIReference(field, msdm, spec, "msdmNameRef"),
  ];
}

function validateACPIReference(
  field: Path,
  name: string,
  spec: VirtualMachineInstanceSpec,
  member: "slicNameRef" | "msdmNameRef",
): StatusCause[] {
  if (name === "") return [];
  const volume = (spec.volumes ?? []).find((candidate) => candidate.name === name);
  if (volume?.secret !== undefined) return [];
  const problem =
    volume === undefined ? "does not have a matching Volume." : "refers to Volume of unsupported type.";
  return [invalidCause(`${field.toString()} ${problem}`, field.child(member))];
}

function validateKernelBoot(field: Path, kernelBoot: KernelBoot | undefined): StatusCause[] {
  if (kernelBoot === undefined) return [];
  const container = kernelBoot.container;
  if (container === undefined) {
    if ((kernelBoot.kernelArgs ?? "") === "") return [];
    return [
      invalidCause(
        "kernel arguments cannot be provided without an external kernel",
        field.child("kernelArgs"),
      ),
    ];
  }
  const at = field.child("container");
  const causes: StatusCause[] = [];
  if (container.image === "") {
    causes.push(requiredCause(`${at.toString()} must be defined with an image`, at.child("image")));
  }
  const kernelPath = container.kernelPath ?? "";
  const initrdPath = container.initrdPath ?? "";
  if (kernelPath === "" && initrdPath === "") {
    causes.push(
      requiredCause(
        `${at.toString()} must be defined with at least one of the following: kernelPath, initrdPath`,
        at,
      ),
    );
  }
  if (kernelPath !== "") causes.push(...validatePath(at.child("kernelPath"), kernelPath));
  if (initrdPath !== "") causes.push(...validatePath(at.child("initrdPath"), initrdPath));
  return causes;
}

/** Upstream's validateFirmware: the bootloader and kernel boot rules (presets reuse them). */
export function validateFirmware(field: Path, firmware: Firmware | undefined): StatusCause[] {
  if (firmware === undefined) return [];
  const causes: StatusCause[] = [];
  const bootloader = firmware.bootloader;
  if (bootloader?.efi !== undefined && bootloader.bios !== undefined) {
    const at = field.child("bootloader");
    causes.push(
      invalidCause(`${at.toString()} has both EFI and BIOS configured, but they are mutually exclusive.`, at),
    );
  }
  causes.push(...validateKernelBoot(field.child("kernelBoot"), firmware.kernelBoot));
  return causes;
}

function secureBootEnabled(domain: DomainSpec): boolean {
  const efi = domain.firmware?.bootloader?.efi;
  return efi !== undefined && efi.secureBoot !== false;
}

function smmEnabled(domain: DomainSpec): boolean {
  const smm = domain.features?.smm;
  return smm !== undefined && smm.enabled !== false;
}

/** Firmware rules of upstream's validateDomainSpec; `field` is `spec.domain` (the disk rules live in disks.ts). */
export function validateDomainFirmware(field: Path, domain: DomainSpec): StatusCause[] {
  const causes = validateFirmware(field.child("firmware"), domain.firmware);
  // TDX firmware carries its SecureBoot keys in ROM and needs no SMM to guard variable writes.
  const tdx = domain.launchSecurity?.tdx !== undefined;
  if (secureBootEnabled(domain) && !smmEnabled(domain) && !tdx) {
    causes.push(
      invalidCause(
        `${field.toString()} has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.`,
        field,
      ),
    );
  }
  return causes;
}
