import { describe, expect, it } from "vitest";
import type { Pod } from "../../../api/core/v1/pod.js";
import { pendingPodVerdict } from "./pending-timeout.js";
import type { StoredVMIM } from "./vmim.js";

const created = Date.parse("2026-01-01T00:00:00Z");
const unschedulable = [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }];

function pod(conditions: unknown[] = [], phase = "Pending"): Pod {
  return {
    metadata: { name: "t", namespace: "ns", creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { containers: [] },
    status: { phase, conditions },
  } as unknown as Pod;
}

const migration = (annotations: Record<string, string> = {}): StoredVMIM => ({
  metadata: { name: "m", annotations },
  spec: {},
});

describe("pendingPodVerdict (upstream's handlePendingPodTimeout)", () => {
  it.each([
    { case: "not pending", pod: pod([], "Running"), after: 10_000, want: undefined },
    {
      case: "pending, early",
      pod: pod(),
      after: 60,
      want: { unschedulable: false, requeueAfterMs: 840_000 },
    },
    {
      case: "pending 15 minutes",
      pod: pod(),
      after: 900,
      want: { unschedulable: false, deleteMessage: "pending pod ns/t timeout period exceeded" },
    },
    {
      case: "unschedulable, early",
      pod: pod(unschedulable),
      after: 100,
      want: { unschedulable: true, requeueAfterMs: 200_000 },
    },
    {
      case: "unschedulable 5 minutes",
      pod: pod(unschedulable),
      after: 300,
      want: { unschedulable: true, deleteMessage: "unschedulable pod ns/t timeout period exceeded" },
    },
  ])("$case", ({ pod: target, after, want }) => {
    expect(pendingPodVerdict(migration(), target, created + after * 1000)).toEqual(want);
  });

  it("takes the timeouts from the migration's annotations", () => {
    const custom = migration({
      "kubevirt.io/migrationUnschedulablePodTimeoutSeconds": "10",
      "kubevirt.io/migrationPendingPodTimeoutSeconds": "20",
    });
    expect(pendingPodVerdict(custom, pod(unschedulable), created + 10_000)?.deleteMessage).toContain(
      "unschedulable",
    );
    expect(pendingPodVerdict(custom, pod(), created + 20_000)?.deleteMessage).toContain("pending pod");
    const bad = migration({ "kubevirt.io/migrationPendingPodTimeoutSeconds": "soon" });
    expect(pendingPodVerdict(bad, pod(), created + 20_000)?.deleteMessage).toBeUndefined();
  });
});
