// Rules for the remaining devices of a VMI spec (upstream vmi-create-admitter.go): input devices, sound,
// video, panic devices, ramfb displays, and the feature gates of host devices, VSOCK, downwardMetrics,
// the video configuration, panic devices and the reboot policy.
import type { GPU, VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { invalidCause, type Path, type StatusCause } from "../../../../api/causes.js";

const PANIC_DEVICE_MODELS = new Set(["hyperv", "isa", "pvpanic"]);

export function validateInputDevices(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return (spec.domain.devices.inputs ?? []).flatMap((input, index) => {
    const at = field.child("domain", "devices", "inputs").index(index);
    const causes: StatusCause[] = [];
    const bus = input.bus ?? "";
    if (bus !== "virtio" && bus !== "usb" && bus !== "") {
      causes.push(invalidCause("Input device can have only virtio or usb bus.", at.child("bus")));
    }
    if (input.type !== "tablet")
      causes.push(invalidCause("Input device can have only tablet type.", at.child("type")));
    return causes;
  });
}

/** Upstream names `spec.Sound` with a capital S; kept as KubeVirt reports it. */
export function validateSoundDevices(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const sound = spec.domain.devices.sound;
  if (sound === undefined) return [];
  const causes: StatusCause[] = [];
  const model = sound.model ?? "";
  if (model !== "" && model !== "ich9" && model !== "ac97") {
    causes.push(
      invalidCause("Sound device type is not supported. Options: 'ich9' or 'ac97'", field.child("Sound")),
    );
  }
  if (sound.name === "")
    causes.push(invalidCause("Sound device requires a name field.", field.child("Sound")));
  return causes;
}

export function validateVideoConfig(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.devices.video === undefined) return [];
  if (!config.isFeatureGateEnabled(FeatureGate.VideoConfig)) {
    return [
      invalidCause(
        `Video configuration is specified but the ${FeatureGate.VideoConfig} feature gate is not enabled`,
        field.child("video"),
      ),
    ];
  }
  if (spec.domain.devices.autoattachGraphicsDevice !== false) return [];
  return [
    invalidCause(
      "Video configuration is not allowed when autoattachGraphicsDevice is set to false",
      field.child("video"),
    ),
  ];
}

export function validatePanicDevices(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const devices = spec.domain.devices.panicDevices ?? [];
  if (devices.length === 0) return [];
  const at = field.child("domain", "devices", "panicDevices");
  if (!config.isFeatureGateEnabled(FeatureGate.PanicDevices)) {
    return [invalidCause("Panic Devices feature gate is not enabled in kubevirt-config", at)];
  }
  const causes: StatusCause[] = [];
  const architecture = spec.architecture || config.getDefaultArchitecture();
  if (architecture === "s390x") {
    causes.push(invalidCause(`custom panic devices are not supported on ${architecture} architecture`, at));
  }
  devices.forEach((device, index) => {
    if (device.model === undefined || PANIC_DEVICE_MODELS.has(device.model)) return;
    causes.push(invalidCause(`invalid PanicDeviceModel(${device.model})`, at.index(index).child("model")));
  });
  return causes;
}

/** A display with ramfb counts unless switched off; both default to on. */
function hasRamFBDisplay(gpu: GPU): boolean {
  const display = gpu.virtualGPUOptions?.display;
  return display !== undefined && display.enabled !== false && display.ramFB?.enabled !== false;
}

/** Upstream names `spec.GPUs`; kept as KubeVirt reports it. The trailing space is upstream's. */
export function validateMDEVRamFB(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  if ((spec.domain.devices.gpus ?? []).filter(hasRamFBDisplay).length <= 1) return [];
  return [invalidCause("configuring multiple displays with ramfb is not valid ", field.child("GPUs"))];
}

/** Upstream names `spec.HostDevices`; kept as KubeVirt reports it. */
export function validateHostDevicesWithPassthroughEnabled(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.devices.hostDevices === undefined || config.isFeatureGateEnabled(FeatureGate.HostDevices))
    return [];
  return [
    invalidCause("Host Devices feature gate is not enabled in kubevirt-config", field.child("HostDevices")),
  ];
}

export function validateVSOCK(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.devices.autoattachVSOCK !== true || config.isFeatureGateEnabled(FeatureGate.VSOCK))
    return [];
  return [
    invalidCause(
      "VSOCK feature gate is not enabled in kubevirt-config",
      field.child("domain", "devices", "autoattachVSOCK"),
    ),
  ];
}

/** The downwardMetrics virtio-serial device (a volume of that kind is checked with the volumes). */
export function validateDownwardMetrics(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.devices.downwardMetrics === undefined) return [];
  if (config.isFeatureGateEnabled(FeatureGate.DownwardMetrics)) return [];
  return [
    invalidCause(
      "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled",
      field.child("domain", "devices", "downwardMetrics"),
    ),
  ];
}

export function validateRebootPolicy(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.rebootPolicy === undefined || config.isFeatureGateEnabled(FeatureGate.RebootPolicy))
    return [];
  return [
    invalidCause(
      "RebootPolicy is specified but the RebootPolicy feature gate is not enabled",
      field.child("domain", "rebootPolicy"),
    ),
  ];
}
