// Helpers for the admitter tests (not used by production code): a VMI spec every rule accepts, changed
// one rule at a time, and causes written compactly.
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { CauseType, specPath, type StatusCause } from "../../../../api/causes.js";
import { validateVirtualMachineInstanceSpec } from "./spec.js";

/** The skeleton's VM: containerDisk + cloud-init, masquerade on the pod network, 64Mi. */
export function validSpec(): VirtualMachineInstanceSpec {
  return {
    architecture: "amd64",
    domain: {
      resources: { requests: { memory: "64Mi" } },
      devices: {
        disks: [
          { name: "containerdisk", disk: { bus: "virtio" } },
          { name: "cloudinitdisk", disk: { bus: "virtio" } },
        ],
        interfaces: [{ name: "default", masquerade: {} }],
      },
    },
    networks: [{ name: "default", pod: {} }],
    volumes: [
      { name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } },
      { name: "cloudinitdisk", cloudInitNoCloud: { userData: "#cloud-config\n" } },
    ],
  };
}

export function specWith(change: (spec: VirtualMachineInstanceSpec) => void): VirtualMachineInstanceSpec {
  const spec = validSpec();
  change(spec);
  return spec;
}

export const defaultConfig = (): ClusterConfig => clusterWith();

/** The shared spec validation of a changed valid spec, at `spec`. */
export function specCauses(
  change: (spec: VirtualMachineInstanceSpec) => void,
  config: ClusterConfig = defaultConfig(),
): StatusCause[] {
  return validateVirtualMachineInstanceSpec(specPath(), specWith(change), config);
}

const make =
  (reason: CauseType) =>
  (field: string | undefined, message: string): StatusCause =>
    field === undefined ? { reason, message } : { reason, message, field };

export const invalid = make(CauseType.Invalid);
export const required = make(CauseType.Required);
export const duplicate = make(CauseType.Duplicate);
export const notSupported = make(CauseType.NotSupported);
export const notFound = make(CauseType.NotFound);
export const forbidden = make(CauseType.Forbidden);

/** One row of a rule table: a change to the valid spec and exactly the causes it must bring. */
export interface RuleRow {
  rule: string;
  change: (spec: VirtualMachineInstanceSpec) => void;
  causes: StatusCause[];
  config?: ClusterConfig;
}
