// Disks (upstream converter.go Convert_v1_Disk_To_api_Disk and its callers): each VMI disk becomes
// a libvirt <disk> (a disk, a SCSI LUN or a CD-ROM) whose target name (vda, sda, ...) comes from its
// bus, and whose source is what the launcher has for its volume (volume-sources.ts).
import type { Disk as VMIDisk, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { VolumePhase } from "../../../storage/types/volume.js";
import type { Disk, DiskDriver, DomainSpec } from "../api/schema.js";
import { newUserDefinedAlias } from "../api/schema.js";
import { cpuTopology, requestedVCPUs } from "./compute.js";
import type { ConverterContext } from "./context.js";
import { ConversionError, positiveInteger } from "./errors.js";
import type { DiskWithDriver } from "./volume-sources.js";
import { attachHotplugVolume, attachVolume } from "./volume-sources.js";
import { virtioModel } from "./virtio.js";

const ErrorPolicies = ["stop", "ignore", "report", "enospace"];
const DefaultErrorPolicy = "stop";

function prefixFromBus(bus: string | undefined, diskName: string): string {
  switch (bus) {
    case "virtio":
      return "vd";
    case "sata":
    case "scsi":
    case "usb":
      return "sd";
    default:
      throw new ConversionError(`disk ${diskName} has an unrecognized bus '${bus ?? ""}'`);
  }
}

function busOf(disk: VMIDisk): string | undefined {
  return (disk.lun ?? disk.disk ?? disk.cdrom)?.bus;
}

/** The Linux sd naming: a..z, aa..az, ... */
export function formatDeviceName(prefix: string, index: number): string {
  let name = "";
  for (let i = index; i >= 0; i = Math.floor(i / 26) - 1) name = String.fromCharCode(97 + (i % 26)) + name;
  return prefix + name;
}

/** The index a name like "sdab" stands for under its prefix (-1 when it is not such a name). */
export function deviceNameIndex(prefix: string, device: string): number {
  const letters = device.slice(prefix.length);
  if (!device.startsWith(prefix) || !/^[a-z]+$/.test(letters)) return -1;
  let index = 0;
  for (const letter of letters) index = index * 26 + (letter.charCodeAt(0) - 96);
  return index - 1;
}

/**
 * Hands out target names. Targets already recorded in the VMI status are kept, so a disk keeps
 * its name across restarts and migrations; new disks take the first free name of their prefix.
 */
export class DeviceNamer {
  private readonly recorded = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(vmi: VirtualMachineInstance) {
    const disks = new Set((vmi.spec.domain.devices.disks ?? []).map((disk) => disk.name));
    for (const status of vmi.status?.volumeStatus ?? []) {
      if (!status.target || !disks.has(status.name)) continue;
      this.recorded.set(status.name, status.target);
      this.used.add(status.target);
    }
  }

  /** The target name and its index (the SCSI unit). */
  next(diskName: string, prefix: string): { device: string; index: number } {
    const recorded = this.recorded.get(diskName);
    const recordedIndex = recorded === undefined ? -1 : deviceNameIndex(prefix, recorded);
    if (recorded !== undefined && recordedIndex >= 0) return { device: recorded, index: recordedIndex };
    for (let index = 0; ; index++) {
      const device = formatDeviceName(prefix, index);
      if (this.used.has(device)) continue;
      this.used.add(device);
      return { device, index };
    }
  }
}

function convertDiskDevice(vmi: VirtualMachineInstance, source: VMIDisk, namer: DeviceNamer): DiskWithDriver {
  const bus = busOf(source);
  const prefix = prefixFromBus(bus, source.name);
  const { device, index } = namer.next(source.name, prefix);
  const driver: DiskDriver = {
    name: "qemu",
    type: "",
    cache: source.cache || undefined,
    io: source.io || undefined,
  };
  const disk: DiskWithDriver = { device: "disk", type: "", source: {}, target: { bus, device }, driver };
  // The one SCSI controller the converter adds has index 0.
  const scsiAddress = { type: "drive", controller: "0", bus: "0", unit: String(index) };
  if (source.disk) {
    if (bus === "scsi") disk.address = scsiAddress;
    if (bus === "virtio") disk.model = virtioModel(vmi);
    if (source.disk.readonly) disk.readOnly = {};
    if (source.serial) disk.serial = source.serial;
  } else if (source.lun) {
    disk.device = "lun";
    if (bus === "scsi") disk.address = scsiAddress;
    if (source.lun.readonly) disk.readOnly = {};
  } else if (source.cdrom) {
    disk.device = "cdrom";
    if (source.cdrom.tray) disk.target.tray = source.cdrom.tray;
    if (source.cdrom.readonly !== false) disk.readOnly = {};
  } else {
    throw new ConversionError(`disk ${source.name} is neither a disk, a lun nor a cdrom`);
  }
  if (source.disk || source.lun) driver.discard = "unmap";
  if (vmi.spec.domain.devices.blockMultiQueue && bus === "virtio") {
    driver.queues = Math.max(requestedVCPUs(cpuTopology(vmi)), 1);
  }
  disk.alias = newUserDefinedAlias(source.name);
  if (source.bootOrder) {
    disk.bootOrder = { order: positiveInteger(source.bootOrder, `disk ${source.name} bootOrder`) };
  }
  return disk;
}

/** A CD-ROM drive without a volume: an empty tray. */
function attachNoMedium(disk: DiskWithDriver): void {
  disk.type = "block";
  disk.driver.type = "raw";
  disk.driver.discard = "unmap";
}

function setErrorPolicy(source: VMIDisk, disk: DiskWithDriver): void {
  const policy = source.errorPolicy ?? DefaultErrorPolicy;
  if (!ErrorPolicies.includes(policy)) throw new ConversionError(`error policy ${policy} not recognized`);
  disk.driver.errorPolicy = policy;
}

/**
 * The VMI's disks. A hotplugged volume becomes a disk once virt-handler has mounted it in the pod
 * (phase MountedToPod or Ready); any other volume once it has a status, or, before any volume has
 * one, at once (upstream PermanentVolumes).
 */
export function configureDisks(
  vmi: VirtualMachineInstance,
  context: ConverterContext,
  spec: DomainSpec,
): void {
  const volumes = new Map((vmi.spec.volumes ?? []).map((volume) => [volume.name, volume]));
  const namer = new DeviceNamer(vmi);
  const disks: Disk[] = [];
  for (const source of vmi.spec.domain.devices.disks ?? []) {
    const disk = convertDiskDevice(vmi, source, namer);
    const volume = volumes.get(source.name);
    const hotplugStatus = context.hotplugVolumes.get(source.name);
    const emptyCDRom = volume === undefined && source.cdrom !== undefined;
    if (emptyCDRom) attachNoMedium(disk);
    else if (!volume) throw new ConversionError(`no matching volume with name ${source.name} found`);
    else if (hotplugStatus) attachHotplugVolume(volume, context, disk);
    else attachVolume(volume, context, disk);
    // libvirt passes SCSI commands through to a block device only.
    if (disk.device === "lun" && disk.type !== "block") {
      throw new ConversionError(
        `device ${source.name} is of type lun. Not compatible with a file based disk`,
      );
    }
    setErrorPolicy(source, disk);
    const { permanentVolumes } = context;
    const permanentReady = permanentVolumes.has(source.name) || permanentVolumes.size === 0;
    const phase = hotplugStatus?.phase;
    const hotplugReady = phase === VolumePhase.MountedToPod || phase === VolumePhase.Ready;
    if (permanentReady || hotplugReady || emptyCDRom) disks.push(disk);
  }
  if (disks.length > 0) spec.devices.disks = disks;
}
