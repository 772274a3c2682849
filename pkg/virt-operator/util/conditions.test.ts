import { describe, expect, it } from "vitest";
import type { KubeVirtStatus } from "../../api/generated/v1.js";
import {
  setConditionTimestamps,
  updateConditionsAvailable,
  updateConditionsCreated,
  updateConditionsDeleting,
  updateConditionsDeletionFailed,
  updateConditionsDeploying,
  updateConditionsFailedError,
  updateConditionsFailedExists,
  updateConditionsUpdating,
  withKubeVirtFinalizer,
  withoutKubeVirtFinalizers,
} from "./conditions.js";

const target = {
  targetKubeVirtVersion: "v2",
  targetKubeVirtRegistry: "reg",
  observedKubeVirtVersion: "v1",
  observedKubeVirtRegistry: "old",
};
const summary = (s: KubeVirtStatus) => (s.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`);

// One row per situation: what the operator records, and the conditions upstream shows for it.
describe.each<[string, (s: KubeVirtStatus) => void, string[], string | undefined]>([
  [
    "deploying",
    updateConditionsDeploying,
    [
      "Available=False/DeploymentInProgress",
      "Progressing=True/DeploymentInProgress",
      "Degraded=False/DeploymentInProgress",
    ],
    "Deploying version v2 with registry reg",
  ],
  [
    "updating",
    updateConditionsUpdating,
    [
      "Available=True/UpdateInProgress",
      "Progressing=True/UpdateInProgress",
      "Degraded=True/UpdateInProgress",
    ],
    "Transitioning from previous version v1 with registry old to target version v2 using registry reg",
  ],
  [
    "all components ready",
    updateConditionsAvailable,
    [
      "Available=True/AllComponentsReady",
      "Progressing=False/AllComponentsReady",
      "Degraded=False/AllComponentsReady",
    ],
    "All components are ready.",
  ],
  [
    "all created",
    updateConditionsCreated,
    ["Created=True/AllResourcesCreated"],
    "All resources were created.",
  ],
  [
    "deployment failed",
    (s) => updateConditionsFailedError(s, new Error("unable to create service x: boom")),
    [
      "Synchronized=False/DeploymentFailed",
      "Available=False/DeploymentFailed",
      "Progressing=False/DeploymentFailed",
      "Degraded=True/DeploymentFailed",
    ],
    "An error occurred during deployment: unable to create service x: boom",
  ],
  [
    "another KubeVirt CR is active",
    updateConditionsFailedExists,
    ["Synchronized=False/ExistingDeployment"],
    "There is an active KubeVirt deployment",
  ],
  [
    "deleting",
    updateConditionsDeleting,
    [
      "Available=False/DeletionInProgress",
      "Progressing=False/DeletionInProgress",
      "Degraded=True/DeletionInProgress",
    ],
    "Deletion was triggered",
  ],
  [
    "deletion failed",
    (s) => updateConditionsDeletionFailed(s, "nope"),
    ["Synchronized=False/DeletionFailed"],
    "An error occurred during deletion: nope",
  ],
])("%s", (_name, update, expected, message) => {
  it("sets upstream's conditions and message", () => {
    const status: KubeVirtStatus = { ...target };
    update(status);
    expect(summary(status)).toEqual(expected);
    expect(status.conditions?.[0]?.message).toBe(message);
  });
});

describe("condition transitions", () => {
  it("drops Synchronized and Created where upstream does", () => {
    const status: KubeVirtStatus = { ...target };
    updateConditionsFailedExists(status);
    updateConditionsCreated(status);
    updateConditionsDeploying(status);
    expect(summary(status).some((c) => c.startsWith("Synchronized"))).toBe(false);
    updateConditionsDeleting(status);
    expect(summary(status).some((c) => c.startsWith("Created"))).toBe(false);
  });

  it("stamps changed conditions with both times, new ones with lastProbeTime, and leaves the rest alone", () => {
    const before: KubeVirtStatus = { ...target };
    updateConditionsDeploying(before);
    const after = structuredClone(before);
    updateConditionsAvailable(after);
    updateConditionsCreated(after);
    setConditionTimestamps(before, after, "T1");
    const available = after.conditions?.find((c) => c.type === "Available");
    expect(available).toMatchObject({ lastProbeTime: "T1", lastTransitionTime: "T1" });
    expect(after.conditions?.find((c) => c.type === "Created")).toMatchObject({ lastProbeTime: "T1" });
    const again = structuredClone(after);
    updateConditionsAvailable(again);
    setConditionTimestamps(after, again, "T2");
    expect(again).toEqual(after);
  });
});

describe("finalizer", () => {
  it("is added once and replaces the deprecated one", () => {
    expect(withKubeVirtFinalizer(["other", "foregroundDeleteKubeVirt"])).toEqual([
      "other",
      "kubevirt.io/foregroundDeleteKubeVirt",
    ]);
    expect(withKubeVirtFinalizer(withKubeVirtFinalizer([]))).toEqual([
      "kubevirt.io/foregroundDeleteKubeVirt",
    ]);
    expect(withoutKubeVirtFinalizers(["kubevirt.io/foregroundDeleteKubeVirt", "other"])).toEqual(["other"]);
  });
});
