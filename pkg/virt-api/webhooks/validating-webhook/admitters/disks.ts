// Rules for each disk of spec.domain.devices.disks (upstream pkg/storage/admitters/disks.go): unique names
// usable as container names, one target type, buses, serials, cache/io/error policies, block sizes, PCI
// addresses and boot order values. Some upstream field paths repeat the disks path (`field` is already
// `spec.domain.devices.disks` where upstream appends `domain.devices.disks` again); they are kept as-is so
// clients see exactly what KubeVirt reports.
import type { Disk } from "../../../../api/generated/v1.js";
import { invalidCause, notSupportedCause, type Path, type StatusCause } from "../../../../api/causes.js";
import { isDNS1123Label } from "../../../../util/k8s-validation.js";

const MAX_SERIAL_LENGTH = 256;
const MIN_CUSTOM_BLOCK_SIZE = 512;
const MAX_CUSTOM_BLOCK_SIZE = 2_097_152;
const SERIAL_CHARACTERS = /^[A-Za-z0-9_.+-]+$/;
const PCI_ADDRESS = /^([\da-fA-F]{4}):([\da-fA-F]{2}):([\da-fA-F]{2})\.([0-7]{1})$/;
const SUPPORTED_BUSES = ["virtio", "scsi", "sata", "usb"];
const CACHE_MODES = new Set(["none", "writethrough", "writeback"]);
const IO_MODES = new Set(["native", "threads"]);
const ERROR_POLICIES = new Set(["stop", "ignore", "report", "enospace"]);

type DiskType = "disk" | "lun" | "cdrom";

export const isPciAddress = (text: string): boolean => PCI_ADDRESS.test(text);

function diskType(disk: Disk): DiskType | "" {
  if (disk.disk !== undefined) return "disk";
  if (disk.lun !== undefined) return "lun";
  if (disk.cdrom !== undefined) return "cdrom";
  return "";
}

export function diskBus(disk: Disk): string {
  const type = diskType(disk);
  return type === "" ? "" : (disk[type]?.bus ?? "");
}

/** Upstream's ValidateDisks; `field` is `spec.domain.devices.disks`. */
export function validateDisks(field: Path, disks: readonly Disk[]): StatusCause[] {
  return disks.flatMap((disk, index) => [
    ...validateDiskName(field, index, disks),
    ...validateDeviceTarget(field, index, disk),
    ...validatePciAddress(field, index, disk),
    ...validateBootOrderValue(field, index, disk),
    ...validateBusSupport(field, index, disk),
    ...validateSerial(field, index, disk),
    ...validateCacheMode(field, index, disk),
    ...validateIOMode(field, index, disk),
    ...validateErrorPolicy(field, index, disk),
    // A disk name becomes a container name, which must be a DNS label to schedule.
    ...isDNS1123Label(disk.name).map((error) =>
      invalidCause(error, field.child("domain", "devices", "disks").index(index).child("name")),
    ),
    ...validateBlockSize(field, index, disk),
  ]);
}

function validateDiskName(field: Path, index: number, disks: readonly Disk[]): StatusCause[] {
  const name = disks[index]?.name;
  return disks
    .slice(0, index)
    .flatMap((other, otherIndex) =>
      other.name === name
        ? [
            invalidCause(
              `${field.index(index).toString()} and ${field.index(otherIndex).toString()} must not have the same Name.`,
              field.index(index).child("name"),
            ),
          ]
        : [],
    );
}

function validateDeviceTarget(field: Path, index: number, disk: Disk): StatusCause[] {
  const targets = [disk.disk, disk.lun, disk.cdrom].filter((target) => target !== undefined).length;
  // No target is fine (it defaults to a disk); more than one is not.
  if (targets <= 1) return [];
  return [
    invalidCause(
      `${field.index(index).toString()} can only have a single target type defined`,
      field.index(index),
    ),
  ];
}

function validatePciAddress(field: Path, index: number, disk: Disk): StatusCause[] {
  const address = disk.disk?.pciAddress ?? "";
  if (address === "") return [];
  const at = field.child("domain", "devices", "disks", "disk").index(index);
  const name = at.child("name").toString();
  const causes: StatusCause[] = [];
  if (disk.disk?.bus !== "virtio") {
    causes.push(
      invalidCause(
        `disk ${name} - setting a PCI address is only possible with bus type virtio.`,
        at.child("pciAddress"),
      ),
    );
  }
  if (!isPciAddress(address)) {
    causes.push(invalidCause(`disk ${name} has malformed PCI address (${address}).`, at.child("pciAddress")));
  }
  return causes;
}

function validateBootOrderValue(field: Path, index: number, disk: Disk): StatusCause[] {
  if (disk.bootOrder === undefined || disk.bootOrder >= 1) return [];
  return [
    invalidCause(
      `${field.index(index).toString()} must have a boot order > 0, if supplied`,
      field.index(index).child("bootOrder"),
    ),
  ];
}

