import { describe, expect, it } from "vitest";
import { topLevelKinds } from "./kinds.js";
import { parseSwagger } from "./swagger.js";

const ref = (name: string) => ({ schema: { $ref: `#/definitions/${name}` } });
const operations = (...names: string[]) => ({
  get: { responses: Object.fromEntries(names.map((n, i) => [String(200 + i), ref(n)])) },
  parameters: [{ name: "namespace" }],
});

describe("topLevelKinds", () => {
  const doc = parseSwagger({
    swagger: "2.0",
    definitions: {},
    paths: {
      "/apis/pool.kubevirt.io/v1beta1/virtualmachinepools": operations(
        "v1beta1.VirtualMachinePoolList",
        "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
      ),
      "/apis/pool.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachinepools": operations(
        "v1beta1.VirtualMachinePool",
        "v1beta1.VirtualMachinePoolList",
      ),
      "/apis/pool.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachinepools/{name}": operations(
        "v1beta1.VirtualMachinePool",
      ),
      "/apis/migrations.kubevirt.io/v1alpha1/migrationpolicies": operations(
        "v1alpha1.MigrationPolicy",
        "v1alpha1.MigrationPolicyList",
      ),
      "/apis/subresources.kubevirt.io/v1/healthz": { get: { responses: { "200": { description: "OK" } } } },
    },
  });

  it("derives group, version, plural, scope and definitions from the collection paths", () => {
    expect(topLevelKinds(doc)).toEqual([
      {
        group: "migrations.kubevirt.io",
        version: "v1alpha1",
        kind: "MigrationPolicy",
        plural: "migrationpolicies",
        namespaced: false,
        definition: "v1alpha1.MigrationPolicy",
        listDefinition: "v1alpha1.MigrationPolicyList",
      },
      {
        group: "pool.kubevirt.io",
        version: "v1beta1",
        kind: "VirtualMachinePool",
        plural: "virtualmachinepools",
        namespaced: true,
        definition: "v1beta1.VirtualMachinePool",
        listDefinition: "v1beta1.VirtualMachinePoolList",
      },
    ]);
  });
});
