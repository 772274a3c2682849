import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceCondition } from "../api/generated/v1.js";
import { syncFailureCondition } from "./conditions.js";
import { SyncError } from "./sync-error.js";

describe("syncFailureCondition", () => {
  const at = (iso: string) => Date.parse(iso);

  it("records a failure, keeps its transition time while the reason holds, and clears it on success", () => {
    const status: { conditions?: VirtualMachineInstanceCondition[] } = {};
    syncFailureCondition(status, new SyncError("no pod", "FailedCreate"), at("2025-01-01T00:00:00Z"));
    const first = { type: "Synchronized", status: "False", reason: "FailedCreate", message: "no pod" };
    expect(status.conditions).toEqual([{ ...first, lastTransitionTime: "2025-01-01T00:00:00Z" }]);

    syncFailureCondition(status, new SyncError("still no pod", "FailedCreate"), at("2025-01-01T00:01:00Z"));
    expect(status.conditions).toEqual([{ ...first, lastTransitionTime: "2025-01-01T00:00:00Z" }]);

    syncFailureCondition(status, new SyncError("gone", "FailedDelete"), at("2025-01-01T00:02:00Z"));
    expect(status.conditions).toMatchObject([
      { reason: "FailedDelete", lastTransitionTime: "2025-01-01T00:02:00Z" },
    ]);

    syncFailureCondition(status, undefined, at("2025-01-01T00:03:00Z"));
    expect(status.conditions).toEqual([]);
  });
});