function validateBusSupport(field: Path, index: number, disk: Disk): StatusCause[] {
  const bus = diskBus(disk);
  if (bus === "") return [];
  const type = diskType(disk);
  const causes: StatusCause[] = [];
  const busPath = field.index(index).child(type, "bus");
  if (bus === "ide") {
    causes.push(invalidCause("IDE bus is not supported", busPath));
  } else if (bus === "virtio") {
    // QEMU's q35 machines have no virtio CD-ROM.
    if (type === "cdrom") causes.push(invalidCause(`Bus type ${bus} is invalid for CD-ROM device`, busPath));
  } else if (bus === "sata") {
    if (disk.disk?.readonly === true) {
      causes.push(
        invalidCause(`${bus} hard-disks do not support read-only.`, field.index(index).child("disk", "bus")),
      );
    }
  } else if (bus !== "scsi" && bus !== "usb") {
    causes.push(
      invalidCause(
        `${field.index(index).toString()} is set with an unrecognized bus ${bus}, must be one of: [${SUPPORTED_BUSES.join(" ")}]`,
        busPath,
      ),
    );
  }
  if (disk.dedicatedIOThread === true && bus !== "virtio") {
    causes.push(
      notSupportedCause(
        `IOThreads are not supported for disks on a ${bus} bus`,
        field.child("domain", "devices", "disks").index(index),
      ),
    );
  }
  return causes;
}

function validateSerial(field: Path, index: number, disk: Disk): StatusCause[] {
  const serial = disk.serial ?? "";
  if (serial === "") return [];
  const causes: StatusCause[] = [];
  const at = field.index(index);
  if (!SERIAL_CHARACTERS.test(serial)) {
    causes.push(
      invalidCause(
        `${at.toString()} must be made up of the following characters [A-Za-z0-9_.+-], if specified`,
        at.child("serial"),
      ),
    );
  }
  if ([...serial].length > MAX_SERIAL_LENGTH) {
    causes.push(
      invalidCause(
        `${at.toString()} must be less than or equal to ${MAX_SERIAL_LENGTH} in length, if specified`,
        at.child("serial"),
      ),
    );
  }
  return causes;
}

function validateCacheMode(field: Path, index: number, disk: Disk): StatusCause[] {
  const cache = disk.cache ?? "";
  if (cache === "" || CACHE_MODES.has(cache)) return [];
  const at = field.index(index).child("cache");
  return [invalidCause(`${at.toString()} has invalid value ${cache}`, at)];
}

function validateIOMode(field: Path, index: number, disk: Disk): StatusCause[] {
  const io = disk.io ?? "";
  if (io === "" || IO_MODES.has(io)) return [];
  return [
    notSupportedCause(
      `Disk IO mode for ${field.toString()} is not supported. Supported modes are: native, threads.`,
      field.child("domain", "devices", "disks").index(index).child("io"),
    ),
  ];
}

function validateErrorPolicy(field: Path, index: number, disk: Disk): StatusCause[] {
  const policy = disk.errorPolicy;
  if (policy === undefined || ERROR_POLICIES.has(policy)) return [];
  const at = field.index(index).child("errorPolicy");
  return [invalidCause(`${at.toString()} has invalid value "${policy}"`, at)];
}

function validateCustomBlockSize(field: Path, index: number, kind: "logical" | "physical", size: number) {
  const at = field.index(index).child("blockSize", "custom", kind);
  if (size < MIN_CUSTOM_BLOCK_SIZE) {
    return [
      invalidCause(
        `Provided size of ${size} is less than the supported minimum size of ${MIN_CUSTOM_BLOCK_SIZE}`,
        at,
      ),
    ];
  }
  if (size > MAX_CUSTOM_BLOCK_SIZE) {
    return [
      invalidCause(
        `Provided size of ${size} is greater than the supported maximum size of ${MAX_CUSTOM_BLOCK_SIZE}`,
        at,
      ),
    ];
  }
  if ((size & (size - 1)) !== 0) return [invalidCause(`Provided size of ${size} is not a power of 2`, at)];
  return [];
}

function validateBlockSize(field: Path, index: number, disk: Disk): StatusCause[] {
  const custom = disk.blockSize?.custom;
  if (custom === undefined) return [];
  const blockSize = field.index(index).child("blockSize");
  const matchVolume = disk.blockSize?.matchVolume;
  if (matchVolume !== undefined && matchVolume.enabled !== false) {
    return [invalidCause("Block size matching can't be enabled together with a custom value", blockSize)];
  }
  const logical = custom.logical ?? 0;
  const physical = custom.physical ?? 0;
  const logicalPath = blockSize.child("custom", "logical");
  if (logical > physical) {
    return [
      invalidCause(
        `Logical size ${logical} must be the same or less than the physical size of ${physical}`,
        logicalPath,
      ),
    ];
  }
  if (diskBus(disk) === "sata" && logical !== MIN_CUSTOM_BLOCK_SIZE) {
    // QEMU's emulated SATA controllers only support 512-byte logical blocks.
    return [
      invalidCause(`Logical size ${logical} must be ${MIN_CUSTOM_BLOCK_SIZE} for SATA devices`, logicalPath),
    ];
  }
  const granularity = custom.discardGranularity;
  if (granularity !== undefined && logical !== 0 && granularity % logical !== 0) {
    return [
      invalidCause(
        `Discard granularity ${granularity} must be multiples of logical size ${logical}`,
        blockSize.child("custom", "discardGranularity"),
      ),
    ];
  }
  return [
    ...validateCustomBlockSize(field, index, "logical", logical),
    ...validateCustomBlockSize(field, index, "physical", physical),
  ];
}

/** Upstream's ValidatePath: an absolute path to a file, without `.`/`..` or doubled slashes. */
export function validatePath(field: Path, path: string): StatusCause[] {
  if (path === "/") return [invalidCause(`${field.toString()} must not point to root`, field)];
  const provided = path.replace(/\/+$/, "");
  if (cleanAbsolute(path) === provided) return [];
  return [
    invalidCause(`${field.toString()} must be an absolute path to a file without relative components`, field),
  ];
}

/** Go's filepath.Join("/", path): lexically cleaned and rooted. */
function cleanAbsolute(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}
