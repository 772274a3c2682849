// Upstream pkg/instancetype/preference/apply: a preference fills in what a VMI spec leaves unset (a
// preference never conflicts). Only a few members override what is there, as upstream: preferredAcpi
// and preferredDisableHotplug.
import type { ObjectMeta } from "../../../api/generated/k8s.js";
import type {
  Disk,
  FeatureHyperv,
  Interface,
  VirtualMachineInstanceSpec,
} from "../../../api/generated/v1.js";
import type { DevicePreferences, VirtualMachinePreferenceSpec } from "../../../api/generated/v1beta1.js";

type Preference = VirtualMachinePreferenceSpec;
type VMISpec = VirtualMachineInstanceSpec;
type Devices = NonNullable<VMISpec["domain"]["devices"]>;

const copy = <T>(value: T): T => structuredClone(value);

/** The preferred CPU topology; sockets when the preference names none. */
export function preferredTopology(preference: Preference | undefined): string {
  return preference?.cpu?.preferredCPUTopology ?? "sockets";
}

/** The spread ratio (default 2, or the deprecated preferSpreadSocketToCoreRatio) and what it spreads across. */
export function preferredSpread(preference: Preference): { ratio: number; across: string } {
  let ratio = preference.preferSpreadSocketToCoreRatio || 2;
  let across = "SocketsCores";
  const options = preference.cpu?.spreadOptions;
  if (options?.across !== undefined) across = options.across;
  if (options?.ratio !== undefined) ratio = options.ratio;
  return { ratio, across };
}

function applyCPU(preference: Preference, vmi: VMISpec): void {
  const preferred = preference.cpu?.preferredCPUFeatures;
  if (!preferred?.length) return;
  const cpu = (vmi.domain.cpu ??= {});
  const present = new Set((cpu.features ?? []).map((feature) => feature.name));
  for (const feature of preferred) {
    if (!present.has(feature.name)) (cpu.features ??= []).push(copy(feature));
  }
}

const AUTOATTACH = [
  ["preferredAutoattachGraphicsDevice", "autoattachGraphicsDevice"],
  ["preferredAutoattachMemBalloon", "autoattachMemBalloon"],
  ["preferredAutoattachPodInterface", "autoattachPodInterface"],
  ["preferredAutoattachSerialConsole", "autoattachSerialConsole"],
  ["preferredAutoattachInputDevice", "autoattachInputDevice"],
] as const satisfies ReadonlyArray<readonly [keyof DevicePreferences, keyof Devices]>;

const UNSET_DEVICE_FLAGS = [
  ["preferredUseVirtioTransitional", "useVirtioTransitional"],
  ["preferredBlockMultiQueue", "blockMultiQueue"],
  ["preferredNetworkInterfaceMultiQueue", "networkInterfaceMultiqueue"],
] as const satisfies ReadonlyArray<readonly [keyof DevicePreferences, keyof Devices]>;

function applyDisk(prefs: DevicePreferences, disk: Disk): void {
  if (disk.disk === undefined && disk.cdrom === undefined && disk.lun === undefined) disk.disk = {};
  if (disk.disk !== undefined) {
    if (prefs.preferredDiskBus && !disk.disk.bus) disk.disk.bus = prefs.preferredDiskBus;
    if (prefs.preferredDiskBlockSize !== undefined && disk.blockSize === undefined) {
      disk.blockSize = copy(prefs.preferredDiskBlockSize);
    }
    if (prefs.preferredDiskCache && !disk.cache) disk.cache = prefs.preferredDiskCache;
    if (prefs.preferredDiskIO && !disk.io) disk.io = prefs.preferredDiskIO;
    if (
      prefs.preferredDiskDedicatedIoThread !== undefined &&
      disk.dedicatedIOThread === undefined &&
      disk.disk.bus === "virtio"
    ) {
      disk.dedicatedIOThread = prefs.preferredDiskDedicatedIoThread;
    }
  } else if (disk.cdrom !== undefined) {
    if (prefs.preferredCdromBus && !disk.cdrom.bus) disk.cdrom.bus = prefs.preferredCdromBus;
  } else if (disk.lun !== undefined) {
    if (prefs.preferredLunBus && !disk.lun.bus) disk.lun.bus = prefs.preferredLunBus;
  }
}

const BINDING_METHODS = [
  "bridge",
  "slirp",
  "masquerade",
  "sriov",
  "macvtap",
  "passt",
  "passtBinding",
] as const;

function applyInterface(prefs: DevicePreferences, iface: Interface, vmi: VMISpec): void {
  if (prefs.preferredInterfaceModel && !iface.model) iface.model = prefs.preferredInterfaceModel;
  const bindingUnset =
    iface.binding === undefined && BINDING_METHODS.every((method) => iface[method] === undefined);
  const onPodNetwork = vmi.networks?.find((network) => network.name === iface.name)?.pod !== undefined;
  if (prefs.preferredInterfaceMasquerade !== undefined && bindingUnset && onPodNetwork) {
    iface.masquerade = copy(prefs.preferredInterfaceMasquerade);
  }
}

/** The preference's autoattach* choices where the VMI leaves them unset (also applied on their own on start). */
export function applyAutoAttachPreferences(preference: Preference, vmi: VMISpec): void {
  const prefs = preference.devices;
  if (prefs === undefined) return;
  const devices = (vmi.domain.devices ??= {});
  for (const [from, to] of AUTOATTACH) {
    if (prefs[from] !== undefined && devices[to] === undefined) devices[to] = prefs[from];
  }
}

