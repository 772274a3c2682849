// virtctl create vm (upstream pkg/virtctl/create/vm): prints a VirtualMachine manifest built from the
// flags, as YAML, for `kubectl apply -f -`. Nothing is sent to the cluster; the kubeconfig is read
// only for a namespace given with -n.
import { randomInt } from "node:crypto";
import type { VirtualMachine } from "../../../api/generated/v1.js";
import { QuantityParseError } from "../../../defaults/quantity.js";
import { errorMessage } from "../../../util/error-message.js";
import { marshalGoYaml } from "../../../util/go-yaml.js";
import { NO_CONFIGURATION } from "../../clientconfig/clientconfig.js";
import type { Command, CommandContext } from "../../command.js";
import type { FlagSpec } from "../../flags.js";
import { helpFlag } from "../../flags.js";
import type { ParamTable } from "../params/params.js";
import { flagError, parseGoQuantity, splitPrefixedName, supported } from "../params/params.js";
import * as cloudInit from "./cloud-init.js";
import * as tables from "./params.js";
import type { CreateVM } from "./state.js";
import { templateSpec } from "./state.js";
import * as volumes from "./volumes.js";

export const NAME_FLAG = "name";
export const RUN_STRATEGY_FLAG = "run-strategy";
export const TERMINATION_GRACE_PERIOD_FLAG = "termination-grace-period";
export const MEMORY_FLAG = "memory";
export const INSTANCETYPE_FLAG = "instancetype";
export const INFER_INSTANCETYPE_FLAG = "infer-instancetype";
export const INFER_INSTANCETYPE_FROM_FLAG = "infer-instancetype-from";
export const PREFERENCE_FLAG = "preference";
export const INFER_PREFERENCE_FLAG = "infer-preference";
export const INFER_PREFERENCE_FROM_FLAG = "infer-preference-from";

const RUN_STRATEGIES = ["Always", "Manual", "Halted", "Once", "RerunOnFailure"];

const LONG =
  "Create a VirtualMachine manifest.\n\n" +
  "If no boot order was specified volumes have the following fixed boot order:\n" +
  "Containerdisk > PVC > DataSource > Clone PVC > Blank > Imported volumes";

