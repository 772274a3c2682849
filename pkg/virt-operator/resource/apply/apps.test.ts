import { beforeAll, describe, expect, it } from "vitest";
import type { KubeVirtCR } from "../../cluster.js";
import { OPERATOR_RESOURCES, WATCHED_RESOURCES } from "../../resources.js";
import { FakeCluster } from "../../testing/fake-cluster.js";
import { testContext } from "../../testing/reconcile-context.js";
import { targetConfigFromKubeVirt } from "../../util/config.js";
import type { DaemonSet, Deployment } from "../generate/components/k8s-types.js";
import { newApiServerDeployment } from "../generate/components/deployments.js";
import { newHandlerDaemonSet } from "../generate/components/daemonsets.js";
import { desiredApiReplicas, syncDaemonSet, syncDeployment } from "./apps.js";
import { containsDesired } from "./compare.js";

const kv = (spec: KubeVirtCR["spec"] = {}): KubeVirtCR => ({
  metadata: { name: "kubevirt", namespace: "kubevirt", generation: 3 },
  spec,
  status: { targetKubeVirtVersion: "v1", targetKubeVirtRegistry: "reg", targetDeploymentID: "id-1" },
});
const config = targetConfigFromKubeVirt(kv(), { VIRT_OPERATOR_IMAGE: "reg/virt-operator:v1" });
let api: Deployment;
let handler: DaemonSet;
beforeAll(() => {
  api = newApiServerDeployment(config, {});
  handler = newHandlerDaemonSet(config, {});
});

function schedulableNodes(cluster: FakeCluster, count: number) {
  for (let i = 0; i < count; i++) {
    cluster.seed(WATCHED_RESOURCES.nodes, {
      metadata: { name: `node${i}`, labels: { "kubevirt.io/schedulable": "true" } },
    });
  }
}

describe("workload sync", () => {
  it.each([
    [0, 2],
    [1, 1],
    [2, 2],
    [35, 3],
  ])("runs virt-api with upstream's replica count for %d schedulable nodes: %d", (nodes, replicas) => {
    expect(desiredApiReplicas(nodes)).toBe(replicas);
  });

  it("annotates the pods with the install (but not the CR generation) and places them on control-plane nodes", async () => {
    const cluster = new FakeCluster();
    schedulableNodes(cluster, 3);
    const created = await syncDeployment(testContext(cluster, kv()), api);
    const template = created.spec.template;
    expect(template.metadata?.annotations).toMatchObject({
      "kubevirt.io/install-strategy-version": "v1",
      "kubevirt.io/install-strategy-registry": "reg",
      "kubevirt.io/install-strategy-identifier": "id-1",
    });
    expect(template.metadata?.annotations?.["kubevirt.io/generation"]).toBeUndefined();
    expect(created.metadata?.annotations?.["kubevirt.io/generation"]).toBe("3");
    expect(created.metadata?.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "virt-operator",
      "app.kubernetes.io/component": "kubevirt",
    });
    expect(template.spec?.affinity?.nodeAffinity).toBeDefined();
    expect(cluster.takeWrites()).toEqual([
      "create deployments kubevirt/virt-api",
      "create poddisruptionbudgets kubevirt/virt-api-pdb",
    ]);
  });

  it("honours spec.infra.replicas, and drops the PDB of a single replica", async () => {
    const cluster = new FakeCluster();
    const ctx = testContext(cluster, kv());
    await syncDeployment(ctx, api);
    const single = testContext(cluster, { ...kv({ infra: { replicas: 1 } }), status: ctx.kv.status });
    await syncDeployment(single, api);
    expect(
      cluster.object<Deployment>(OPERATOR_RESOURCES.deployments, "kubevirt/virt-api")?.spec.replicas,
    ).toBe(1);
    expect(cluster.object(OPERATOR_RESOURCES.podDisruptionBudgets, "kubevirt/virt-api-pdb")).toBeUndefined();
  });

  it("re-applies a Deployment someone edited (its generation moved)", async () => {
    const cluster = new FakeCluster();
    const ctx = testContext(cluster, kv());
    const created = await syncDeployment(ctx, api);
    await cluster.patch(OPERATOR_RESOURCES.deployments, "kubevirt", "virt-api", [
      { op: "replace", path: "/spec/template/spec/containers/0/image", value: "evil/image" },
    ]);
    cluster.takeWrites();
    await syncDeployment(ctx, api);
    expect(cluster.takeWrites()).toEqual(["patch deployments kubevirt/virt-api"]);
    const restored = cluster.object<Deployment>(OPERATOR_RESOURCES.deployments, "kubevirt/virt-api")!;
    expect(restored.spec.template.spec?.containers[0]?.image).toBe(
      created.spec.template.spec?.containers[0]?.image,
    );
  });

  it("adds --max-devices to virt-handler from virtualMachineInstancesPerNode", async () => {
    const cluster = new FakeCluster();
    const ds = await syncDaemonSet(
      testContext(cluster, kv({ configuration: { virtualMachineInstancesPerNode: 7 } })),
      handler,
    );
    expect(ds.spec.template.spec?.containers[0]?.command).toEqual(["virt-handler", "--max-devices", "7"]);
  });
});

describe("desired-field comparison", () => {
  it.each<[unknown, unknown, boolean]>([
    [{ a: 1, b: 2 }, { a: 1 }, true],
    [{ a: 1 }, { a: 2 }, false],
    [{ a: [{ x: 1, y: 2 }] }, { a: [{ x: 1 }] }, true],
    [{ a: [1, 2] }, { a: [1] }, false],
    [{ a: null }, { a: {} }, false],
  ])("%j contains %j: %s", (actual, desired, expected) => {
    expect(containsDesired(actual, desired)).toBe(expected);
  });
});