function applyDevices(preference: Preference, vmi: VMISpec): void {
  const prefs = preference.devices;
  if (prefs === undefined) return;
  const devices = (vmi.domain.devices ??= {});
  for (const [from, to] of UNSET_DEVICE_FLAGS) {
    if (prefs[from] !== undefined && devices[to] === undefined) devices[to] = prefs[from];
  }
  if (prefs.preferredDisableHotplug !== undefined) devices.disableHotplug = prefs.preferredDisableHotplug;
  if (prefs.preferredSoundModel && devices.sound !== undefined && !devices.sound.model) {
    devices.sound.model = prefs.preferredSoundModel;
  }
  if (prefs.preferredRng !== undefined && devices.rng === undefined) devices.rng = copy(prefs.preferredRng);
  if (prefs.preferredTPM !== undefined && devices.tpm === undefined) devices.tpm = copy(prefs.preferredTPM);
  applyAutoAttachPreferences(preference, vmi);
  for (const disk of devices.disks ?? []) applyDisk(prefs, disk);
  for (const iface of devices.interfaces ?? []) applyInterface(prefs, iface, vmi);
  for (const input of devices.inputs ?? []) {
    if (prefs.preferredInputBus && !input.bus) input.bus = prefs.preferredInputBus;
    if (prefs.preferredInputType && !input.type) input.type = prefs.preferredInputType;
  }
  if (prefs.preferredPanicDeviceModel !== undefined) {
    for (const panic of devices.panicDevices ?? []) panic.model ??= prefs.preferredPanicDeviceModel;
  }
}

const HYPERV = [
  "evmcs",
  "frequencies",
  "ipi",
  "reenlightenment",
  "relaxed",
  "reset",
  "runtime",
  "spinlocks",
  "synic",
  "synictimer",
  "tlbflush",
  "vapic",
  "vpindex",
  "vendorid",
] as const satisfies ReadonlyArray<keyof FeatureHyperv>;

function applyFeatures(preference: Preference, vmi: VMISpec): void {
  const prefs = preference.features;
  if (prefs === undefined) return;
  const features = (vmi.domain.features ??= {});
  if (prefs.preferredAcpi !== undefined) features.acpi = copy(prefs.preferredAcpi);
  if (prefs.preferredApic !== undefined && features.apic === undefined)
    features.apic = copy(prefs.preferredApic);
  if (prefs.preferredHyperv !== undefined) {
    const hyperv = (features.hyperv ??= {}) as Record<string, unknown>;
    const preferred = prefs.preferredHyperv as Record<string, unknown>;
    for (const key of HYPERV) {
      if (preferred[key] !== undefined && hyperv[key] === undefined) hyperv[key] = copy(preferred[key]);
    }
  }
  if (prefs.preferredKvm !== undefined && features.kvm === undefined) features.kvm = copy(prefs.preferredKvm);
  if (prefs.preferredPvspinlock !== undefined && features.pvspinlock === undefined) {
    features.pvspinlock = copy(prefs.preferredPvspinlock);
  }
  if (prefs.preferredSmm !== undefined && features.smm === undefined) features.smm = copy(prefs.preferredSmm);
}

function applyFirmware(preference: Preference, vmi: VMISpec): void {
  const prefs = preference.firmware;
  if (prefs === undefined) return;
  const firmware = (vmi.domain.firmware ??= {});
  const bootloader = (firmware.bootloader ??= {});
  if (prefs.preferredUseBios && bootloader.bios === undefined && bootloader.efi === undefined)
    bootloader.bios = {};
  if (prefs.preferredUseBiosSerial !== undefined && bootloader.bios !== undefined) {
    bootloader.bios.useSerial ??= prefs.preferredUseBiosSerial;
  }
  if (bootloader.efi === undefined && bootloader.bios === undefined && prefs.preferredEfi !== undefined) {
    bootloader.efi = copy(prefs.preferredEfi);
    return;
  }
  if (prefs.preferredUseEfi && bootloader.efi === undefined && bootloader.bios === undefined)
    bootloader.efi = {};
  if (prefs.preferredUseSecureBoot !== undefined && bootloader.efi !== undefined) {
    bootloader.efi.secureBoot ??= prefs.preferredUseSecureBoot;
  }
}

function applyClock(preference: Preference, vmi: VMISpec): void {
  const prefs = preference.clock;
  if (prefs === undefined) return;
  const clock = (vmi.domain.clock ??= {});
  if (prefs.preferredClockOffset !== undefined && clock.utc === undefined && clock.timezone === undefined) {
    Object.assign(clock, copy(prefs.preferredClockOffset));
  }
  if (prefs.preferredTimer !== undefined && clock.timer === undefined)
    clock.timer = copy(prefs.preferredTimer);
}

/** Writes the preference into the VMI spec and its metadata's annotations, where they are silent. */
export function applyPreferenceToVMI(
  preference: Preference | undefined,
  vmi: VMISpec,
  metadata: ObjectMeta,
): void {
  if (preference === undefined) return;
  applyCPU(preference, vmi);
  applyDevices(preference, vmi);
  applyFeatures(preference, vmi);
  applyFirmware(preference, vmi);
  const machineType = preference.machine?.preferredMachineType;
  if (machineType) {
    const machine = (vmi.domain.machine ??= {});
    if (!machine.type) machine.type = machineType;
  }
  applyClock(preference, vmi);
  if (!vmi.subdomain && preference.preferredSubdomain !== undefined)
    vmi.subdomain = preference.preferredSubdomain;
  if (preference.preferredTerminationGracePeriodSeconds !== undefined) {
    vmi.terminationGracePeriodSeconds ??= preference.preferredTerminationGracePeriodSeconds;
  }
  if (preference.preferredArchitecture && !vmi.architecture)
    vmi.architecture = preference.preferredArchitecture;
  const annotations = (metadata.annotations ??= {});
  for (const [key, value] of Object.entries(preference.annotations ?? {})) {
    if (!(key in annotations)) annotations[key] = value;
  }
}