const EXAMPLE = `  # Create a manifest for a VirtualMachine with a random name:
  {{ProgramName}} create vm

  # Create a manifest for a VirtualMachine with a specified name and RunStrategy Always
  {{ProgramName}} create vm --name=my-vm --run-strategy=Always

  # Create a manifest for a VirtualMachine with a specified VirtualMachineClusterInstancetype
  {{ProgramName}} create vm --instancetype=my-instancetype

  # Create a manifest for a VirtualMachine with a specified VirtualMachineInstancetype (namespaced)
  {{ProgramName}} create vm --instancetype=virtualmachineinstancetype/my-instancetype

  # Create a manifest for a VirtualMachine with a specified VirtualMachineClusterPreference
  {{ProgramName}} create vm --preference=my-preference

  # Create a manifest for a VirtualMachine with a specified VirtualMachinePreference (namespaced)
  {{ProgramName}} create vm --preference=virtualmachinepreference/my-preference

  # Create a manifest for a VirtualMachine with specified memory and an ephemeral containerdisk volume
  {{ProgramName}} create vm --memory=1Gi --volume-containerdisk=src:my.registry/my-image:my-tag

  # Create a manifest for a VirtualMachine with a cloned DataSource in namespace and specified size
  {{ProgramName}} create vm --volume-import=type:ds,src:my-ns/my-ds,size:50Gi

  # Create a manifest for a VirtualMachine with a cloned DataSource and inferred instancetype and preference
  {{ProgramName}} create vm --volume-import=type:ds,src:my-annotated-ds --infer-instancetype --infer-preference

  # Create a manifest for a VirtualMachine with multiple volumes and specified boot order
  {{ProgramName}} create vm --volume-containerdisk=src:my.registry/my-image:my-tag --volume-import=type:ds,src:my-ds,bootorder:1

  # Create a manifest for a VirtualMachine with multiple volumes and inferred instancetype and preference with specified volumes
  {{ProgramName}} create vm --volume-import=type:ds,src:my-annotated-ds --volume-pvc=my-annotated-pvc --infer-instancetype=my-annotated-ds --infer-preference=my-annotated-pvc

  # Create a manifest for a VirtualMachine with a cloned PVC
  {{ProgramName}} create vm --volume-import=type:pvc,src:my-ns/my-pvc

  # Create a manifest for a VirtualMachine using a PVC without cloning it
  {{ProgramName}} create vm --volume-pvc=src:my-pvc

  # Create a manifest for a VirtualMachine with a clone DataSource and a blank volume
  {{ProgramName}} create vm --volume-import=type:ds,src:my-ns/my-ds --volume-import=type:blank,size:50Gi

  # Create a manifest for a VirtualMachine with a specified VirtualMachineCluster{Instancetype,Preference} and cloned DataSource
  {{ProgramName}} create vm --instancetype=my-instancetype --preference=my-preference --volume-import=type:ds,src:my-ds

  # Create a manifest for a VirtualMachine with a specified VirtualMachineCluster{Instancetype,Preference} and two cloned DataSources (flag can be provided multiple times)
  {{ProgramName}} create vm --instancetype=my-instancetype --preference=my-preference --volume-import=type:ds,src:my-ds1 --volume-import=type:ds,src:my-ds2

  # Create a manifest for a VirtualMachine with a specified VirtualMachineCluster{Instancetype,Preference} and directly used PVC
  {{ProgramName}} create vm --instancetype=my-instancetype --preference=my-preference --volume-pvc=my-pvc

  # Create a manifest for a VirtualMachine with a specified DataVolumeTemplate
  {{ProgramName}} create vm --volume-import type:pvc,name:my-pvc,namespace:default,size:256Mi

  # Create a manifest for a VirtualMachine with a generated cloud-init config setting the user and adding an ssh authorized key
  {{ProgramName}} create vm --user cloud-user --ssh-key="ssh-ed25519 AAAA...."

  # Create a manifest for a VirtualMachine with a generated cloud-init config setting the user and setting the password from a file
  {{ProgramName}} create vm --user cloud-user --password-file=/path/to/file
\t
  # Create a manifest for a VirtualMachine with SSH public keys injected into the VM from a secret called my-keys to the user also specified in the cloud-init config
  {{ProgramName}} create vm --user cloud-user --access-cred=type:ssh,src:my-keys

  # Create a manifest for a VirtualMachine with SSH public keys injected into the VM from a secret called my-keys to a user specified as param
  {{ProgramName}} create vm --access-cred=type:ssh,src:my-keys,user:myuser

  # Create a manifest for a VirtualMachine with password injected into the VM from a secret called my-pws
  {{ProgramName}} create vm --access-cred=type:password,src:my-pws

  # Create a manifest for a VirtualMachine with a Containerdisk and a Sysprep volume (source ConfigMap needs to exist)
  {{ProgramName}} create vm --memory=1Gi --volume-containerdisk=src:my.registry/my-image:my-tag --volume-sysprep=src:my-cm`;

const flag = (
  name: string,
  kind: FlagSpec["kind"],
  defaultValue: FlagSpec["defaultValue"],
  usage: string,
) => ({
  name,
  kind,
  defaultValue,
  usage,
});

const IMPORT_TYPES: [string, ParamTable][] = [
  ["blank", tables.dataVolumeSourceBlank],
  ["gcs", tables.dataVolumeSourceGcs],
  ["http", tables.dataVolumeSourceHTTP],
  ["imageio", tables.dataVolumeSourceImageIO],
  ["pvc", tables.dataVolumeSource],
  ["registry", tables.dataVolumeSourceRegistry],
  ["s3", tables.dataVolumeSourceS3],
  ["vddk", tables.dataVolumeSourceVDDK],
  ["snapshot", tables.dataVolumeSource],
  ["ds", tables.dataVolumeSource],
];

