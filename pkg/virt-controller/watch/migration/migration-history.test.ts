import { describe, expect, it } from "vitest";
import { migrationBackoffMs, migrationsToGarbageCollect } from "./migration-history.js";
import type { StoredVMIM } from "./vmim.js";

function migration(
  name: string,
  day: number,
  phase?: string,
  annotations?: Record<string, string>,
): StoredVMIM {
  return {
    metadata: {
      name,
      uid: name,
      creationTimestamp: `2026-01-${String(day).padStart(2, "0")}T00:00:00Z`,
      annotations,
    },
    spec: { vmiName: "vmi" },
    status: phase
      ? {
          phase,
          phaseTransitionTimestamps:
            phase === "Failed"
              ? [{ phase, phaseTransitionTimestamp: `2026-01-${String(day).padStart(2, "0")}T00:00:10Z` }]
              : [],
        }
      : {},
  };
}

describe("migrationsToGarbageCollect", () => {
  it("deletes the oldest finished migrations beyond five, never running ones", () => {
    const all = [
      migration("running", 1, "Running"),
      ...[2, 3, 4, 5, 6, 7, 8].map((day) => migration(`done-${day}`, day, day % 2 ? "Failed" : "Succeeded")),
    ];
    expect(migrationsToGarbageCollect(all)).toEqual(["done-2", "done-3"]);
    expect(migrationsToGarbageCollect(all.slice(0, 6))).toEqual([]);
  });
});

describe("migrationBackoffMs", () => {
  const evacuation = { "kubevirt.io/evacuationMigration": "node01" };
  const failedAt = Date.parse("2026-01-02T00:00:10Z");

  it("waits 20 s after one failed evacuation, 40 s after two", () => {
    const one = [migration("a", 2, "Failed", evacuation), migration("b", 3, undefined, evacuation)];
    expect(migrationBackoffMs(one[1]!, one, failedAt)).toBe(20_000);
    const two = [migration("z", 1, "Failed", evacuation), ...one];
    expect(migrationBackoffMs(two[2]!, two, failedAt + 5_000)).toBe(35_000);
  });

  it.each([
    { case: "user migrations never back off", annotations: undefined },
    {
      case: "the functional-test override",
      annotations: { ...evacuation, "kubevirt.io/func-test-ignore-migration-backoff": "" },
    },
  ])("$case", ({ annotations }) => {
    const all = [migration("a", 2, "Failed", evacuation), migration("b", 3, undefined, annotations)];
    expect(migrationBackoffMs(all[1]!, all, failedAt)).toBe(0);
  });

  it("a success ends the count", () => {
    const all = [
      migration("a", 1, "Failed", evacuation),
      migration("b", 2, "Succeeded", evacuation),
      migration("c", 3, undefined, evacuation),
    ];
    expect(migrationBackoffMs(all[2]!, all, failedAt)).toBe(0);
  });
});
