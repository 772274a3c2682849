// virtctl addvolume and removevolume (upstream pkg/virtctl/vm/add_volume.go and remove_volume.go): the
// request goes to the VM's subresource, or to the VMI's when there is no VM of that name (a standalone
// VMI); a refusal in the apiserver's generic "error in our request" words is retried a few times.
import type {
  AddVolumeOptions,
  Disk,
  HotplugVolumeSource,
  RemoveVolumeOptions,
} from "../../api/generated/v1.js";
import { isNotFound } from "../../controller/api-error.js";
import { errorMessage } from "../../util/error-message.js";
import type { Command, CommandContext } from "../command.js";
import { helpFlag, type FlagSpec } from "../flags.js";
import type { SubresourceClient } from "../kubecli/subresources.js";
import { dryRunFlag, dryRunOption } from "./common.js";

const VOLUME_NAME = "volume-name";
/** Upstream retries only this refusal, the apiserver's generic words for a 422 without a message. */
export const CONCURRENT_ERROR = "the server rejected our request due to an error in our request";
export const MAX_RETRIES = 15;
const CACHE_MODES = ["none", "writethrough", "writeback"];

const volumeNameFlag: FlagSpec = {
  name: VOLUME_NAME,
  kind: "string",
  defaultValue: "",
  usage: "name used in volumes section of spec",
};
const persistFlag: FlagSpec = {
  name: "persist",
  kind: "bool",
  defaultValue: false,
  usage: "[deprecated] this flag has no effect and will be removed in a future release",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PUTs the options to the VM's subresource, else (no such VM) the VMI's, retrying the concurrent refusal;
 * any other failure is thrown with `prefix`.
 */
async function submit(
  client: SubresourceClient,
  name: string,
  verb: "addvolume" | "removevolume",
  options: AddVolumeOptions | RemoveVolumeOptions,
  failure: string,
): Promise<void> {
  for (let retry = 0; retry < MAX_RETRIES;) {
    try {
      try {
        await client.put(client.subresourcePath("virtualmachines", name, verb), options);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await client.put(client.subresourcePath("virtualmachineinstances", name, verb), options);
      }
      return;
    } catch (error) {
      const message = errorMessage(error);
      if (message !== CONCURRENT_ERROR) throw new Error(`${failure}, ${message}`);
    }
    retry++;
    if (retry < MAX_RETRIES) await sleep(retry * Math.floor(Math.random() * 5));
  }
  throw new Error(`${failure} after ${MAX_RETRIES} retries`);
}

/** A DataVolume of that name if there is one, else a PVC; both hotpluggable. */
async function volumeSourceOf(client: SubresourceClient, volumeName: string): Promise<HotplugVolumeSource> {
  try {
    await client.getJson(client.namespacedPath("cdi.kubevirt.io/v1beta1", "datavolumes", volumeName));
    return { dataVolume: { name: volumeName, hotpluggable: true } };
  } catch {
    // Not a DataVolume (or no CDI): try the claim.
  }
  try {
    await client.getJson(client.namespacedPath("v1", "persistentvolumeclaims", volumeName));
    return { persistentVolumeClaim: { claimName: volumeName, hotpluggable: true } };
  } catch {
    throw new Error(`error adding volume, Volume ${volumeName} is not a DataVolume or PersistentVolumeClaim`);
  }
}

/** The disk to hotplug as the flags describe it, with upstream's refusals. */
export function hotplugDisk(
  diskType: string,
  bus: string,
  serial: string,
  cache: string,
  volumeName: string,
): Disk {
  // The name is the volume's; virt-api sets it.
  const disk: Disk = { name: "" };
  if (diskType === "disk") {
    if (bus !== "scsi" && bus !== "virtio")
      throw new Error(`Invalid bus type '${bus}' for disk. Only 'scsi' and 'virtio' are supported.`);
    disk.disk = { bus };
  } else if (diskType === "lun") {
    if (bus !== "scsi")
      throw new Error(`Invalid bus type '${bus}' for LUN disk. Only 'scsi' bus is supported.`);
    disk.lun = { bus };
  } else {
    throw new Error(`Invalid disk type '${diskType}'. Only LUN and Disk are supported.`);
  }
  disk.serial = serial !== "" ? serial : volumeName;
  if (cache !== "") {
    if (!CACHE_MODES.includes(cache)) throw new Error(`error adding volume, invalid cache value ${cache}`);
    disk.cache = cache;
  }
  return disk;
}

async function addVolume(context: CommandContext): Promise<void> {
  const [vmiName = ""] = context.args;
  const volumeName = context.flags.string(VOLUME_NAME);
  const { client } = await context.client();
  const dryRun = dryRunOption(context);
  const volumeSource = await volumeSourceOf(client, volumeName);
  const { flags } = context;
  const disk = hotplugDisk(
    flags.string("disk-type"),
    flags.string("bus"),
    flags.string("serial"),
    flags.string("cache"),
    volumeName,
  );
  const options: AddVolumeOptions = { name: volumeName, disk, volumeSource };
  if (dryRun) options.dryRun = dryRun;
  await submit(client, vmiName, "addvolume", options, "error adding volume");
  context.io.stdout.write(
    `Successfully submitted add volume request to VM ${vmiName} for volume ${volumeName}\n`,
  );
}

async function removeVolume(context: CommandContext): Promise<void> {
  const [vmiName = ""] = context.args;
  const volumeName = context.flags.string(VOLUME_NAME);
  const { client } = await context.client();
  const dryRun = dryRunOption(context);
  const options: RemoveVolumeOptions = { name: volumeName };
  if (dryRun) options.dryRun = dryRun;
  await submit(client, vmiName, "removevolume", options, "error removing volume");
  context.io.stdout.write(
    `Successfully submitted remove volume request to VM ${vmiName} for volume ${volumeName}\n`,
  );
}

const ADD_EXAMPLE = `	#Dynamically attach a volume to a running VM giving it a serial number to identify the volume inside the guest.
  {{ProgramName}} addvolume fedora-dv --volume-name=example-dv --serial=1234567890

  #Dynamically attach a volume to a running VM, persisting it in the VM spec. At next VM restart the volume will be attached like any other volume.
  {{ProgramName}} addvolume fedora-dv --volume-name=example-dv

  #[deprecated]: Dynamically attach a volume to a running VM and persisting it in the VM spec. At next VM restart the volume will be attached like any other volume.
  --persist flag has no effect and will be removed in future release. New default behavior will be to persist in VM spec even if flag is not provided.
  {{ProgramName}} addvolume fedora-dv --volume-name=example-dv --persist

  #Dynamically attach a volume with 'none' cache attribute to a running VM.
  {{ProgramName}} addvolume fedora-dv --volume-name=example-dv --cache=none
  `;

const REMOVE_EXAMPLE = `  #Remove volume dynamically attached to a running VM and persisting it in the VM spec.
  {{ProgramName}} removevolume fedora-dv --volume-name=example-dv
  
  #[deprecated] Remove volume dynamically attached to a running VM and persisting it in the VM spec.
  --persist flag has no effect and will be removed in future release. New default behavior will be to persist in VM spec even if flag is not provided.
  {{ProgramName}} removevolume fedora-dv --volume-name=example-dv --persist
  `;

export const addVolumeCommand: Command = {
  name: "addvolume",
  use: "addvolume VMI",
  short: "add a volume to a running VM",
  example: ADD_EXAMPLE,
  flags: [
    volumeNameFlag,
    {
      name: "serial",
      kind: "string",
      defaultValue: "",
      usage: "serial number you want to assign to the disk",
    },
    {
      name: "cache",
      kind: "string",
      defaultValue: "",
      usage: "caching options attribute control the cache mechanism",
    },
    persistFlag,
    dryRunFlag,
    {
      name: "disk-type",
      kind: "string",
      defaultValue: "disk",
      usage: "specifies disk type to be hotplugged (disk/lun). Disk by default.",
    },
    { name: "bus", kind: "string", defaultValue: "scsi", usage: "specifies disk bus. scsi by default." },
    helpFlag("addvolume"),
  ],
  argCount: 1,
  requiredFlags: [VOLUME_NAME],
  run: addVolume,
};

export const removeVolumeCommand: Command = {
  name: "removevolume",
  use: "removevolume VMI",
  short: "remove a volume from a running VM",
  example: REMOVE_EXAMPLE,
  flags: [volumeNameFlag, persistFlag, dryRunFlag, helpFlag("removevolume")],
  argCount: 1,
  requiredFlags: [VOLUME_NAME],
  run: removeVolume,
};
