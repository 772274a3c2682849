// virtctl create preference (upstream pkg/virtctl/create/preference): prints a
// VirtualMachineClusterPreference manifest, or a namespaced VirtualMachinePreference with
// --namespaced or -n, as YAML for `kubectl create -f -`. Nothing is sent to the cluster.
import { isPreferredTopologySupported } from "../../../instancetype/preference/validation/cpu.js";
import type { VirtualMachinePreferenceSpec } from "../../../api/generated/v1beta1.js";
import { marshalGoYaml } from "../../../util/go-yaml.js";
import type { Command, CommandContext } from "../../command.js";
import type { FlagSpec } from "../../flags.js";
import { helpFlag } from "../../flags.js";
import { INSTANCETYPE_API_VERSION } from "../instancetype/instancetype.js";
import { flagError } from "../params/params.js";
import { namespaceOf, randomSuffix } from "../vm/vm.js";

export const CPU_TOPOLOGY_FLAG = "cpu-topology";
export const VOLUME_STORAGE_CLASS_FLAG = "volume-storage-class";
export const MACHINE_TYPE_FLAG = "machine-type";
export const NAME_FLAG = "name";
export const NAMESPACED_FLAG = "namespaced";

// The tab-only separating lines are upstream's, kept so the help matches byte for byte.
const EXAMPLE = [
  "  # Create a manifest for a ClusterPreference with a random name:",
  "  {{ProgramName}} create preference",
  "\t",
  "  # Create a manifest for a ClusterPreference with a specified CPU topology:",
  "  {{ProgramName}} create preference --cpu-topology sockets",
  "",
  "  # Create a manifest for a Preference with a specified CPU topology:",
  "  {{ProgramName}} create preference --cpu-topology sockets --namespaced",
  "\t",
  "  # Create a manifest for a ClusterPreference and use it to create a resource with kubectl",
  "  {{ProgramName}} create preference --volume-storage-class hostpath-provisioner | kubectl create -f -",
].join("\n");

const FLAGS: FlagSpec[] = [
  {
    name: NAMESPACED_FLAG,
    kind: "bool",
    defaultValue: false,
    usage:
      "Specify if VirtualMachinePreference should be created. By default VirtualMachineClusterPreference is created.",
  },
  { name: NAME_FLAG, kind: "string", defaultValue: "", usage: "Specify the name of the Preference." },
  {
    name: VOLUME_STORAGE_CLASS_FLAG,
    kind: "string",
    defaultValue: "",
    usage: "Defines the preferred storage class",
  },
  {
    name: MACHINE_TYPE_FLAG,
    kind: "string",
    defaultValue: "",
    usage: "Defines the preferred machine type to use.",
  },
  {
    name: CPU_TOPOLOGY_FLAG,
    kind: "string",
    defaultValue: "",
    usage: "Defines the preferred guest visible CPU topology.",
  },
  helpFlag("preference"),
];

/** The manifest for a run's flags, or the refusal upstream gives. */
export function buildPreference(context: CommandContext, namespace: string, random = randomSuffix) {
  const { flags } = context;
  const given = (name: string) => flags.changed.has(name);
  const namespaced = namespace !== "" || flags.bool(NAMESPACED_FLAG);
  const name = given(NAME_FLAG)
    ? flags.string(NAME_FLAG)
    : `${namespaced ? "preference" : "clusterpreference"}-${random()}`;

  const spec: VirtualMachinePreferenceSpec = {};
  if (given(VOLUME_STORAGE_CLASS_FLAG)) {
    spec.volumes = omitEmpty({ preferredStorageClassName: flags.string(VOLUME_STORAGE_CLASS_FLAG) });
  }
  if (given(MACHINE_TYPE_FLAG)) {
    spec.machine = omitEmpty({ preferredMachineType: flags.string(MACHINE_TYPE_FLAG) });
  }
  if (given(CPU_TOPOLOGY_FLAG)) {
    const topology = flags.string(CPU_TOPOLOGY_FLAG);
    if (!isPreferredTopologySupported(topology)) {
      throw flagError(
        CPU_TOPOLOGY_FLAG,
        "CPU topology must have a value of sockets, cores, threads or spread",
      );
    }
    spec.cpu = { preferredCPUTopology: topology };
  }
  return {
    apiVersion: INSTANCETYPE_API_VERSION,
    kind: namespaced ? "VirtualMachinePreference" : "VirtualMachineClusterPreference",
    metadata: { ...(name ? { name } : {}), ...(namespace ? { namespace } : {}) },
    spec,
  };
}

/** Go's omitempty on a string field: an empty value is left out (the struct printing as `{}`). */
function omitEmpty<K extends string>(fields: Record<K, string>): Partial<Record<K, string>> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== "")) as Partial<
    Record<K, string>
  >;
}

/** The `create preference` command; `random` makes the generated names for tests. */
export function newCreatePreferenceCommand(random: () => string = randomSuffix): Command {
  return {
    name: "preference",
    use: "preference",
    short: "Create a VirtualMachinePreference or VirtualMachineClusterPreference manifest.",
    example: EXAMPLE,
    flags: FLAGS,
    argCount: "any",
    async run(context) {
      const manifest = buildPreference(context, await namespaceOf(context), random);
      context.io.stdout.write(marshalGoYaml(manifest));
    },
  };
}

export const createPreferenceCommand = newCreatePreferenceCommand();