/** The flags in upstream's order, which its help keeps (SortFlags = false). */
const FLAGS: FlagSpec[] = [
  flag(NAME_FLAG, "string", "", "Specify the name of the VM."),
  flag(RUN_STRATEGY_FLAG, "string", "Always", "Specify the RunStrategy of the VM."),
  flag(TERMINATION_GRACE_PERIOD_FLAG, "int", 180, "Specify the termination grace period of the VM."),
  flag(MEMORY_FLAG, "string", "512Mi", "Specify the memory of the VM."),
  flag(
    INSTANCETYPE_FLAG,
    "string",
    "",
    "Specify the Instance Type of the VM. Mutually exclusive with instancetype inference flags.",
  ),
  flag(
    INFER_INSTANCETYPE_FLAG,
    "bool",
    true,
    `Specify if the Instance Type of the VM should be inferred from the first boot disk. Mutually exclusive with --${INFER_INSTANCETYPE_FROM_FLAG}.`,
  ),
  flag(
    INFER_INSTANCETYPE_FROM_FLAG,
    "string",
    "",
    `Specify the volume to infer the Instance Type of the VM from. Mutually exclusive with --${INFER_INSTANCETYPE_FLAG}.`,
  ),
  flag(
    PREFERENCE_FLAG,
    "string",
    "",
    "Specify the Preference of the VM. Mutually exclusive with preference inference flags.",
  ),
  flag(
    INFER_PREFERENCE_FLAG,
    "bool",
    true,
    `Specify if the Preference of the VM should be inferred from the first boot disk. Mutually exclusive with --${INFER_PREFERENCE_FROM_FLAG}.`,
  ),
  flag(
    INFER_PREFERENCE_FROM_FLAG,
    "string",
    "",
    `Specify the volume to infer the Preference of the VM from. Mutually exclusive with --${INFER_PREFERENCE_FLAG}.`,
  ),
  flag(
    volumes.CONTAINERDISK_VOLUME_FLAG,
    "stringArray",
    [],
    "Specify a containerdisk to be used by the VM. Can be provided multiple times.\n" +
      `Supported parameters: ${supported(tables.volumeSource)}`,
  ),
  flag(
    volumes.PVC_VOLUME_FLAG,
    "stringArray",
    [],
    "Specify a PVCs to be used by the VM. Can be provided multiple times.\n" +
      `Supported parameters: ${supported(tables.volumeSource)}`,
  ),
  flag(
    volumes.VOLUME_IMPORT_FLAG,
    "stringArray",
    [],
    "Specify the source for DataVolume. Can be provided multiple times.\nSupported parameters:\n" +
      IMPORT_TYPES.map(([type, table]) => `  type ${type} - ${supported(table)}`).join("\n"),
  ),
  flag(
    volumes.SYSPREP_VOLUME_FLAG,
    "string",
    "",
    "Specify a ConfigMap or Secret to be used as sysprep volume by the VM.\n" +
      `Supported parameters: ${supported(tables.sysprepVolumeSource)}`,
  ),
  flag(
    cloudInit.USER_FLAG,
    "string",
    "",
    "Specify the user in the cloud-init user data that is added to the VM.",
  ),
  flag(
    cloudInit.PASSWORD_FILE_FLAG,
    "string",
    "",
    "Specify a file to read the password from for the cloud-init user data that is added to the VM.",
  ),
  flag(
    cloudInit.SSH_KEY_FLAG,
    "stringSlice",
    [],
    "Specify one or more SSH authorized keys in the cloud-init user data that is added to the VM.",
  ),
  flag(
    cloudInit.GA_MANAGE_SSH_FLAG,
    "bool",
    false,
    "Specify if the qemu-guest-agent should be able to manage SSH in the cloud-init user data that is added to the VM.\n" +
      'This is useful in combination with the "credentials add-ssh-key" command or when using the --access-cred flag.',
  ),
  flag(
    cloudInit.ACCESS_CRED_FLAG,
    "stringArray",
    [],
    "Specify an access credential to be injected into the VM. Can be provided multiple times.\n" +
      `Supported parameters: ${supported(tables.accessCredential)}`,
  ),
  flag(
    cloudInit.CLOUD_INIT_FLAG,
    "string",
    cloudInit.CLOUD_INIT_NO_CLOUD,
    "Specify the type of the generated cloud-init data source.\n" +
      `Supported values: ${cloudInit.CLOUD_INIT_NO_CLOUD}, ${cloudInit.CLOUD_INIT_CONFIG_DRIVE}, ${cloudInit.CLOUD_INIT_NONE}`,
  ),
  flag(
    cloudInit.CLOUD_INIT_USER_DATA_FLAG,
    "string",
    "",
    "Specify the base64 encoded cloud-init user data of the VM.",
  ),
  flag(
    cloudInit.CLOUD_INIT_NETWORK_DATA_FLAG,
    "string",
    "",
    "Specify the base64 encoded cloud-init network data of the VM.",
  ),
  flag(
    volumes.DATASOURCE_VOLUME_FLAG,
    "stringArray",
    [],
    "Specify a DataSource to be cloned by the VM. Can be provided multiple times.\n" +
      "Supported parameters: name:string,src:string,bootorder:uint,size:resource.Quantity\n" +
      "DEPRECATED: Use --volume-import with type:ds and same params instead.",
  ),
  flag(
    volumes.CLONE_PVC_VOLUME_FLAG,
    "stringArray",
    [],
    "Specify a PVC to be cloned by the VM. Can be provided multiple times.\n" +
      "Supported parameters: name:string,src:string,bootorder:uint,size:resource.Quantity\n" +
      "DEPRECATED: Use --volume-import with type:pvc and same params instead.",
  ),
  flag(
    volumes.BLANK_VOLUME_FLAG,
    "stringArray",
    [],
    "Specify a blank volume to be used by the VM. Can be provided multiple times.\n" +
      "Supported parameters: name:string,size:resource.Quantity\n" +
      "DEPRECATED: Use --volume-import with type:blank and same params instead.",
  ),
  helpFlag("vm"),
];

