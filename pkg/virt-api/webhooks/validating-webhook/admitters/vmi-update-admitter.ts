// The VirtualMachineInstance update admitter (upstream vmi-update-admitter.go): the spec of a VMI is
// immutable except for KubeVirt's own service accounts (which change it through subresources), virt-handler
// may only touch the VMIs of its node when NodeRestriction is on, and only KubeVirt may change its
// reserved labels. Like upstream, each check answers on its own (the first failing one decides).
import { parseDefinition } from "../../../../api/parse.js";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { admitHotplugStorage, admitUtilityVolumes } from "../../../../storage/admitters/storage-hotplug.js";
import { semanticallyEqual } from "../../../../apimachinery/semantic-equal.js";
import {
  accepted,
  refused,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./admission.js";
import {
  Path,
  fieldErrorCauses,
  invalidCause,
  notSupportedCause,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateRestrictedLabelsUnchanged } from "./metadata.js";
import { quantityOf } from "./quantities.js";

/** The extra userInfo key the apiserver fills for node-bound service account tokens. */
export const NodeNameExtraInfo = "authentication.kubernetes.io/node-name";
export const HandlerServiceAccountName = "kubevirt-handler";

function isFromVirtHandler(username: string, context: ValidationContext): boolean {
  return context.kubeVirtServiceAccounts.has(username) && username.endsWith(HandlerServiceAccountName);
}

/** With NodeRestriction, virt-handler may only update the VMIs on its node (source or migration target). */
function checkNodeRestriction(
  request: ValidationRequest,
  vmi: VirtualMachineInstance,
  old: VirtualMachineInstance,
): StatusCause[] {
  const nodeName = request.extra?.[NodeNameExtraInfo]?.[0];
  if (nodeName === undefined) {
    return [invalidCause("Node restriction failed, virt-handler service account is missing node name")];
  }
  const sourceNode = old.status?.nodeName ?? "";
  const targetNode = old.status?.migrationState?.targetNode ?? "";
  if (nodeName !== sourceNode && (targetNode === "" || nodeName !== targetNode)) {
    return [invalidCause("Node restriction, virt-handler is only allowed to modify VMIs it owns")];
  }
  const newTarget = vmi.status?.migrationState?.targetNode ?? "";
  if (targetNode === "" && vmi.status?.migrationState !== undefined && newTarget !== targetNode) {
    return [invalidCause("Node restriction, virt-handler is not allowed to set target node")];
  }
  return [];
}

/**
 * What KubeVirt's own accounts may change in a running VMI's spec (upstream's admitHotplug): not the CPU
 * sockets' or guest memory's bounds; volumes, disks and utility volumes as pkg/storage/admitters allows.
 */
function checkHotplug(
  vmi: VirtualMachineInstance,
  old: VirtualMachineInstance,
  config: ClusterConfig,
): StatusCause[] {
  if ((old.spec.domain.cpu?.maxSockets ?? 0) !== (vmi.spec.domain.cpu?.maxSockets ?? 0)) {
    return [invalidCause("CPU topology maxSockets changed")];
  }
  const oldMaxGuest = old.spec.domain.memory?.maxGuest;
  const newMaxGuest = vmi.spec.domain.memory?.maxGuest;
  if (oldMaxGuest !== undefined && newMaxGuest !== undefined) {
    if (quantityOf(oldMaxGuest).compare(quantityOf(newMaxGuest)) !== 0)
      return [invalidCause("Memory maxGuest changed")];
  }
  const volumeStatuses = old.status?.volumeStatus ?? [];
  const utilityCauses = admitUtilityVolumes(vmi.spec, old.spec, volumeStatuses, config);
  if (utilityCauses.length > 0) return utilityCauses;
  return admitHotplugStorage(
    {
      newVolumes: vmi.spec.volumes ?? [],
      oldVolumes: old.spec.volumes ?? [],
      newDisks: vmi.spec.domain.devices.disks ?? [],
      oldDisks: old.spec.domain.devices.disks ?? [],
      volumeStatuses,
      newVMI: vmi,
    },
    config,
  );
}

export function validateVMIUpdate(
  request: ValidationRequest,
  vmi: VirtualMachineInstance,
  old: VirtualMachineInstance,
  context: ValidationContext,
): StatusCause[] {
  const config: ClusterConfig = context.clusterConfig;
  const username = request.username ?? "";
  if (config.isFeatureGateEnabled(FeatureGate.NodeRestriction) && isFromVirtHandler(username, context)) {
    const causes = checkNodeRestriction(request, vmi, old);
    if (causes.length > 0) return causes;
  }
  const isKubeVirtServiceAccount = context.kubeVirtServiceAccounts.has(username);
  if (!semanticallyEqual(vmi.spec, old.spec)) {
    if (!isKubeVirtServiceAccount) return [notSupportedCause("update of VMI object is restricted")];
    const causes = checkHotplug(vmi, old, config);
    if (causes.length > 0) return causes;
  }
  if (!isKubeVirtServiceAccount)
    return validateRestrictedLabelsUnchanged(vmi.metadata?.labels, old.metadata?.labels);
  return [];
}

export function admitVMIUpdate(request: ValidationRequest, context: ValidationContext): Verdict {
  const parsed = parseDefinition("v1.VirtualMachineInstance", request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const old = parseDefinition("v1.VirtualMachineInstance", request.oldObject, Path.of("oldObject"));
  if (!old.ok) return refused(fieldErrorCauses(old.errors));
  const causes = validateVMIUpdate(request, parsed.value, old.value, context);
  return causes.length > 0 ? refused(causes) : accepted();
}
