// Webhooks fail closed, so a mutator that throws blocks every create. Random JSON, upstream examples
// with random parts replaced, and random KubeVirt configurations must all get an answer, never a throw.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KubeVirt } from "../../../../api/generated/v1.js";
import { fixedUUID, leaves, loadUpstreamExamples } from "../../../../defaults/testing.js";
import { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import type { AdmissionOperation, MutationRequest, MutationResponse } from "./admission.js";
import { mutateVirtualMachine } from "./vm-mutator.js";
import { mutateVirtualMachineInstance } from "./vmi-mutator.js";

const kinds = new Set(["VirtualMachine", "VirtualMachineInstance"]);
const examples = loadUpstreamExamples().filter((example) => kinds.has(String(example.object.kind)));
const operation = fc.constantFrom<AdmissionOperation>("CREATE", "UPDATE", "DELETE");

/** An upstream example with the value at one of its paths replaced by random JSON. */
const mutatedExample = fc
  .tuple(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 3 }))
  .map(([exampleIndex, leafIndex, replacement]) => {
    const object = structuredClone(examples[exampleIndex % examples.length]?.object ?? {});
    const paths = leaves(object).map(([path]) => path);
    const path = paths[leafIndex % Math.max(paths.length, 1)] ?? [];
    // Replace the leaf or, half the time, its parent, so whole sections change shape too.
    const target = leafIndex % 2 === 0 ? path : path.slice(0, -1);
    let parent: unknown = { root: object };
    const steps: PropertyKey[] = ["root", ...target];
    for (const step of steps.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown>)[step];
    (parent as Record<PropertyKey, unknown>)[steps[steps.length - 1] ?? "root"] = replacement;
    return steps.length === 1 ? replacement : object;
  });

const kubeVirt = fc.jsonValue({ maxDepth: 4 }).map(
  (configuration) =>
    ({
      metadata: { name: "kubevirt" },
      spec: { configuration },
      status: { phase: "Deployed" },
    }) as KubeVirt,
);

function expectAnAnswer(response: MutationResponse): void {
  expect(typeof response.allowed).toBe("boolean");
  if (!response.allowed) expect(response.result?.message.length).toBeGreaterThan(0);
}

function both(request: MutationRequest, clusterConfig: ClusterConfig): void {
  const context = {
    clusterConfig,
    kubeVirtServiceAccounts: new Set<string>(),
    newUUID: fixedUUID,
    now: () => new Date(0),
  };
  expectAnAnswer(mutateVirtualMachineInstance(request, context));
  expectAnAnswer(mutateVirtualMachine(request, context));
}

describe("mutators on hostile input", () => {
  it("answer random JSON", () => {
    fc.assert(
      fc.property(operation, fc.jsonValue(), fc.jsonValue(), (op, object, oldObject) => {
        both({ operation: op, object, oldObject, username: "fuzz" }, ClusterConfig.defaults());
      }),
      { numRuns: 300 },
    );
  });

  it("answer upstream examples with random parts replaced", () => {
    fc.assert(
      fc.property(operation, mutatedExample, mutatedExample, (op, object, oldObject) => {
        both({ operation: op, object, oldObject, username: "fuzz" }, ClusterConfig.defaults());
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it("answer under any KubeVirt configuration", () => {
    fc.assert(
      fc.property(kubeVirt, mutatedExample, (kv, object) => {
        both({ operation: "CREATE", object }, ClusterConfig.fromKubeVirt(kv));
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});