const EXCLUSIVE_FLAG_GROUPS = [
  [MEMORY_FLAG, INSTANCETYPE_FLAG, INFER_INSTANCETYPE_FLAG, INFER_INSTANCETYPE_FROM_FLAG],
  [PREFERENCE_FLAG, INFER_PREFERENCE_FLAG, INFER_PREFERENCE_FROM_FLAG],
  [cloudInit.CLOUD_INIT_USER_DATA_FLAG, cloudInit.USER_FLAG],
  [cloudInit.CLOUD_INIT_USER_DATA_FLAG, cloudInit.PASSWORD_FILE_FLAG],
  [cloudInit.CLOUD_INIT_USER_DATA_FLAG, cloudInit.SSH_KEY_FLAG],
  [cloudInit.CLOUD_INIT_USER_DATA_FLAG, cloudInit.GA_MANAGE_SSH_FLAG],
];

/** k8s.io/apimachinery's rand.String alphabet: no vowels, no look-alike digits. */
const RAND_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

export const randomSuffix = (): string =>
  Array.from({ length: 5 }, () => RAND_ALPHABET.charAt(randomInt(RAND_ALPHABET.length))).join("");

type Step = (state: CreateVM, vm: VirtualMachine) => void;

/**
 * The flags that change the manifest, in the order upstream applies them: the volume order (and so
 * the default boot order) follows it, and --access-cred may still set the cloud-init flags after it.
 */
const STEPS: [string, Step][] = [
  [RUN_STRATEGY_FLAG, withRunStrategy],
  [INSTANCETYPE_FLAG, withInstancetype],
  [PREFERENCE_FLAG, withPreference],
  [volumes.CONTAINERDISK_VOLUME_FLAG, volumes.withContainerdiskVolume],
  [volumes.PVC_VOLUME_FLAG, volumes.withPvcVolume],
  [
    volumes.DATASOURCE_VOLUME_FLAG,
    (state) =>
      volumes.aliasToVolumeImport(state, volumes.DATASOURCE_VOLUME_FLAG, "ds", state.dataSourceVolumes),
  ],
  [
    volumes.CLONE_PVC_VOLUME_FLAG,
    (state) =>
      volumes.aliasToVolumeImport(state, volumes.CLONE_PVC_VOLUME_FLAG, "pvc", state.clonePvcVolumes),
  ],
  [
    volumes.BLANK_VOLUME_FLAG,
    (state) => volumes.aliasToVolumeImport(state, volumes.BLANK_VOLUME_FLAG, "blank", state.blankVolumes),
  ],
  [volumes.VOLUME_IMPORT_FLAG, volumes.withImportedVolume],
  [volumes.SYSPREP_VOLUME_FLAG, volumes.withSysprepVolume],
  [cloudInit.ACCESS_CRED_FLAG, cloudInit.withAccessCredential],
];

/** The manifest for a run's flags; throws the refusal upstream gives. */
export function buildVirtualMachine(state: CreateVM): VirtualMachine {
  const vm = newVM(state);
  for (const [name, step] of STEPS) if (state.changed.has(name)) step(state, vm);
  cloudInit.cloudInitConfig(state, vm);
  inferFromVolume(state, vm);
  return vm;
}

function newVM(state: CreateVM): VirtualMachine {
  let guest: string;
  try {
    guest = parseGoQuantity(state.memory).toString();
  } catch (error) {
    if (error instanceof QuantityParseError) throw flagError(MEMORY_FLAG, error.message);
    throw error;
  }
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: state.name, ...(state.namespace ? { namespace: state.namespace } : {}) },
    spec: {
      runStrategy: state.runStrategy,
      template: {
        metadata: {},
        spec: {
          terminationGracePeriodSeconds: state.terminationGracePeriod,
          domain: { devices: {}, memory: { guest }, resources: {} },
        },
      },
    },
    status: {},
  };
}

