// What upstream applies to a VMI or VM when it is created (pkg/defaults/defaults.go), as pure
// functions: the input is never changed, a defaulted copy is returned.
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
} from "../api/generated/v1.js";
import type { ClusterConfig } from "../virt-config/cluster-config.js";
import { setAmd64Defaults } from "./amd64.js";
import { isARM64, setArm64Defaults } from "./arm64.js";
import {
  setDefaultArchitecture,
  setDefaultCPUModel,
  setDefaultEvictionStrategy,
  setDefaultGuestCPUTopology,
  setDefaultMachineType,
  setDefaultResourceRequests,
  setGuestMemory,
} from "./compute.js";
import { newRandomUUID } from "./firmware-uuid.js";
import { setupHotplug } from "./hotplug.js";
import { setHypervFeatureDependencies } from "./hyperv.js";
import { setDefaultNetworkInterface } from "./network.js";
import { setObjectDefaults } from "./object-defaults.js";
import { isS390X, setS390xDefaultFeatures, setS390xDefaults } from "./s390x.js";
import { setCurrentCPUTopologyStatus, setGuestMemoryStatus } from "./status.js";
import { setDefaultPullPoliciesOnContainerDisks, setDefaultVolumeDisk } from "./storage.js";

export interface DefaultingOptions {
  /** Source of new firmware UUIDs; random (version 4) unless a test pins it. */
  newUUID?: () => string;
}

export type DefaultingResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Mutates `spec`; returns upstream's error text when the network defaults cannot be applied. */
function applySpecDefaults(config: ClusterConfig, spec: VirtualMachineInstanceSpec): string | undefined {
  spec.domain.devices ??= {};
  setDefaultArchitecture(config, spec);
  setDefaultMachineType(config, spec);
  setDefaultResourceRequests(config, spec);
  setGuestMemory(spec);
  setDefaultGuestCPUTopology(spec);
  setDefaultPullPoliciesOnContainerDisks(spec);
  setDefaultEvictionStrategy(config, spec);
  const networkProblem = setDefaultNetworkInterface(config, spec);
  if (networkProblem !== undefined) return networkProblem;
  setDefaultVolumeDisk(spec);
  return undefined;
}

function setDefaultCPUArch(config: ClusterConfig, spec: VirtualMachineInstanceSpec): void {
  if (isARM64(spec)) setArm64Defaults(spec);
  else if (isS390X(spec)) setS390xDefaults(spec);
  else setAmd64Defaults(spec);
  setDefaultCPUModel(config, spec);
}

/** Upstream's SetDefaultVirtualMachineInstanceSpec, on a copy. */
export function setDefaultVirtualMachineInstanceSpec(
  config: ClusterConfig,
  spec: VirtualMachineInstanceSpec,
): DefaultingResult<VirtualMachineInstanceSpec> {
  const copy = structuredClone(spec);
  const problem = applySpecDefaults(config, copy);
  return problem === undefined ? { ok: true, value: copy } : { ok: false, message: problem };
}

/** Upstream's SetDefaultVirtualMachineInstance, on a copy: spec defaults, API defaults, initial status. */
export function setDefaultVirtualMachineInstance(
  config: ClusterConfig,
  vmi: VirtualMachineInstance,
  options: DefaultingOptions = {},
): DefaultingResult<VirtualMachineInstance> {
  const copy = structuredClone(vmi);
  const spec = copy.spec;
  const problem = applySpecDefaults(config, spec);
  if (problem !== undefined) return { ok: false, message: problem };
  if (isS390X(spec)) setS390xDefaultFeatures(spec);
  setObjectDefaults(spec, options.newUUID ?? newRandomUUID);
  // A dependency the user switched off is left for the validating webhook to refuse.
  setHypervFeatureDependencies(spec);
  setDefaultCPUArch(config, spec);
  setGuestMemoryStatus(copy);
  setCurrentCPUTopologyStatus(copy);
  // Hotplug is not enabled on arm64 upstream yet.
  if (!isARM64(spec)) setupHotplug(config, spec);
  return { ok: true, value: copy };
}

/** Upstream's SetVirtualMachineDefaults, on a copy: architecture and machine type of the template. */
export function setVirtualMachineDefaults(config: ClusterConfig, vm: VirtualMachine): VirtualMachine {
  const copy = structuredClone(vm);
  // Without a template there is nothing to default; the validating webhook refuses the VM.
  const template = copy.spec?.template;
  if (!template) return copy;
  // Go's template spec is a plain struct: it is there even when the user left it out.
  const templateSpec = (template.spec ??= { domain: { devices: {} } });
  setDefaultArchitecture(config, templateSpec);
  templateSpec.domain ??= { devices: {} };
  if (!templateSpec.domain.machine?.type) {
    templateSpec.domain.machine = {
      ...templateSpec.domain.machine,
      type: config.getMachineType(templateSpec.architecture),
    };
  }
  return copy;
}
