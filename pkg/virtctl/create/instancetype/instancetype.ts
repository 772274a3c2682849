// virtctl create instancetype (upstream pkg/virtctl/create/instancetype): prints a
// VirtualMachineClusterInstancetype manifest, or a namespaced VirtualMachineInstancetype with
// --namespaced or -n, as YAML for `kubectl create -f -`. Nothing is sent to the cluster.
import type { VirtualMachineInstancetypeSpec } from "../../../api/generated/v1beta1.js";
import { QuantityParseError } from "../../../defaults/quantity.js";
import { marshalGoYaml } from "../../../util/go-yaml.js";
import type { Command, CommandContext } from "../../command.js";
import type { FlagSpec } from "../../flags.js";
import { helpFlag } from "../../flags.js";
import { flagError, mapParams, parseGoQuantity } from "../params/params.js";
import { namespaceOf, randomSuffix } from "../vm/vm.js";

export const CPU_FLAG = "cpu";
export const MEMORY_FLAG = "memory";
export const GPU_FLAG = "gpu";
export const HOST_DEVICE_FLAG = "hostdevice";
export const IO_THREADS_POLICY_FLAG = "iothreadspolicy";
export const NAME_FLAG = "name";
export const NAMESPACED_FLAG = "namespaced";

export const INSTANCETYPE_API_VERSION = "instancetype.kubevirt.io/v1beta1";

// The trailing blanks on the separating lines are upstream's, kept so the help matches byte for byte.
const EXAMPLE = [
  "  # Create a manifest for a ClusterInstancetype with a random name:",
  "  {{ProgramName}} create instancetype --cpu 2 --memory 256Mi",
  "  ",
  "  # Create a manifest for a ClusterInstancetype with a specified name:",
  "  {{ProgramName}} create instancetype --name my-instancetype --cpu 2 --memory 256Mi",
  "",
  "  # Create a manifest for a ClusterInstancetype with a specified gpu:",
  "  {{ProgramName}} create instancetype --cpu 2 --memory 256Mi --gpu name:gpu1,devicename:nvidia",
  "  ",
  "  # Create a manifest for a Instancetype with a specified name and cpu:",
  "  {{ProgramName}} create instancetype --namespaced --name my-instancetype --cpu 2 --memory 256Mi",
  "  ",
  "  # Create a manifest for a ClusterInstancetype and use it to create a resource with kubectl",
  "  {{ProgramName}} create instancetype --cpu 2 --memory 256Mi | kubectl create -f -",
].join("\n");

const FLAGS: FlagSpec[] = [
  { name: NAME_FLAG, kind: "string", defaultValue: "", usage: "Specify the name of the Instancetype." },
  {
    name: CPU_FLAG,
    kind: "uint32",
    defaultValue: 0,
    usage: "Specify the count of CPUs of the Instancetype.",
  },
  {
    name: MEMORY_FLAG,
    kind: "string",
    defaultValue: "",
    usage: "Specify the amount of memory of the Instancetype.",
  },
  {
    name: IO_THREADS_POLICY_FLAG,
    kind: "string",
    defaultValue: "",
    usage: 'Specify IOThreadsPolicy to be used. Only valid values are "auto" and "shared".',
  },
  {
    name: NAMESPACED_FLAG,
    kind: "bool",
    defaultValue: false,
    usage:
      "Specify if VirtualMachineInstancetype should be created. By default VirtualMachineClusterInstancetype is created.",
  },
  {
    name: GPU_FLAG,
    kind: "stringArray",
    defaultValue: [],
    usage: "Specify the list of vGPUs to passthrough. Can be provided multiple times.",
  },
  {
    name: HOST_DEVICE_FLAG,
    kind: "stringArray",
    defaultValue: [],
    usage: "Specify list of HostDevices to passthrough. Can be provided multiple times.",
  },
  helpFlag("instancetype"),
];

/** Both --gpu and --hostdevice take `name:...,devicename:...`. */
const DEVICE_PARAMS = { name: "string", devicename: "string" } as const;

const IO_THREADS_POLICIES = ["auto", "shared"];

/** `name:x,devicename:y` occurrences of one flag as the spec's device entries. */
function devices(flagName: string, given: readonly string[]): { name: string; deviceName: string }[] {
  return given.map((text) => {
    const { name, devicename } = mapParams(flagName, text, DEVICE_PARAMS);
    if (name === "") throw flagError(flagName, "name must be specified");
    if (devicename === "") throw flagError(flagName, "deviceName must be specified");
    return { name, deviceName: devicename };
  });
}

/** The manifest for a run's flags, or the refusal upstream gives. */
export function buildInstancetype(context: CommandContext, namespace: string, random = randomSuffix) {
  const { flags } = context;
  const namespaced = namespace !== "" || flags.bool(NAMESPACED_FLAG);
  const name = flags.changed.has(NAME_FLAG)
    ? flags.string(NAME_FLAG)
    : `${namespaced ? "instancetype" : "clusterinstancetype"}-${random()}`;

  let guest: string;
  try {
    guest = parseGoQuantity(flags.string(MEMORY_FLAG)).toString();
  } catch (error) {
    // Upstream checks the memory on its own, so its reason comes without the flag's name.
    if (error instanceof QuantityParseError) throw new Error(error.message);
    throw error;
  }
  const cpu = flags.int(CPU_FLAG);
  if (cpu <= 0) throw new Error("cpu value must be greater than zero");

  const spec: VirtualMachineInstancetypeSpec = { cpu: { guest: cpu }, memory: { guest } };
  if (flags.changed.has(GPU_FLAG)) spec.gpus = devices(GPU_FLAG, flags.strings(GPU_FLAG));
  if (flags.changed.has(HOST_DEVICE_FLAG)) {
    spec.hostDevices = devices(HOST_DEVICE_FLAG, flags.strings(HOST_DEVICE_FLAG));
  }
  if (flags.changed.has(IO_THREADS_POLICY_FLAG)) {
    const policy = flags.string(IO_THREADS_POLICY_FLAG);
    if (!IO_THREADS_POLICIES.includes(policy)) {
      throw flagError(IO_THREADS_POLICY_FLAG, "IOThread must be of value auto or shared");
    }
    spec.ioThreadsPolicy = policy;
  }
  return {
    apiVersion: INSTANCETYPE_API_VERSION,
    kind: namespaced ? "VirtualMachineInstancetype" : "VirtualMachineClusterInstancetype",
    metadata: { ...(name ? { name } : {}), ...(namespace ? { namespace } : {}) },
    spec,
  };
}

/** The `create instancetype` command; `random` makes the generated names for tests. */
export function newCreateInstancetypeCommand(random: () => string = randomSuffix): Command {
  return {
    name: "instancetype",
    use: "instancetype",
    short: "Create VirtualMachineInstancetype or VirtualMachineClusterInstancetype manifest.",
    example: EXAMPLE,
    flags: FLAGS,
    requiredFlags: [CPU_FLAG, MEMORY_FLAG],
    argCount: "any",
    async run(context) {
      const manifest = buildInstancetype(context, await namespaceOf(context), random);
      context.io.stdout.write(marshalGoYaml(manifest));
    },
  };
}

export const createInstancetypeCommand = newCreateInstancetypeCommand();
