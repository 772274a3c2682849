// The KubeVirt CR's phase, conditions and finalizer, with upstream's reasons and messages
// (pkg/virt-operator/util/client.go).
import type { KubeVirt, KubeVirtCondition, KubeVirtStatus } from "../../api/generated/v1.js";
import { DEPRECATED_KUBEVIRT_FINALIZER, KUBEVIRT_FINALIZER } from "./labels.js";
import { errorMessage } from "../../util/error-message.js";

export const KubeVirtPhase = {
  Deploying: "Deploying",
  Deployed: "Deployed",
  Deleting: "Deleting",
  Deleted: "Deleted",
} as const;

export const KubeVirtConditionType = {
  Available: "Available",
  Progressing: "Progressing",
  Degraded: "Degraded",
  Created: "Created",
  Synchronized: "Synchronized",
} as const;
type ConditionType = (typeof KubeVirtConditionType)[keyof typeof KubeVirtConditionType];

export const ConditionReason = {
  DeploymentFailedExisting: "ExistingDeployment",
  DeploymentFailedError: "DeploymentFailed",
  DeletionFailedError: "DeletionFailed",
  DeploymentCreated: "AllResourcesCreated",
  DeploymentReady: "AllComponentsReady",
  Deploying: "DeploymentInProgress",
  Updating: "UpdateInProgress",
  Deleting: "DeletionInProgress",
} as const;

type Status = "True" | "False";

function updateCondition(
  status: KubeVirtStatus,
  type: ConditionType,
  value: Status,
  reason: string,
  message: string,
): void {
  const conditions = status.conditions ?? [];
  const existing = conditions.find((c) => c.type === type);
  if (existing) Object.assign(existing, { status: value, reason, message });
  else conditions.push({ type, status: value, reason, message });
  status.conditions = conditions;
}

function removeCondition(status: KubeVirtStatus, type: ConditionType): void {
  if (status.conditions) status.conditions = status.conditions.filter((c) => c.type !== type);
}

export function updateConditionsDeploying(status: KubeVirtStatus): void {
  removeCondition(status, "Synchronized");
  const message = `Deploying version ${status.targetKubeVirtVersion ?? ""} with registry ${status.targetKubeVirtRegistry ?? ""}`;
  updateCondition(status, "Available", "False", ConditionReason.Deploying, message);
  updateCondition(status, "Progressing", "True", ConditionReason.Deploying, message);
  updateCondition(status, "Degraded", "False", ConditionReason.Deploying, message);
}

export function updateConditionsUpdating(status: KubeVirtStatus): void {
  removeCondition(status, "Created");
  removeCondition(status, "Synchronized");
  const message =
    `Transitioning from previous version ${status.observedKubeVirtVersion ?? ""} with registry ` +
    `${status.observedKubeVirtRegistry ?? ""} to target version ${status.targetKubeVirtVersion ?? ""} ` +
    `using registry ${status.targetKubeVirtRegistry ?? ""}`;
  updateCondition(status, "Available", "True", ConditionReason.Updating, message);
  updateCondition(status, "Progressing", "True", ConditionReason.Updating, message);
  updateCondition(status, "Degraded", "True", ConditionReason.Updating, message);
}

export function updateConditionsCreated(status: KubeVirtStatus): void {
  updateCondition(
    status,
    "Created",
    "True",
    ConditionReason.DeploymentCreated,
    "All resources were created.",
  );
}

export function updateConditionsAvailable(status: KubeVirtStatus): void {
  const message = "All components are ready.";
  updateCondition(status, "Available", "True", ConditionReason.DeploymentReady, message);
  updateCondition(status, "Progressing", "False", ConditionReason.DeploymentReady, message);
  updateCondition(status, "Degraded", "False", ConditionReason.DeploymentReady, message);
}

/** Only Synchronized: the operator ignores this CR until the situation is resolved. */
export function updateConditionsFailedExists(status: KubeVirtStatus): void {
  updateCondition(
    status,
    "Synchronized",
    "False",
    ConditionReason.DeploymentFailedExisting,
    "There is an active KubeVirt deployment",
  );
}

export function updateConditionsFailedError(status: KubeVirtStatus, err: unknown): void {
  const message = `An error occurred during deployment: ${errorText(err)}`;
  updateCondition(status, "Synchronized", "False", ConditionReason.DeploymentFailedError, message);
  updateCondition(status, "Available", "False", ConditionReason.DeploymentFailedError, message);
  updateCondition(status, "Progressing", "False", ConditionReason.DeploymentFailedError, message);
  updateCondition(status, "Degraded", "True", ConditionReason.DeploymentFailedError, message);
}

export function updateConditionsDeleting(status: KubeVirtStatus): void {
  removeCondition(status, "Created");
  removeCondition(status, "Synchronized");
  const message = "Deletion was triggered";
  updateCondition(status, "Available", "False", ConditionReason.Deleting, message);
  updateCondition(status, "Progressing", "False", ConditionReason.Deleting, message);
  updateCondition(status, "Degraded", "True", ConditionReason.Deleting, message);
}

export function updateConditionsDeletionFailed(status: KubeVirtStatus, err: unknown): void {
  updateCondition(
    status,
    "Synchronized",
    "False",
    ConditionReason.DeletionFailedError,
    `An error occurred during deletion: ${errorText(err)}`,
  );
}

function errorText(err: unknown): string {
  return errorMessage(err);
}

function sameCondition(a: KubeVirtCondition, b: KubeVirtCondition): boolean {
  return a.status === b.status && a.reason === b.reason && a.message === b.message;
}

/**
 * Stamps changed conditions with both times and new ones with lastProbeTime, as upstream does; unchanged
 * ones keep theirs so a sync that changes nothing writes nothing.
 */
export function setConditionTimestamps(before: KubeVirtStatus, after: KubeVirtStatus, now: string): void {
  for (const condition of after.conditions ?? []) {
    const previous = before.conditions?.find((c) => c.type === condition.type);
    if (previous === undefined) {
      condition.lastProbeTime = now;
    } else if (!sameCondition(previous, condition)) {
      condition.lastProbeTime = now;
      condition.lastTransitionTime = now;
    }
  }
}

export function conditionOf(kv: KubeVirt, type: ConditionType): KubeVirtCondition | undefined {
  return kv.status?.conditions?.find((c) => c.type === type);
}

function withoutKubeVirtFinalizers(finalizers: readonly string[] | undefined): string[] {
  return (finalizers ?? []).filter((f) => f !== KUBEVIRT_FINALIZER && f !== DEPRECATED_KUBEVIRT_FINALIZER);
}

export function withKubeVirtFinalizer(finalizers: readonly string[] | undefined): string[] {
  return [...withoutKubeVirtFinalizers(finalizers), KUBEVIRT_FINALIZER];
}

export { withoutKubeVirtFinalizers };
