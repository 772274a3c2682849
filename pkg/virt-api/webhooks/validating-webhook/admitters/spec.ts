// Upstream's ValidateVirtualMachineInstanceSpec: the rules shared by VMIs and the VMI templates of VMs
// and replica sets, in upstream's order (the order of the causes is the order of the denial message),
// followed by kubevirt-ts's own check of unparsable quantities. What kubevirt-ts does not build yet is
// refused by each admitter after these rules (not-yet-supported.ts), so they read as upstream's alone.
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { validateAccessCredentials, validateServiceAccountName } from "./access.js";
import { validateLaunchSecurity } from "./arch.js";
import type { Path, StatusCause } from "../../../../api/causes.js";
import {
  validateCPUFeaturePolicies,
  validateCPUHotplug,
  validateCPUIsolatorThread,
  validateCPULimitNotNegative,
  validateCPUPinning,
  validateCPURequestDoesNotExceedLimit,
  validateCPURequestNotNegative,
  validateEmulatedMachine,
  validateIOThreadsPolicy,
  validateNUMA,
  validateRealtime,
} from "./compute.js";
import {
  validateDownwardMetrics,
  validateHostDevicesWithPassthroughEnabled,
  validateInputDevices,
  validateMDEVRamFB,
  validatePanicDevices,
  validateRebootPolicy,
  validateSoundDevices,
  validateVideoConfig,
  validateVSOCK,
} from "./devices.js";
import { validateDisks } from "./disks.js";
import { validateDNSConfig, validateDNSPolicy, validateHostname, validateSubdomain } from "./dns.js";
import { validateDomainFirmware, validateFirmwareACPI } from "./firmware.js";
import {
  validateEvictionStrategy,
  validateProbe,
  validateProbesNeedPodNetwork,
  validateStartStrategy,
} from "./lifecycle.js";
import {
  validateGuestMemoryLimit,
  validateHugepagesMemoryRequests,
  validateMemoryLimitsNegativeOrNull,
  validateMemoryRequestsNegativeOrNull,
  validateReservedOverheadMemlock,
} from "./memory.js";
import { validateNetworks } from "./network.js";
import { validateQuantities } from "./quantities.js";
import {
  validateBootOrder,
  validateContainerDisks,
  validateFilesystemsWithVirtIOFSEnabled,
  validatePersistentReservation,
  validateUtilityVolumesNotPresentOnCreation,
} from "./storage.js";
import { validateVolumes } from "./volumes.js";

/** A spec validator, like upstream's SpecValidator: (path of the spec, spec, cluster config) → causes. */
export type SpecValidator = (
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
) => StatusCause[];

export const validateVirtualMachineInstanceSpec: SpecValidator = (field, spec, config) => {
  const domain = field.child("domain");
  return [
    ...validateHostname(field, spec),
    ...validateSubdomain(field, spec),
    ...validateMemoryRequestsNegativeOrNull(field, spec),
    ...validateMemoryLimitsNegativeOrNull(field, spec),
    ...validateHugepagesMemoryRequests(field, spec),
    ...validateGuestMemoryLimit(field, spec, config),
    ...validateEmulatedMachine(field, spec, config),
    // Upstream passes `spec.acpi` (not `spec.domain.firmware.acpi`); kept as KubeVirt reports it.
    ...validateFirmwareACPI(field.child("acpi"), spec),
    ...validateCPURequestNotNegative(field, spec),
    ...validateCPULimitNotNegative(field, spec),
    ...validateCPURequestDoesNotExceedLimit(field, spec),
    ...validateCPUPinning(field, spec, config),
    ...validateNUMA(field, spec, config),
    ...validateCPUIsolatorThread(field, spec),
    ...validateCPUFeaturePolicies(field, spec),
    ...validateCPUHotplug(field, spec),
    ...validateStartStrategy(field, spec),
    ...validateRealtime(field, spec),
    ...validateNetworks(field, spec, config),
    ...validateBootOrder(field, spec, config),
    ...validateInputDevices(field, spec),
    ...validateIOThreadsPolicy(field, spec),
    ...validateProbe(field.child("readinessProbe"), spec.readinessProbe),
    ...validateProbe(field.child("livenessProbe"), spec.livenessProbe),
    ...validateProbesNeedPodNetwork(field, spec),
    ...validateDisks(domain.child("devices", "disks"), spec.domain.devices.disks ?? []),
    ...validateDomainFirmware(domain, spec.domain),
    ...validateVolumes(field.child("volumes"), spec.volumes ?? [], config),
    ...validateContainerDisks(field, spec),
    ...validateUtilityVolumesNotPresentOnCreation(field, spec),
    ...validateAccessCredentials(field.child("accessCredentials"), spec),
    ...validateDNSPolicy(field, spec),
    ...validateDNSConfig(field, spec),
    ...validateEvictionStrategy(field, spec, config),
    ...validateMDEVRamFB(field, spec),
    ...validateHostDevicesWithPassthroughEnabled(field, spec, config),
    ...validateSoundDevices(field, spec),
    ...validateLaunchSecurity(field, spec, config),
    ...validateVSOCK(field, spec, config),
    ...validatePersistentReservation(field, spec, config),
    ...validateDownwardMetrics(field, spec, config),
    ...validateFilesystemsWithVirtIOFSEnabled(field, spec, config),
    ...validateVideoConfig(field, spec, config),
    ...validatePanicDevices(field, spec, config),
    ...validateRebootPolicy(field, spec, config),
    ...validateReservedOverheadMemlock(field, spec, config),
    ...validateServiceAccountName(field, spec),
    ...validateQuantities(field, spec),
  ];
};

/** A missing template spec reads as Go's zero spec. */
export function templateSpecOrEmpty(
  spec: VirtualMachineInstanceSpec | undefined,
): VirtualMachineInstanceSpec {
  return spec ?? { domain: { devices: {} } };
}
