import { describe, expect, it } from "vitest";
import {
  clusterMigrationConfiguration,
  effectiveMigrationConfiguration,
  matchPolicy,
  migrationConfByPolicy,
} from "./migration-policy.js";
import type { StoredMigrationPolicy } from "./vmim.js";

function policy(
  name: string,
  vmi?: Record<string, string>,
  namespace?: Record<string, string>,
  fields: Partial<StoredMigrationPolicy["spec"]> = {},
): StoredMigrationPolicy {
  const selectors = { virtualMachineInstanceSelector: vmi, namespaceSelector: namespace };
  return { metadata: { name }, spec: { selectors, ...fields } };
}

const vmiLabels = { app: "db", tier: "gold", zone: "a" };
const nsLabels = { team: "storage", env: "prod" };

describe("matchPolicy (upstream's precedence)", () => {
  it.each([
    { case: "no policies", policies: [], want: undefined },
    { case: "a VMI label differs", policies: [policy("p", { app: "web" })], want: undefined },
    {
      case: "a namespace label differs",
      policies: [policy("p", undefined, { env: "dev" })],
      want: undefined,
    },
    {
      case: "more matching labels win",
      policies: [policy("one", { app: "db" }), policy("two", { app: "db", tier: "gold" })],
      want: "two",
    },
    {
      case: "namespace and VMI labels add up",
      policies: [policy("vmi2", { app: "db", tier: "gold" }), policy("mixed3", { app: "db" }, nsLabels)],
      want: "mixed3",
    },
    {
      case: "on a tie, more VMI labels win",
      policies: [policy("ns2", undefined, nsLabels), policy("vmi2", { app: "db", tier: "gold" })],
      want: "vmi2",
    },
    {
      case: "on a full tie, the first name wins",
      policies: [policy("zeta", { app: "db" }), policy("alpha", { tier: "gold" })],
      want: "alpha",
    },
    {
      case: "empty selectors match everything, with the lowest score",
      policies: [policy("catch-all"), policy("specific", { zone: "a" })],
      want: "specific",
    },
    { case: "empty selectors alone match", policies: [policy("catch-all")], want: "catch-all" },
  ])("$case", ({ policies, want }) => {
    expect(matchPolicy(policies, vmiLabels, nsLabels)?.metadata?.name).toBe(want);
  });

  it("ignores selectors when the VMI has no labels at all, as upstream", () => {
    const picked = matchPolicy([policy("ns", undefined, { env: "dev" })], undefined, nsLabels);
    expect(picked?.metadata?.name).toBe("ns");
  });

  it("never matches a policy without selectors", () => {
    const bare = { metadata: { name: "bare" }, spec: {} } as StoredMigrationPolicy;
    expect(matchPolicy([bare], vmiLabels, nsLabels)).toBeUndefined();
  });
});

describe("migrationConfByPolicy", () => {
  const cluster = clusterMigrationConfiguration({
    allowAutoConverge: false,
    allowPostCopy: false,
    bandwidthPerMigration: "0",
    completionTimeoutPerGiB: 150,
    parallelMigrationsPerCluster: 5,
  });

  it.each([
    { case: "nothing set", fields: {}, changed: false, want: {} },
    {
      case: "auto-converge",
      fields: { allowAutoConverge: true },
      changed: true,
      want: { allowAutoConverge: true },
    },
    {
      case: "bandwidth",
      fields: { bandwidthPerMigration: "64Mi" },
      changed: true,
      want: { bandwidthPerMigration: "64Mi" },
    },
    {
      case: "timeout",
      fields: { completionTimeoutPerGiB: 10 },
      changed: true,
      want: { completionTimeoutPerGiB: 10 },
    },
    {
      case: "post-copy drags workload disruption along",
      fields: { allowPostCopy: true },
      changed: true,
      want: { allowPostCopy: true, allowWorkloadDisruption: true },
    },
    {
      case: "workload disruption set on its own",
      fields: { allowPostCopy: true, allowWorkloadDisruption: false },
      changed: true,
      want: { allowPostCopy: true, allowWorkloadDisruption: false },
    },
  ])("$case", ({ fields, changed, want }) => {
    const result = migrationConfByPolicy(policy("p", {}, {}, fields), cluster);
    expect(result.changed).toBe(changed);
    expect(result.configuration).toEqual({ ...cluster, ...want });
  });

  it("the cluster's allowWorkloadDisruption follows allowPostCopy unless set", () => {
    expect(clusterMigrationConfiguration({ allowPostCopy: true }).allowWorkloadDisruption).toBe(true);
    expect(
      clusterMigrationConfiguration({ allowPostCopy: true, allowWorkloadDisruption: false })
        .allowWorkloadDisruption,
    ).toBe(false);
  });

  it("names the policy only when it changed something", () => {
    const silent = effectiveMigrationConfiguration(cluster, [policy("silent")], vmiLabels, nsLabels);
    expect(silent).toEqual({ configuration: cluster });
    const loud = effectiveMigrationConfiguration(
      cluster,
      [policy("loud", {}, {}, { allowAutoConverge: true })],
      vmiLabels,
      nsLabels,
    );
    expect(loud.policyName).toBe("loud");
    expect(loud.configuration.allowAutoConverge).toBe(true);
  });
});
