// The VM pool admitter, row by row as upstream's vmpool-admitter_test.go, with upstream's messages.
import { describe, expect, it } from "vitest";
import type { VirtualMachinePool } from "../../../../api/generated/v1beta1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { ValidationContext, ValidationRequest } from "./admission.js";
import { admitVirtualMachinePool } from "./vmpool-admitter.js";
import { invalid, required, validSpec } from "./testing.js";

const context: ValidationContext = { clusterConfig: clusterWith(), kubeVirtServiceAccounts: new Set() };

/** newValidVMPool: a selector matching the template's labels, runStrategy Always and a valid VMI template. */
function validPool(change?: (pool: VirtualMachinePool) => void): VirtualMachinePool {
  const pool: VirtualMachinePool = {
    apiVersion: "pool.kubevirt.io/v1beta1",
    kind: "VirtualMachinePool",
    metadata: { name: "pool", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "pool" } },
      virtualMachineTemplate: {
        metadata: { labels: { app: "pool" } },
        spec: { runStrategy: "Always", template: { spec: validSpec() } },
      },
    },
  };
  change?.(pool);
  return pool;
}

const admit = (object: unknown, request: Partial<ValidationRequest> = {}) =>
  admitVirtualMachinePool({ operation: "CREATE", object, ...request }, context);
const fields = (object: unknown) => admit(object).causes.map((cause) => cause.field);

describe("VM pool admitter", () => {
  it("accepts a valid pool with proactive update and scale-in policies", () => {
    const pool = validPool((p) => {
      p.spec.updateStrategy = { proactive: { selectionPolicy: { sortPolicy: "Newest" } } };
      p.spec.scaleInStrategy = {
        proactive: { selectionPolicy: { sortPolicy: "Newest" }, statePreservation: "Online" },
      };
    });
    expect(admit(pool)).toEqual({ causes: [], warnings: [] });
  });

  it("validates the template as a VM spec, then the selector", () => {
    const pool = validPool((p) => {
      p.spec.selector = { matchLabels: { match: "this" } };
      p.spec.virtualMachineTemplate = {
        spec: { template: { spec: { domain: { devices: { disks: [{ name: "testdisk" }] } } } } },
      };
    });
    expect(fields(pool)).toEqual([
      "spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[0].name",
      "spec.virtualMachineTemplate.spec.running",
      "spec.selector",
    ]);
  });

  it("refuses a selector that does not match the template's labels, or does not parse", () => {
    const mismatch = validPool((p) => (p.spec.selector = { matchLabels: { match: "not" } }));
    expect(admit(mismatch).causes).toEqual([invalid("spec.selector", "selector does not match labels.")]);
    const broken = validPool(
      (p) => (p.spec.selector = { matchExpressions: [{ key: "a", operator: "Near" }] }),
    );
    expect(admit(broken).causes).toEqual([
      invalid("spec.selector", '"Near" is not a valid label selector operator'),
    ]);
  });

  it.each<[string | number, string]>([
    [
      "invalid%",
      'maxUnavailable percentage value "invalid" is invalid: strconv.Atoi: parsing "invalid": invalid syntax',
    ],
    ["25", "maxUnavailable percentage must end with %"],
    ["0%", "maxUnavailable percentage value 0 must be between 1 and 100"],
    ["101%", "maxUnavailable percentage value 101 must be between 1 and 100"],
    [-1, "maxUnavailable must be greater than 0"],
    [0, "maxUnavailable must be greater than 0"],
  ])("refuses maxUnavailable %j", (maxUnavailable, message) => {
    expect(admit(validPool((p) => (p.spec.maxUnavailable = maxUnavailable))).causes).toEqual([
      invalid("spec.maxUnavailable", message),
    ]);
  });

  it.each<[string | number]>([["1%"], ["100%"], [3]])("accepts maxUnavailable %j", (maxUnavailable) => {
    expect(admit(validPool((p) => (p.spec.maxUnavailable = maxUnavailable))).causes).toEqual([]);
  });

  it.each([
    ["unmanaged, proactive", { unmanaged: {}, proactive: { selectionPolicy: {} } }],
    ["unmanaged, opportunistic", { unmanaged: {}, opportunistic: {} }],
    ["opportunistic, proactive", { opportunistic: {}, proactive: { selectionPolicy: {} } }],
    [
      "unmanaged, opportunistic, proactive",
      { unmanaged: {}, opportunistic: {}, proactive: { selectionPolicy: { sortPolicy: "Random" } } },
    ],
  ])("refuses the update strategies %s together", (names, updateStrategy) => {
    expect(admit(validPool((p) => (p.spec.updateStrategy = updateStrategy))).causes).toEqual([
      invalid(
        "spec.updateStrategy",
        `only one strategy can be configured at a time: but found ${names} strategies`,
      ),
    ]);
  });

  it("refuses several scale-in strategies, alongside several update strategies", () => {
    const pool = validPool((p) => {
      p.spec.updateStrategy = { opportunistic: {}, proactive: { selectionPolicy: {} } };
      p.spec.scaleInStrategy = { unmanaged: {}, proactive: { selectionPolicy: {} } };
    });
    expect(fields(pool)).toEqual(["spec.updateStrategy", "spec.scaleInStrategy"]);
    const three = validPool(
      (p) => (p.spec.scaleInStrategy = { unmanaged: {}, opportunistic: {}, proactive: {} }),
    );
    expect(admit(three).causes).toEqual([
      invalid(
        "spec.scaleInStrategy",
        "only one strategy can be configured at a time: but found unmanaged, opportunistic, proactive strategies",
      ),
    ]);
  });

  it("keeps the selector as it was on updates", () => {
    const old = validPool();
    const same = validPool((p) => (p.spec.replicas = 5));
    expect(admit(same, { operation: "UPDATE", oldObject: old }).causes).toEqual([]);
    const moved = validPool((p) => {
      p.spec.selector = { matchLabels: { app: "pool", more: "x" } };
      p.spec.virtualMachineTemplate.metadata!.labels!.more = "x";
    });
    expect(admit(moved, { operation: "UPDATE", oldObject: old }).causes).toEqual([
      invalid("spec.selector", "selector is immutable after creation."),
    ]);
  });

  it("says so when the old object on an update is no pool", () => {
    expect(admit(validPool(), { operation: "UPDATE", oldObject: "garbage" }).causes).toEqual([
      { reason: "UnexpectedServerResponse", message: "Could not fetch old vmpool" },
      invalid("spec.selector", "selector is immutable after creation."),
    ]);
  });

  it("checks the template's VM spec as the VM admitter does, dataVolumeTemplates included", () => {
    const pool = validPool((p) => {
      p.spec.virtualMachineTemplate.spec!.dataVolumeTemplates = [{ metadata: { name: "dv" }, spec: {} }];
    });
    expect(admit(pool).causes).toEqual([
      invalid(
        "spec.virtualMachineTemplate.spec.dataVolumeTemplate[0].PVC.Storage",
        "Missing Data volume PVC or Storage",
      ),
    ]);
  });

  it("answers a pool that does not parse with the schema's causes", () => {
    const pool = validPool();
    const raw = structuredClone(pool) as unknown as { spec: Record<string, unknown> };
    raw.spec.replicas = "many";
    expect(admit(raw).causes.map((cause) => cause.field)).toEqual(["spec.replicas"]);
    delete raw.spec.replicas;
    delete raw.spec.virtualMachineTemplate;
    expect(admit(raw).causes).toEqual([required("spec.virtualMachineTemplate", "Required value")]);
  });
});
