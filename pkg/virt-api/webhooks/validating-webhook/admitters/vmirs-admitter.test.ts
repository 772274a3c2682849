// The VMI replica set admitter: the selector is required, parses and matches the template's labels.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceReplicaSet } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { ValidationContext } from "./admission.js";
import { admitReplicaSet } from "./vmirs-admitter.js";
import { invalid, required, specWith, validSpec } from "./testing.js";

const context: ValidationContext = { clusterConfig: clusterWith(), kubeVirtServiceAccounts: new Set() };

function replicaSet(
  selector: unknown,
  labels: Record<string, string> = { app: "web" },
  spec = validSpec(),
): Record<string, unknown> {
  const object: VirtualMachineInstanceReplicaSet = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceReplicaSet",
    metadata: { name: "rs" },
    spec: { replicas: 2, selector: {}, template: { metadata: { labels }, spec } },
  };
  const raw = structuredClone(object) as unknown as { spec: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  if (selector === undefined) delete raw.spec.selector;
  else raw.spec.selector = selector;
  return raw;
}

const admit = (object: unknown) => admitReplicaSet({ operation: "CREATE", object }, context);

describe("VMI replica set admitter", () => {
  it.each([
    ["matchLabels", { matchLabels: { app: "web" } }],
    ["matchExpressions", { matchExpressions: [{ key: "app", operator: "In", values: ["web", "db"] }] }],
    ["an empty selector (selects everything)", {}],
  ])("admits a selector using %s that matches the template", (_how, selector) => {
    expect(admit(replicaSet(selector)).causes).toEqual([]);
  });

  it("requires a selector", () => {
    expect(admit(replicaSet(undefined)).causes).toEqual([required("spec.selector", "Required value")]);
  });

  it("refuses a selector that does not match the template's labels", () => {
    expect(admit(replicaSet({ matchLabels: { app: "db" } })).causes).toEqual([
      invalid("spec.selector", "selector does not match labels."),
    ]);
  });

  it("refuses a selector that does not parse, with apimachinery's message", () => {
    expect(admit(replicaSet({ matchExpressions: [{ key: "app", operator: "Near" }] })).causes).toEqual([
      invalid("spec.selector", '"Near" is not a valid label selector operator'),
    ]);
  });

  it("validates the template at spec.template.spec", () => {
    const spec = specWith((s) => s.domain.devices.disks?.push({ name: "orphan" }));
    expect(admit(replicaSet({ matchLabels: { app: "web" } }, { app: "web" }, spec)).causes).toEqual([
      invalid(
        "spec.template.spec.domain.devices.disks[2].name",
        "spec.template.spec.domain.devices.disks[2].Name 'orphan' not found.",
      ),
    ]);
  });
});
