import { describe, expect, it } from "vitest";
import type { StoredVM } from "../../../controller/resources.js";
import { filterFailingVMs, filterVMsBySelectors, maxUnavailable, sortVMs } from "./pool-policy.js";
import { poolFixture, poolVMFixture } from "./testing.js";

const pool = poolFixture(4);
const vm = (index: number, change?: (vm: StoredVM) => void): StoredVM => {
  const made = poolVMFixture(pool, index);
  change?.(made);
  return made;
};
const names = (vms: readonly StoredVM[]) => vms.map((one) => one.metadata?.name);

describe("sortVMs", () => {
  const vms = [vm(10), vm(2), vm(1)];

  it("orders by the name's index, either way", () => {
    expect(names(sortVMs(vms, "AscendingOrder", () => 0))).toEqual(["pool-1", "pool-2", "pool-10"]);
    expect(names(sortVMs(vms, "DescendingOrder", () => 0))).toEqual(["pool-10", "pool-2", "pool-1"]);
  });

  it("shuffles with the random source for Random, no policy, or a policy it does not know", () => {
    const last = (n: number) => n - 1;
    for (const policy of ["Random", undefined, "Sideways"]) {
      expect(names(sortVMs(vms, policy, last))).toEqual(names(vms));
      expect(names(sortVMs(vms, policy, () => 0))).toEqual(["pool-2", "pool-1", "pool-10"]);
    }
  });
});

describe("filterVMsBySelectors", () => {
  const labelled = vm(0, (one) => (one.spec.template.metadata!.labels!.app = "web"));
  const placed = vm(1, (one) => (one.spec.template.spec!.nodeSelector = { zone: "a" }));
  const both = vm(2, (one) => {
    one.spec.template.metadata!.labels!.app = "web";
    one.spec.template.spec!.nodeSelector = { zone: "a" };
  });

  it("needs every selector given to match the VM's template", () => {
    const all = [labelled, placed, both];
    expect(names(filterVMsBySelectors(all, {}))).toEqual(["pool-0", "pool-1", "pool-2"]);
    expect(names(filterVMsBySelectors(all, { labelSelector: { matchLabels: { app: "web" } } }))).toEqual([
      "pool-0",
      "pool-2",
    ]);
    expect(
      names(
        filterVMsBySelectors(all, {
          labelSelector: { matchLabels: { app: "web" } },
          nodeSelectorRequirementMatcher: [{ key: "zone", operator: "In", values: ["a"] }],
        }),
      ),
    ).toEqual(["pool-2"]);
  });

  it("fails with upstream's words on a selector that does not parse", () => {
    expect(() =>
      filterVMsBySelectors([labelled], {
        // Typed as an enum; the apiserver's schema would let any string through.
        nodeSelectorRequirementMatcher: [{ key: "zone", operator: "Near" as "In" }],
      }),
    ).toThrow('failed to parse node selector from pool: "Near" is not a valid label selector operator');
    expect(() =>
      filterVMsBySelectors([labelled], {
        labelSelector: { matchExpressions: [{ key: "a", operator: "Gt" }] },
      }),
    ).toThrow('failed to parse label selector from pool: "Gt" is not a valid label selector operator');
  });
});

describe("maxUnavailable", () => {
  const withSetting = (replicas: number | undefined, setting?: string | number) => {
    const one = poolFixture(replicas);
    one.spec.maxUnavailable = setting;
    return maxUnavailable(one);
  };

  it.each<[number | undefined, string | number | undefined, number]>([
    [4, undefined, 4],
    [4, "25%", 1],
    [10, "25%", 2],
    [3, "10%", 1],
    [4, 2, 2],
    [4, 0, 1],
    [undefined, "100%", 1],
  ])("of %s replicas with %s is %s", (replicas, setting, expected) => {
    expect(withSetting(replicas, setting)).toBe(expected);
  });

  it("fails on a percentage that is no number", () => {
    expect(() => withSetting(4, "many%")).toThrow(
      'invalid maxUnavailable percentage: strconv.ParseInt: parsing "many": invalid syntax',
    );
  });
});

describe("filterFailingVMs", () => {
  const now = Date.parse("2026-01-01T00:10:00Z");
  const failing = (status: StoredVM["status"]) => vm(0, (one) => (one.status = status));
  const crashLoop = (since: string) =>
    failing({
      printableStatus: "CrashLoopBackOff",
      conditions: [{ type: "Ready", status: "False", lastProbeTime: since }],
    });

  it("counts consecutive start failures against the threshold (3 by default)", () => {
    expect(filterFailingVMs([failing({ startFailure: { consecutiveFailCount: 3 } })], {}, now)).toHaveLength(
      1,
    );
    expect(filterFailingVMs([failing({ startFailure: { consecutiveFailCount: 2 } })], {}, now)).toHaveLength(
      0,
    );
    expect(
      filterFailingVMs(
        [failing({ startFailure: { consecutiveFailCount: 2 } })],
        { startUpFailureThreshold: 2 },
        now,
      ),
    ).toHaveLength(1);
  });

  it("takes a failing status once Ready has been False long enough (5 minutes by default)", () => {
    expect(filterFailingVMs([crashLoop("2026-01-01T00:05:00Z")], {}, now)).toHaveLength(1);
    expect(filterFailingVMs([crashLoop("2026-01-01T00:06:00Z")], {}, now)).toHaveLength(0);
    expect(
      filterFailingVMs([crashLoop("2026-01-01T00:06:00Z")], { minFailingToStartDuration: "2m" }, now),
    ).toHaveLength(1);
  });

  it("leaves other statuses alone however long they last", () => {
    const stopped = failing({ printableStatus: "Stopped", conditions: [{ type: "Ready", status: "False" }] });
    expect(filterFailingVMs([stopped], {}, now)).toHaveLength(0);
  });
});