function withRunStrategy(state: CreateVM, vm: VirtualMachine): void {
  const strategy = RUN_STRATEGIES.find(
    (candidate) => candidate.toLowerCase() === state.runStrategy.toLowerCase(),
  );
  if (!strategy) {
    throw flagError(
      RUN_STRATEGY_FLAG,
      `invalid run strategy "${state.runStrategy}", supported values are: ${RUN_STRATEGIES.join(", ")}`,
    );
  }
  vm.spec.runStrategy = strategy;
}

/** `kind/name` of an instancetype or preference; no kind leaves the cluster-wide default to virt-api. */
function matcher(flagName: string, text: string, what: string, kinds: readonly string[]) {
  let split: { prefix: string; name: string };
  try {
    split = splitPrefixedName(text);
  } catch (error) {
    throw flagError(flagName, errorMessage(error));
  }
  const kind = split.prefix.toLowerCase();
  if (kind !== "" && !kinds.includes(kind)) {
    throw flagError(flagName, `invalid ${what} kind "${kind}", supported values are: ${kinds.join(", ")}`);
  }
  return { name: split.name, ...(kind ? { kind } : {}) };
}

function withInstancetype(state: CreateVM, vm: VirtualMachine): void {
  const kinds = ["virtualmachineinstancetype", "virtualmachineclusterinstancetype"];
  vm.spec.instancetype = matcher(INSTANCETYPE_FLAG, state.instancetype, "instancetype", kinds);
  delete templateSpec(vm).domain.memory;
}

function withPreference(state: CreateVM, vm: VirtualMachine): void {
  const kinds = ["virtualmachinepreference", "virtualmachineclusterpreference"];
  vm.spec.preference = matcher(PREFERENCE_FLAG, state.preference, "preference", kinds);
}

// --- inferring the instancetype and preference from a volume

/**
 * Implicit inference (the default) may fail without a word: the matcher then asks virt-api to ignore
 * a failure and the guest memory stays as a fallback. Explicit inference reports its failure.
 */
function inferFromVolume(state: CreateVM, vm: VirtualMachine): void {
  if (state.inferInstancetype && state.instancetype === "" && !state.memoryChanged) {
    try {
      const volume = inferenceVolume(state, vm, state.inferInstancetypeFrom);
      state.inferInstancetypeFrom = volume;
      vm.spec.instancetype = { inferFromVolume: volume };
      if (state.explicitInstancetypeInference) delete templateSpec(vm).domain.memory;
      else vm.spec.instancetype.inferFromVolumeFailurePolicy = "Ignore";
    } catch (error) {
      if (state.explicitInstancetypeInference) throw error;
    }
  }
  if (state.inferPreference && state.preference === "") {
    try {
      const volume = inferenceVolume(state, vm, state.inferPreferenceFrom);
      state.inferPreferenceFrom = volume;
      vm.spec.preference = { inferFromVolume: volume };
      if (!state.explicitPreferenceInference) vm.spec.preference.inferFromVolumeFailurePolicy = "Ignore";
    } catch (error) {
      if (state.explicitPreferenceInference) throw error;
    }
  }
}

/** The volume to infer from: the one named, else the first to boot, else the first one. */
function inferenceVolume(state: CreateVM, vm: VirtualMachine, named: string): string {
  const spec = templateSpec(vm);
  let name = named;
  if (name === "") {
    const first = spec.volumes?.[0];
    if (!first) throw new Error("at least one volume is needed to infer an instance type or preference");
    const lowest = Math.min(...state.bootOrders.keys());
    name = state.bootOrders.get(lowest) ?? first.name;
  }
  const volume = spec.volumes?.find((candidate) => candidate.name === name);
  if (!volume) throw new Error(`there is no volume with name "${name}"`);
  if (volume.dataVolume) checkDataVolumeToInferFrom(vm, volume.dataVolume.name);
  else if (!volume.persistentVolumeClaim) {
    throw new Error(
      "inference of instancetype or preference works only with datasources, datavolumes or pvcs",
    );
  }
  return name;
}

