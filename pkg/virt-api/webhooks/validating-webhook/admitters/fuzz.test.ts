// Webhooks fail closed, so an admitter that throws blocks every write of its kind. Random JSON and
// upstream examples with random parts replaced must always get a verdict, and every cause must say what
// is wrong and where (upstream leaves the field out of a few causes; those are listed here).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KubeVirt } from "../../../../api/generated/v1.js";
import { leaves, loadUpstreamExamples } from "../../../../defaults/testing.js";
import { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import type { AdmissionOperation, ValidationContext, ValidationRequest, Verdict } from "./admission.js";
import { admitReplicaSet } from "./vmirs-admitter.js";
import { admitVirtualMachinePool } from "./vmpool-admitter.js";
import { admitVMICreate } from "./vmi-create-admitter.js";
import { admitVMIUpdate } from "./vmi-update-admitter.js";
import { admitVirtualMachine } from "./vms-admitter.js";

const HANDLER = "system:serviceaccount:kubevirt:kubevirt-handler";
const kinds = new Set([
  "VirtualMachine",
  "VirtualMachineInstance",
  "VirtualMachineInstanceReplicaSet",
  "VirtualMachinePool",
]);
const examples = loadUpstreamExamples().filter((example) => kinds.has(String(example.object.kind)));

/** Upstream causes that name no field. */
const FIELDLESS_MESSAGES = [
  /^no memory requested, at least one of /,
  /^update of VMI object is restricted$/,
  /^modification of the following reserved kubevirt\.io\/ labels on a VMI object is prohibited$/,
  /^CPU topology maxSockets changed$/,
  /^Memory maxGuest changed$/,
  /^Node restriction/,
  // Upstream's AdmitHotplugStorage and AdmitUtilityVolumes (KubeVirt's own accounts changing a VMI's storage).
  /^mismatch between volumes declared \(\d+\) and required \(\d+\)$/,
  /^Number of permanent volumes has changed$/,
  /^permanent (volume .*, not found|volume .*, changed|disk .*, changed)$/,
  /^hotplug (volume|disk) .*, changed$/,
  /^volume .* (doesn't have a matching disk|is not a PVC or DataVolume)$/,
  /^disk .* does not exist$/,
  /^Hotplug configuration for /,
  /^utility volume .* (cannot be a permanent volume, utility volumes must always be hotplug|has changed)$/,
  /^(Passt|Macvtap) network binding is discontinued since v1\.3\./,
  /^Could not fetch old vmpool$/,
];

const operation = fc.constantFrom<AdmissionOperation>("CREATE", "UPDATE");
const username = fc.constantFrom("alice", HANDLER);

/** An upstream example with the value at one of its paths replaced by random JSON. */
const mutatedExample = fc
  .tuple(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 3 }))
  .map(([exampleIndex, leafIndex, replacement]) => {
    const object = structuredClone(examples[exampleIndex % examples.length]?.object ?? {});
    const paths = leaves(object).map(([path]) => path);
    const path = paths[leafIndex % Math.max(paths.length, 1)] ?? [];
    // Replace the leaf or, half the time, its parent, so whole sections change shape too.
    const target = leafIndex % 2 === 0 ? path : path.slice(0, -1);
    if (target.length === 0) return replacement;
    let parent: unknown = object;
    for (const step of target.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown>)[step];
    (parent as Record<PropertyKey, unknown>)[target[target.length - 1] ?? ""] = replacement;
    return object;
  });

const kubeVirt = fc.jsonValue({ maxDepth: 4 }).map(
  (configuration) =>
    ({
      metadata: { name: "kubevirt" },
      spec: { configuration },
      status: { phase: "Deployed" },
    }) as KubeVirt,
);

function expectWellFormed(verdict: Verdict): void {
  expect(Array.isArray(verdict.causes)).toBe(true);
  for (const cause of verdict.causes) {
    expect(cause.reason).toMatch(/^[A-Za-z]+$/);
    expect(cause.message?.length ?? 0).toBeGreaterThan(0);
    if (cause.field === undefined) {
      expect(FIELDLESS_MESSAGES.some((pattern) => pattern.test(cause.message ?? ""))).toBe(true);
    } else {
      // Any JSON key can be a field name (`__proto__`, even ""), so the path is only required to be there.
      expect(cause.field.length).toBeGreaterThan(0);
      expect(cause.field).not.toContain("undefined");
    }
  }
}

function admitAll(request: ValidationRequest, clusterConfig: ClusterConfig): void {
  const context: ValidationContext = { clusterConfig, kubeVirtServiceAccounts: new Set([HANDLER]) };
  expectWellFormed(admitVMICreate(request, context));
  expectWellFormed(admitVMIUpdate(request, context));
  expectWellFormed(admitVirtualMachine(request, context));
  expectWellFormed(admitReplicaSet(request, context));
  expectWellFormed(admitVirtualMachinePool(request, context));
}

describe("validating admitters on hostile input", () => {
  it("answer random JSON", () => {
    fc.assert(
      fc.property(operation, username, fc.jsonValue(), fc.jsonValue(), (op, user, object, oldObject) => {
        admitAll({ operation: op, object, oldObject, username: user }, ClusterConfig.defaults());
      }),
      { numRuns: 300 },
    );
  });

  it("answer upstream examples with random parts replaced", () => {
    fc.assert(
      fc.property(operation, username, mutatedExample, mutatedExample, (op, user, object, oldObject) => {
        admitAll(
          {
            operation: op,
            object,
            oldObject,
            username: user,
            extra: { "authentication.kubernetes.io/node-name": ["n"] },
          },
          ClusterConfig.defaults(),
        );
      }),
      { numRuns: 400 },
    );
  }, 60_000);

  it("answer under any KubeVirt configuration", () => {
    fc.assert(
      fc.property(kubeVirt, mutatedExample, (kv, object) => {
        admitAll({ operation: "CREATE", object, oldObject: object }, ClusterConfig.fromKubeVirt(kv));
      }),
      { numRuns: 200 },
    );
  }, 60_000);

  it("reach the rules behind the schema check (not only parse errors)", () => {
    let refusedBeyondSchema = 0;
    fc.assert(
      fc.property(mutatedExample, (object) => {
        const context = {
          clusterConfig: ClusterConfig.defaults(),
          kubeVirtServiceAccounts: new Set<string>(),
        };
        const verdict = admitVMICreate({ operation: "CREATE", object }, context);
        if (
          verdict.causes.some(
            (cause) => !/^(Required value|Invalid value|Unsupported value)/.test(cause.message ?? ""),
          )
        ) {
          refusedBeyondSchema++;
        }
      }),
      { numRuns: 200 },
    );
    expect(refusedBeyondSchema).toBeGreaterThan(0);
  }, 60_000);
});
