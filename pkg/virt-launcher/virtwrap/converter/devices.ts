// The remaining devices (upstream converter/compute/{console,channels,rng,balloon,graphics,
// input_device,controllers}.go): serial console on a unix socket, the guest agent channel, RNG,
// memory balloon, VNC on a unix socket, input devices the VMI asks for, and the controllers.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Controller, DomainSpec, Input, Serial } from "../api/schema.js";
import { newUserDefinedAlias } from "../api/schema.js";
import type { ConverterContext } from "./context.js";
import { ConversionError } from "./errors.js";
import { virtioModel } from "./virtio.js";

export const FreePageReportingDisabledAnnotation = "kubevirt.io/free-page-reporting-disabled";
export const DisablePCIHole64Annotation = "kubevirt.io/disablePCIHole64";
export const GuestAgentChannelName = "org.qemu.guest_agent.0";

const SerialPort = 0;
const DefaultVideoHeads = 1;
const DefaultVideoVRAM = 16384;

const serialConsoleAttached = (vmi: VirtualMachineInstance): boolean =>
  vmi.spec.domain.devices.autoattachSerialConsole !== false;

/** The VMI's own choice wins; otherwise the cluster's (upstream's isSerialConsoleLogEnabled). */
export function serialConsoleLogEnabled(vmi: VirtualMachineInstance, clusterDisabled: boolean): boolean {
  const own = vmi.spec.domain.devices.logSerialConsole;
  return own ?? !clusterDisabled;
}

export function configureConsole(
  vmi: VirtualMachineInstance,
  context: ConverterContext,
  spec: DomainSpec,
): void {
  if (!serialConsoleAttached(vmi)) return;
  // The console is the guest's first serial port; libvirt merges the two.
  spec.devices.consoles = [{ type: "pty", target: { type: "serial", port: SerialPort } }];
  const serial: Serial = {
    type: "unix",
    target: { port: SerialPort },
    source: { mode: "bind", path: context.serialConsoleSocket },
  };
  if (serialConsoleLogEnabled(vmi, context.serialConsoleLogDisabled)) {
    serial.log = { file: `${context.serialConsoleSocket}-log`, append: "on" };
  }
  spec.devices.serials = [serial];
}

export function configureChannels(spec: DomainSpec): void {
  // No source path: libvirt picks the socket for the guest agent channel itself.
  spec.devices.channels = [{ type: "unix", target: { name: GuestAgentChannelName, type: "virtio" } }];
}

export function configureRng(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  if (!vmi.spec.domain.devices.rng) return;
  spec.devices.rng = { model: virtioModel(vmi), backend: { model: "random", source: "/dev/urandom" } };
}

function annotation(vmi: VirtualMachineInstance, key: string): string | undefined {
  const annotations = vmi.metadata?.annotations;
  return annotations && Object.hasOwn(annotations, key) ? annotations[key] : undefined;
}

/** Upstream's isFreePageReportingEnabled (high-performance VMIs are outside the subset). */
export function freePageReportingEnabled(vmi: VirtualMachineInstance, clusterDisabled: boolean): boolean {
  return (
    !clusterDisabled &&
    vmi.spec.domain.devices.autoattachMemBalloon !== false &&
    annotation(vmi, FreePageReportingDisabledAnnotation) !== "true"
  );
}

export function configureBalloon(
  vmi: VirtualMachineInstance,
  context: ConverterContext,
  spec: DomainSpec,
): void {
  if (vmi.spec.domain.devices.autoattachMemBalloon === false) {
    spec.devices.ballooning = { model: "none" };
    return;
  }
  spec.devices.ballooning = {
    model: virtioModel(vmi),
    freePageReporting: freePageReportingEnabled(vmi, context.freePageReportingDisabled) ? "on" : "off",
  };
  if (context.memBalloonStatsPeriod > 0)
    spec.devices.ballooning.stats = { period: context.memBalloonStatsPeriod };
}

export function configureGraphics(
  vmi: VirtualMachineInstance,
  context: ConverterContext,
  spec: DomainSpec,
): void {
  if (vmi.spec.domain.devices.autoattachGraphicsDevice === false) return;
  spec.devices.graphics = [{ type: "vnc", listen: { type: "socket", socket: context.vncSocket } }];
  // BIOS guests on amd64 get VGA unless the VMI names a video type.
  const type = vmi.spec.domain.devices.video?.type || "vga";
  spec.devices.video = [{ model: { type, heads: DefaultVideoHeads, vram: DefaultVideoVRAM } }];
}

export function configureInputs(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const inputs = vmi.spec.domain.devices.inputs;
  if (!inputs) return;
  spec.devices.inputs = inputs.map((input): Input => {
    const bus = input.bus || "usb";
    if (bus !== "usb" && bus !== "virtio")
      throw new ConversionError(`input contains unsupported bus ${input.bus}`);
    if (input.type !== "tablet") throw new ConversionError(`input contains unsupported type ${input.type}`);
    const converted: Input = { type: input.type, bus, alias: newUserDefinedAlias(input.name) };
    if (bus === "virtio") converted.model = "virtio";
    return converted;
  });
}

function usbNeeded(vmi: VirtualMachineInstance): boolean {
  const devices = vmi.spec.domain.devices;
  return (
    (devices.inputs ?? []).some((input) => !input.bus || input.bus === "usb") ||
    (devices.disks ?? []).some((disk) => disk.disk?.bus === "usb")
  );
}

function scsiNeeded(vmi: VirtualMachineInstance): boolean {
  const devices = vmi.spec.domain.devices;
  // Upstream keeps a SCSI controller for disk hotplug unless hotplug is disabled.
  return (
    !devices.disableHotplug ||
    (devices.disks ?? []).some((disk) => (disk.disk ?? disk.cdrom ?? disk.lun)?.bus === "scsi")
  );
}

export function configureControllers(vmi: VirtualMachineInstance, spec: DomainSpec): void {
  const controllers: Controller[] = [
    { type: "usb", index: "0", model: usbNeeded(vmi) ? "qemu-xhci" : "none" },
  ];
  if (scsiNeeded(vmi)) controllers.push({ type: "scsi", index: "0", model: virtioModel(vmi) });
  if (annotation(vmi, DisablePCIHole64Annotation)?.toLowerCase() === "true") {
    controllers.push({ type: "pci", index: "0", model: "pcie-root", pciHole64: { value: 0, unit: "KiB" } });
  }
  if (serialConsoleAttached(vmi))
    controllers.push({ type: "virtio-serial", index: "0", model: virtioModel(vmi) });
  spec.devices.controllers = controllers;
}