function checkDataVolumeToInferFrom(vm: VirtualMachine, name: string): void {
  const template = vm.spec.dataVolumeTemplates?.find((candidate) => candidate.metadata?.name === name);
  if (!template) return;
  const source = template.spec.source;
  if (source?.pvc || source?.registry || source?.snapshot) return;
  if (template.spec.sourceRef?.kind === "DataSource") return;
  throw new Error(
    "this datavolume is not valid to infer an instancetype or preference from " +
      "(source needs to be PVC, Registry or Snapshot, sourceRef needs to be DataSource)",
  );
}

// --- the command

/** The namespace upstream puts in the manifest: only one given with -n. */
export async function namespaceOf(context: CommandContext): Promise<string> {
  try {
    const { config } = await context.client();
    return config.overridden ? config.namespace : "";
  } catch (error) {
    // Like client-go's deferred loading, having no kubeconfig at all is no error until a request.
    if (errorMessage(error) !== NO_CONFIGURATION) throw error;
    return context.flags.string("namespace");
  }
}

export function stateOf(context: CommandContext, namespace: string, random = randomSuffix): CreateVM {
  const { flags } = context;
  const given = (name: string) => flags.changed.has(name);
  const string = (name: string) => flags.string(name);
  const strings = (name: string) => [...flags.strings(name)];
  return {
    name: string(NAME_FLAG) || `vm-${random()}`,
    runStrategy: string(RUN_STRATEGY_FLAG),
    terminationGracePeriod: flags.int(TERMINATION_GRACE_PERIOD_FLAG),
    memory: string(MEMORY_FLAG),
    instancetype: string(INSTANCETYPE_FLAG),
    inferInstancetype: flags.bool(INFER_INSTANCETYPE_FLAG),
    inferInstancetypeFrom: string(INFER_INSTANCETYPE_FROM_FLAG),
    preference: string(PREFERENCE_FLAG),
    inferPreference: flags.bool(INFER_PREFERENCE_FLAG),
    inferPreferenceFrom: string(INFER_PREFERENCE_FROM_FLAG),
    containerdiskVolumes: strings(volumes.CONTAINERDISK_VOLUME_FLAG),
    pvcVolumes: strings(volumes.PVC_VOLUME_FLAG),
    volumeImport: strings(volumes.VOLUME_IMPORT_FLAG),
    sysprepVolume: string(volumes.SYSPREP_VOLUME_FLAG),
    user: string(cloudInit.USER_FLAG),
    passwordFile: string(cloudInit.PASSWORD_FILE_FLAG),
    sshKeys: strings(cloudInit.SSH_KEY_FLAG),
    gaManageSSH: flags.bool(cloudInit.GA_MANAGE_SSH_FLAG),
    accessCreds: strings(cloudInit.ACCESS_CRED_FLAG),
    cloudInit: string(cloudInit.CLOUD_INIT_FLAG),
    cloudInitUserData: string(cloudInit.CLOUD_INIT_USER_DATA_FLAG),
    cloudInitNetworkData: string(cloudInit.CLOUD_INIT_NETWORK_DATA_FLAG),
    dataSourceVolumes: strings(volumes.DATASOURCE_VOLUME_FLAG),
    clonePvcVolumes: strings(volumes.CLONE_PVC_VOLUME_FLAG),
    blankVolumes: strings(volumes.BLANK_VOLUME_FLAG),
    namespace,
    explicitInstancetypeInference: given(INFER_INSTANCETYPE_FLAG) || given(INFER_INSTANCETYPE_FROM_FLAG),
    explicitPreferenceInference: given(INFER_PREFERENCE_FLAG) || given(INFER_PREFERENCE_FROM_FLAG),
    memoryChanged: given(MEMORY_FLAG),
    changed: new Set(flags.changed),
    bootOrders: new Map(),
    warn: (text) => context.io.stderr.write(text),
    randomSuffix: random,
  };
}

/** The `create vm` command; `random` makes the generated names for tests. */
export function newCreateVMCommand(random: () => string = randomSuffix): Command {
  return {
    name: "vm",
    use: "vm",
    short: "Create a VirtualMachine manifest.",
    long: LONG,
    example: EXAMPLE,
    flags: FLAGS,
    sortFlags: false,
    exclusiveFlagGroups: EXCLUSIVE_FLAG_GROUPS,
    argCount: 0,
    async run(context) {
      const state = stateOf(context, await namespaceOf(context), random);
      context.io.stdout.write(marshalGoYaml(buildVirtualMachine(state)));
    },
  };
}

export const createVMCommand = newCreateVMCommand();
