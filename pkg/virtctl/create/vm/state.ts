// What one `virtctl create vm` run works with (upstream's createVM struct): the flag values, which
// flags count as given (the access-credential step sets some, as upstream's Flags().Set does), and
// the boot orders taken so far.
import type { VirtualMachine, VirtualMachineInstanceSpec, Volume } from "../../../api/generated/v1.js";
import { flagError } from "../params/params.js";

export interface CreateVM {
  name: string;
  runStrategy: string;
  terminationGracePeriod: number;
  memory: string;
  instancetype: string;
  inferInstancetype: boolean;
  inferInstancetypeFrom: string;
  preference: string;
  inferPreference: boolean;
  inferPreferenceFrom: string;
  containerdiskVolumes: readonly string[];
  pvcVolumes: readonly string[];
  volumeImport: string[];
  sysprepVolume: string;
  user: string;
  passwordFile: string;
  sshKeys: readonly string[];
  gaManageSSH: boolean;
  accessCreds: readonly string[];
  cloudInit: string;
  cloudInitUserData: string;
  cloudInitNetworkData: string;
  dataSourceVolumes: readonly string[];
  clonePvcVolumes: readonly string[];
  blankVolumes: readonly string[];
  namespace: string;
  explicitInstancetypeInference: boolean;
  explicitPreferenceInference: boolean;
  memoryChanged: boolean;
  /** Flags given, or set along the way. */
  changed: Set<string>;
  /** Disk name by boot order. */
  bootOrders: Map<number, string>;
  /** Writes a line for the user to standard error. */
  warn(text: string): void;
  /** k8s rand.String(5), for generated names. */
  randomSuffix(): string;
}

/** The VMI template spec of a VM being built (always present). */
export const templateSpec = (vm: VirtualMachine): VirtualMachineInstanceSpec =>
  vm.spec.template.spec as VirtualMachineInstanceSpec;

export function volumeExists(vm: VirtualMachine, name: string): Volume | undefined {
  return templateSpec(vm).volumes?.find((volume) => volume.name === name);
}

export const volumeExistsMessage = (name: string) => `there is already a volume with name "${name}"`;

export function volumeShouldNotExist(flag: string, vm: VirtualMachine, name: string): void {
  if (volumeExists(vm, name)) throw flagError(flag, volumeExistsMessage(name));
}

export function addVolume(vm: VirtualMachine, volume: Volume): void {
  (templateSpec(vm).volumes ??= []).push(volume);
}

/** A disk carrying the boot order, when one was asked for; each order may be taken once. */
export function addDiskWithBootOrder(
  state: CreateVM,
  flag: string,
  vm: VirtualMachine,
  name: string,
  bootOrder: number | undefined,
): void {
  if (bootOrder === undefined) return;
  if (bootOrder === 0) throw flagError(flag, "bootorder must be greater than 0");
  if (state.bootOrders.has(bootOrder)) {
    throw flagError(flag, `bootorder ${bootOrder} was specified multiple times`);
  }
  (templateSpec(vm).domain.devices.disks ??= []).push({ name, bootOrder });
  state.bootOrders.set(bootOrder, name);
}
