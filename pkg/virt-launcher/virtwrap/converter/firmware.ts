// The <os> element (machine type, BIOS, direct kernel boot, boot menu) and SMBIOS <sysinfo>
// (upstream converter/compute/{os,sysinfo}.go). BIOS is the firmware unless the VMI says otherwise;
// EFI is outside the implemented subset.
import { posix } from "node:path";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { DomainSpec, Entry } from "../api/schema.js";
import type { ConverterContext, SMBios } from "./context.js";

const BootMenuTimeoutMS = 10_000;

function configureKernelBoot(vmi: VirtualMachineInstance, context: ConverterContext, spec: DomainSpec): void {
  const kernelBoot = vmi.spec.domain.firmware?.kernelBoot;
  if (!kernelBoot) return;
  const container = kernelBoot.container;
  // The kernel-boot container's files are copied out under their base names.
  if (container?.kernelPath)
    spec.os.kernel = posix.join(context.kernelBootDir, posix.basename(container.kernelPath));
  if (container?.initrdPath)
    spec.os.initrd = posix.join(context.kernelBootDir, posix.basename(container.initrdPath));
  // Arguments apply even without a kernel-boot container.
  if (kernelBoot.kernelArgs) spec.os.kernelArgs = kernelBoot.kernelArgs;
}

export function configureOS(vmi: VirtualMachineInstance, context: ConverterContext, spec: DomainSpec): void {
  if (vmi.spec.domain.firmware?.bootloader?.bios?.useSerial) spec.os.bios = { useSerial: "yes" };
  configureKernelBoot(vmi, context, spec);
  // amd64 guests read their identity from SMBIOS, filled from <sysinfo>.
  spec.os.smbios = { mode: "sysinfo" };
  const machine = vmi.spec.domain.machine?.type;
  if (machine) spec.os.type.machine = machine;
  // A VMI started paused gets a boot menu, so there is time to reach the BIOS.
  if (vmi.spec.startStrategy === "Paused") spec.os.bootMenu = { enable: "yes", timeout: BootMenuTimeoutMS };
}

function systemEntries(vmi: VirtualMachineInstance, smbios: SMBios | undefined): Entry[] {
  const entries: Entry[] = [];
  const firmware = vmi.spec.domain.firmware;
  if (firmware) {
    entries.push({ name: "uuid", value: firmware.uuid ?? "" });
    if (firmware.serial) entries.push({ name: "serial", value: firmware.serial });
  }
  if (smbios) {
    entries.push(
      { name: "manufacturer", value: smbios.manufacturer },
      { name: "family", value: smbios.family },
      { name: "product", value: smbios.product },
      { name: "sku", value: smbios.sku },
      { name: "version", value: smbios.version },
    );
  }
  return entries;
}

function chassisEntries(vmi: VirtualMachineInstance): Entry[] | undefined {
  const chassis = vmi.spec.domain.chassis;
  if (!chassis) return undefined;
  return [
    { name: "manufacturer", value: chassis.manufacturer ?? "" },
    { name: "version", value: chassis.version ?? "" },
    { name: "serial", value: chassis.serial ?? "" },
    { name: "asset", value: chassis.asset ?? "" },
    { name: "sku", value: chassis.sku ?? "" },
  ];
}

export function configureSysInfo(
  vmi: VirtualMachineInstance,
  context: ConverterContext,
  spec: DomainSpec,
): void {
  spec.sysInfo = {
    type: "smbios",
    system: systemEntries(vmi, context.smbios),
    chassis: chassisEntries(vmi),
  };
}
