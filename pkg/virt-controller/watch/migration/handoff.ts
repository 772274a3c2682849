// Handing a migration to the virt-handlers (upstream's handleTargetPodHandoff and patchVMI): once the
// target pod is ready, the VMI's migrationState names this migration, the source and target node and pod
// and the effective migration configuration, and the VMI is labelled with the target node so that the
// target node's virt-handler starts preparing it.
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigrationState,
} from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { hasCondition } from "../../../controller/conditions.js";
import { PatchSet } from "../../../apimachinery/patch/patch.js";
import { ComputeContainerName } from "../../../util/constants.js";
import { addQuantity, quantityOf, valueOf, wholeUnits } from "../../../util/quantity-math.js";
import { isCPUDedicated } from "../../../vmitrait/vmitrait.js";
import { MemoryOverheadAnnotation } from "../../services/pod-metadata.js";
import { jsonEqual } from "../common/equality.js";
import type { EffectiveMigrationConfiguration } from "./migration-policy.js";
import { vmiHasHotplugVolumes } from "../../../controller/hotplug-volumes.js";
import {
  MigrationTargetNodeNameLabel,
  VirtualMachinePodCPULimitsLabel,
  VirtualMachinePodMemoryRequestsLabel,
  VMIConditionMemoryChange,
  VMIConditionVCPUChange,
  type StoredVMIM,
} from "./vmim.js";

export interface HandoffInput {
  migration: StoredVMIM;
  vmi: VirtualMachineInstance;
  targetPod: Pod;
  /** The target pod's attachment pods (hotplugged volumes). */
  attachmentPods: readonly Pod[];
  configuration: EffectiveMigrationConfiguration;
  reportMemoryOverhead: boolean;
}

export class HandoffError extends Error {
  override readonly name = "HandoffError";
}

const computeContainer = (pod: Pod) =>
  pod.spec.containers.find((container) => container.name === ComputeContainerName);

function targetCPULimit(pod: Pod): string {
  const compute = computeContainer(pod);
  if (!compute) throw new HandoffError("Could not find VMI compute container");
  const limit = compute.resources?.limits?.["cpu"];
  if (limit === undefined)
    throw new HandoffError("Could not find dedicated CPU limit in VMI compute container");
  return valueOf(limit).toString();
}

/** The compute container's memory request plus its hugepages requests, in the request's format. */
function targetMemoryRequest(pod: Pod): string {
  const compute = computeContainer(pod);
  if (!compute) throw new HandoffError("Could not find VMI compute container");
  const requests = compute.resources?.requests ?? {};
  let memory = requests["memory"];
  if (memory === undefined) throw new HandoffError("Could not find memory request in VMI compute container");
  for (const hugepages of ["hugepages-2Mi", "hugepages-1Gi"]) {
    const extra = quantityOf(requests[hugepages]);
    if (extra) memory = addQuantity(memory, extra);
  }
  return quantityOf(memory)?.toString() ?? memory;
}

/** The target's memory overhead as the launcher pod reports it, a BinarySI quantity. */
function targetMemoryOverhead(pod: Pod): string | undefined {
  const raw = pod.metadata.annotations?.[MemoryOverheadAnnotation];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return undefined;
  return wholeUnits(BigInt(raw), "BinarySI");
}

/** The VMI after the handoff, or undefined when it already carries this migration's state. */
export function handedOffVMI(input: HandoffInput): VirtualMachineInstance | undefined {
  const { migration, vmi, targetPod } = input;
  const current = vmi.status?.migrationState;
  if (current && current.migrationUid === migration.metadata?.uid) return undefined;
  const next = structuredClone(vmi);
  const targetNode = targetPod.spec.nodeName ?? "";
  const state: VirtualMachineInstanceMigrationState = {
    migrationUid: migration.metadata?.uid,
    targetNode,
    sourceNode: vmi.status?.nodeName,
    targetPod: targetPod.metadata.name,
  };
  if (input.reportMemoryOverhead) {
    const overhead = targetMemoryOverhead(targetPod);
    if (overhead) state.targetMemoryOverhead = overhead;
  }
  const recorded = migration.status?.migrationState;
  if (recorded) {
    if (recorded.sourcePod) state.sourcePod = recorded.sourcePod;
    if (recorded.sourcePersistentStatePVCName)
      state.sourcePersistentStatePVCName = recorded.sourcePersistentStatePVCName;
    if (recorded.targetPersistentStatePVCName)
      state.targetPersistentStatePVCName = recorded.targetPersistentStatePVCName;
  }
  const labels = (next.metadata ??= {}).labels ?? {};
  // This label is what the target node's virt-handler watches for.
  labels[MigrationTargetNodeNameLabel] = targetNode;
  next.metadata.labels = labels;
  if (vmiHasHotplugVolumes(next)) {
    const attachment = input.attachmentPods[0];
    if (!attachment) throw new HandoffError("target attachment pod not found");
    state.targetAttachmentPodUID = attachment.metadata.uid;
  }
  const { configuration, policyName } = input.configuration;
  if (policyName) state.migrationPolicyName = policyName;
  state.migrationConfiguration = structuredClone(configuration);
  if (hasCondition(vmi.status, VMIConditionVCPUChange) && isCPUDedicated(vmi))
    labels[VirtualMachinePodCPULimitsLabel] = targetCPULimit(targetPod);
  if (hasCondition(vmi.status, VMIConditionMemoryChange))
    labels[VirtualMachinePodMemoryRequestsLabel] = targetMemoryRequest(targetPod);
  next.status = { ...next.status, migrationState: state };
  return next;
}

/** Upstream's patchVMI: the migration state and the labels, each tested against what was read. */
export function migrationPatch(before: VirtualMachineInstance, after: VirtualMachineInstance): PatchSet {
  const patch = new PatchSet();
  const oldState = before.status?.migrationState;
  const newState = after.status?.migrationState;
  if (!jsonEqual(oldState, newState)) {
    if (oldState === undefined || oldState === null) {
      patch.add("/status/migrationState", newState);
    } else {
      patch.testAndSet("/status/migrationState", oldState, newState);
    }
  }
  if (!jsonEqual(before.metadata?.labels, after.metadata?.labels)) {
    patch.testAndSet("/metadata/labels", before.metadata?.labels, after.metadata?.labels);
  }
  return patch;
}

/** The VMI marked failed for a target that went away before the migration started (handleMarkMigrationFailedOnVMI). */
export function markedFailedVMI(vmi: VirtualMachineInstance, now: string): VirtualMachineInstance {
  const next = structuredClone(vmi);
  const state = { ...next.status?.migrationState };
  state.startTimestamp ??= now;
  state.endTimestamp = now;
  state.failed = true;
  state.completed = true;
  next.status = { ...next.status, migrationState: state };
  return next;
}

/** The VMI with migrationState.abortRequested set (markMigrationAbortInVmiStatus); undefined if already. */
export function abortRequestedVMI(vmi: VirtualMachineInstance): VirtualMachineInstance | undefined {
  if (vmi.status?.migrationState?.abortRequested === true) return undefined;
  const next = structuredClone(vmi);
  next.status = { ...next.status, migrationState: { ...next.status?.migrationState, abortRequested: true } };
  return next;
}
