import { describe, expect, it } from "vitest";
import { reconcileConditions } from "./replica-conditions.js";

const now = Date.parse("2026-01-01T00:00:00Z");
const paused = {
  type: "ReplicaPaused",
  status: "True",
  reason: "Old",
  lastTransitionTime: "2025-01-01T00:00:00Z",
};

describe("reconcileConditions", () => {
  it("appends missing conditions in the order asked, stamped now", () => {
    const result = reconcileConditions(
      [],
      [
        { type: "ReplicaFailure", cause: { reason: "FailedScaleOut", message: "boom" } },
        {
          type: "ReplicaPaused",
          cause: { reason: "SuccessfulPaused", message: "Pool controller is paused" },
        },
      ],
      now,
    );
    expect(result.conditions).toEqual([
      {
        type: "ReplicaFailure",
        status: "True",
        reason: "FailedScaleOut",
        message: "boom",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
      {
        type: "ReplicaPaused",
        status: "True",
        reason: "SuccessfulPaused",
        message: "Pool controller is paused",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ]);
    expect([...result.added]).toEqual(["ReplicaFailure", "ReplicaPaused"]);
  });

  it("keeps one already there as it is, and removes one whose cause is gone", () => {
    const current = [paused, { type: "ReplicaFailure", status: "True" }];
    const result = reconcileConditions(
      current,
      [
        { type: "ReplicaPaused", cause: { reason: "New", message: "new" } },
        { type: "ReplicaFailure", cause: undefined },
      ],
      now,
    );
    expect(result.conditions).toEqual([paused]);
    expect([...result.added]).toEqual([]);
    expect([...result.removed]).toEqual(["ReplicaFailure"]);
    expect(current).toHaveLength(2);
  });
});
