// Metadata rules of a VMI (or VMI template): KubeVirt's reserved labels may only be set by KubeVirt's own
// service accounts, and the ignition and hook-sidecar annotations need their feature gates
// (upstream ValidateVirtualMachineInstanceMetadata and the update admitter's label check).
import type { ObjectMeta } from "../../../../api/generated/k8s.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { invalidCause, notSupportedCause, type Path, type StatusCause } from "../../../../api/causes.js";

export const IgnitionAnnotation = "kubevirt.io/ignitiondata";
export const HookSidecarListAnnotation = "hooks.kubevirt.io/hookSidecars";

/** Labels KubeVirt's controllers set and rely on. */
export const RESTRICTED_VMI_LABELS: ReadonlySet<string> = new Set([
  "kubevirt.io/created-by",
  "kubevirt.io/migrationJobUID",
  "kubevirt.io/nodeName",
  "kubevirt.io/migrationTargetNodeName",
  "kubevirt.io/schedulable",
  "kubevirt.io/install-strategy",
]);

export function restrictedLabels(
  labels: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return Object.fromEntries(Object.entries(labels ?? {}).filter(([key]) => RESTRICTED_VMI_LABELS.has(key)));
}

export function validateVMIMetadata(
  field: Path,
  metadata: ObjectMeta | undefined,
  config: ClusterConfig,
  isKubeVirtServiceAccount: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const annotations = metadata?.annotations ?? {};
  if (!isKubeVirtServiceAccount && Object.keys(restrictedLabels(metadata?.labels)).length > 0) {
    causes.push(
      notSupportedCause(
        "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited",
        field.child("labels"),
      ),
    );
  }
  if ((annotations[IgnitionAnnotation] ?? "") !== "" && !config.isFeatureGateEnabled(FeatureGate.Ignition)) {
    const entry = field.child("annotations", IgnitionAnnotation).toString();
    causes.push(
      invalidCause(
        `ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry ${entry}`,
        field.child("annotations"),
      ),
    );
  }
  if (
    (annotations[HookSidecarListAnnotation] ?? "") !== "" &&
    !config.isFeatureGateEnabled(FeatureGate.Sidecar)
  ) {
    const entry = field.child("annotations", HookSidecarListAnnotation).toString();
    causes.push(
      invalidCause(
        `sidecar feature gate is not enabled in kubevirt-config, invalid entry ${entry}`,
        field.child("annotations"),
      ),
    );
  }
  return causes;
}

/** On update, only KubeVirt may change its reserved labels; upstream names no field. */
export function validateRestrictedLabelsUnchanged(
  newLabels: Readonly<Record<string, string>> | undefined,
  oldLabels: Readonly<Record<string, string>> | undefined,
): StatusCause[] {
  const before = restrictedLabels(oldLabels);
  const after = restrictedLabels(newLabels);
  const unchanged =
    Object.keys(before).length === Object.keys(after).length &&
    Object.entries(after).every(([key, value]) => Object.hasOwn(before, key) && before[key] === value);
  if (unchanged) return [];
  return [
    notSupportedCause(
      "modification of the following reserved kubevirt.io/ labels on a VMI object is prohibited",
    ),
  ];
}
