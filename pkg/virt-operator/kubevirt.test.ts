import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { KubeVirt } from "../api/generated/v1.js";
import { silentLogger } from "../controller/log.js";
import type { KubeVirtCR } from "./cluster.js";
import { KINDS } from "../api/kinds.js";
import { newOperatorExpectations } from "./expectations.js";
import { KubeVirtController } from "./kubevirt.js";
import { COMMON_INSTANCETYPE_RESOURCES, OPERATOR_RESOURCES, WATCHED_RESOURCES } from "./resources.js";
import { FakeCluster } from "./testing/fake-cluster.js";
import { makeDaemonSetReady, makeDeploymentReady } from "./testing/workloads.js";
import { conditionOf } from "./util/conditions.js";
import { KUBEVIRT_FINALIZER } from "./util/labels.js";
import { loadSwagger } from "./util/swagger.js";

const NAMESPACE = "kubevirt";
const KEY = `${NAMESPACE}/kubevirt`;
const ENV = { VIRT_OPERATOR_IMAGE: "kubevirt-ts.local/virt-operator:devel" };

let swagger: unknown;
beforeAll(() => {
  swagger = loadSwagger();
});

function kubevirt(name = "kubevirt", namespace = NAMESPACE, spec: KubeVirt["spec"] = {}): KubeVirtCR {
  return { apiVersion: "kubevirt.io/v1", kind: "KubeVirt", metadata: { name, namespace }, spec };
}

function setup(...crs: KubeVirtCR[]) {
  const cluster = new FakeCluster();
  for (const cr of crs.length > 0 ? crs : [kubevirt()]) cluster.seed(WATCHED_RESOURCES.kubevirts, cr);
  const expectations = newOperatorExpectations();
  const controller = new KubeVirtController({
    expectations,
    client: cluster,
    stores: cluster.stores,
    commonInstancetypeStores: cluster.commonInstancetypeStores,
    operatorNamespace: NAMESPACE,
    swagger,
    env: ENV,
    logger: silentLogger,
  });
  const kv = (key = KEY) => cluster.object<KubeVirtCR>(WATCHED_RESOURCES.kubevirts, key);
  return { cluster, controller, kv, expectations };
}

/** The first pass only records the observed API version on the CR, as upstream's first step. */
async function pastApiVersionStep(env: ReturnType<typeof setup>, key = KEY) {
  await env.controller.execute(key);
  expect(env.cluster.takeWrites()).toEqual([`update kubevirts ${key}`]);
}

describe("KubeVirt controller: install", () => {
  let env: ReturnType<typeof setup>;
  beforeEach(async () => {
    env = setup();
    await pastApiVersionStep(env);
  });

  it("creates everything in upstream's order and stops at virt-api until it is ready", async () => {
    await env.controller.execute(KEY);
    const writes = env.cluster.takeWrites();
    const firstOf = (prefix: string) => writes.findIndex((w) => w.startsWith(prefix));
    const order = [
      "create validatingwebhookconfigurations virt-operator-tmp-webhook",
      "create customresourcedefinitions virtualmachineinstances.kubevirt.io",
      "create serviceaccounts kubevirt/kubevirt-apiserver",
      "create clusterroles kubevirt.io:default",
      "create clusterrolebindings",
      "create roles",
      "create rolebindings",
      "create services kubevirt/virt-api",
      "create secrets kubevirt/kubevirt-ca",
      "create configmaps kubevirt/kubevirt-ca",
      "create validatingwebhookconfigurations virt-api-validator",
      "create mutatingwebhookconfigurations virt-api-mutator",
      "create apiservices v1.subresources.kubevirt.io",
      "create secrets kubevirt/kubevirt-virt-api-certs",
      "create deployments kubevirt/virt-api",
      "create poddisruptionbudgets kubevirt/virt-api-pdb",
      `updateStatus kubevirts ${KEY}`,
      `patch kubevirts ${KEY}`,
    ];
    const positions = order.map(firstOf);
    expect(
      positions.every((p) => p >= 0),
      `missing one of ${order.join(", ")} in ${writes.join("\n")}`,
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(writes.filter((w) => w.startsWith("create customresourcedefinitions"))).toHaveLength(
      KINDS.length - 1,
    );
    expect(writes).not.toContain("create customresourcedefinitions kubevirts.kubevirt.io");
    expect(writes.some((w) => w.includes("deployments kubevirt/virt-controller"))).toBe(false);
    expect(writes.some((w) => w.includes("daemonsets"))).toBe(false);
  });

  it("reports Deploying with upstream's conditions, the target version and the finalizer", async () => {
    await env.controller.execute(KEY);
    const kv = env.kv()!;
    expect(kv.status?.phase).toBe("Deploying");
    expect(kv.metadata?.finalizers).toEqual([KUBEVIRT_FINALIZER]);
    expect(kv.status?.targetKubeVirtVersion).toBe("devel");
    expect(kv.status?.targetKubeVirtRegistry).toBe("kubevirt-ts.local");
    expect(kv.status?.observedKubeVirtVersion).toBeUndefined();
    const message = "Deploying version devel with registry kubevirt-ts.local";
    expect(conditionOf(kv as KubeVirt, "Available")).toMatchObject({
      status: "False",
      reason: "DeploymentInProgress",
      message,
    });
    expect(conditionOf(kv as KubeVirt, "Progressing")).toMatchObject({
      status: "True",
      reason: "DeploymentInProgress",
    });
    expect(conditionOf(kv as KubeVirt, "Degraded")).toMatchObject({
      status: "False",
      reason: "DeploymentInProgress",
    });
    expect(conditionOf(kv as KubeVirt, "Created")).toBeUndefined();
  });

  it("writes nothing on a second pass", async () => {
    await env.controller.execute(KEY);
    env.cluster.takeWrites();
    await env.controller.execute(KEY);
    expect(env.cluster.takeWrites()).toEqual([]);
  });

  it("rolls out virt-controller and virt-handler once virt-api is ready, and is Available only when all are", async () => {
    await env.controller.execute(KEY);
    makeDeploymentReady(env.cluster, "kubevirt/virt-api");
    env.cluster.takeWrites();
    await env.controller.execute(KEY);
    const writes = env.cluster.takeWrites();
    expect(writes).toContain("create deployments kubevirt/virt-controller");
    expect(writes).toContain("create daemonsets kubevirt/virt-handler");
    expect(
      writes.some((w) => w.startsWith("delete validatingwebhookconfigurations virt-operator-tmp-webhook")),
    ).toBe(true);
    expect(conditionOf(env.kv() as KubeVirt, "Available")?.status).toBe("False");

    makeDeploymentReady(env.cluster, "kubevirt/virt-controller");
    await env.controller.execute(KEY);
    expect(env.kv()?.status?.phase).toBe("Deploying");

    makeDaemonSetReady(env.cluster, "kubevirt/virt-handler");
    await env.controller.execute(KEY);
    const kv = env.kv() as KubeVirt;
    expect(kv.status?.phase).toBe("Deployed");
    expect(conditionOf(kv, "Available")).toMatchObject({
      status: "True",
      reason: "AllComponentsReady",
      message: "All components are ready.",
    });
    expect(conditionOf(kv, "Progressing")).toMatchObject({ status: "False", reason: "AllComponentsReady" });
    expect(conditionOf(kv, "Degraded")).toMatchObject({ status: "False", reason: "AllComponentsReady" });
    expect(conditionOf(kv, "Created")).toMatchObject({
      status: "True",
      reason: "AllResourcesCreated",
      message: "All resources were created.",
    });
    expect(kv.status?.observedKubeVirtVersion).toBe("devel");
    expect(kv.status?.observedKubeVirtRegistry).toBe("kubevirt-ts.local");
    expect(kv.status?.observedDeploymentID).toBe(kv.status?.targetDeploymentID);

    env.cluster.takeWrites();
    await env.controller.execute(KEY);
    expect(env.cluster.takeWrites()).toEqual([]);
  });

  it("deploys the common instance types and preferences only once everything is rolled out", async () => {
    await env.controller.execute(KEY);
    makeDeploymentReady(env.cluster, "kubevirt/virt-api");
    await env.controller.execute(KEY);
    makeDeploymentReady(env.cluster, "kubevirt/virt-controller");
    expect(env.cluster.all(COMMON_INSTANCETYPE_RESOURCES.clusterInstancetypes)).toEqual([]);
    makeDaemonSetReady(env.cluster, "kubevirt/virt-handler");
    env.cluster.takeWrites();
    await env.controller.execute(KEY);
    const writes = env.cluster.takeWrites();
    expect(writes.filter((w) => w.startsWith("create virtualmachineclusterinstancetypes "))).toHaveLength(65);
    expect(writes.filter((w) => w.startsWith("create virtualmachineclusterpreferences "))).toHaveLength(54);
    expect(writes).toContain("create virtualmachineclusterpreferences cirros");

    // One someone deletes wakes the CR and comes back.
    const { queue } = env.controller;
    while (queue.len() > 0) queue.done((await queue.get()) as string);
    await env.cluster.delete(COMMON_INSTANCETYPE_RESOURCES.clusterInstancetypes, "", "u1.medium");
    expect(env.controller.queue.len()).toBe(1);
    env.cluster.takeWrites();
    await env.controller.execute(KEY);
    expect(env.cluster.takeWrites()).toEqual(["create virtualmachineclusterinstancetypes u1.medium"]);

    // Turning the deployment off in the CR removes them again.
    const kv = env.kv() as KubeVirtCR;
    kv.spec = { configuration: { commonInstancetypesDeployment: { enabled: false } } };
    env.cluster.seed(WATCHED_RESOURCES.kubevirts, kv);
    await env.controller.execute(KEY);
    expect(env.cluster.all(COMMON_INSTANCETYPE_RESOURCES.clusterInstancetypes)).toEqual([]);
    expect(env.cluster.all(COMMON_INSTANCETYPE_RESOURCES.clusterPreferences)).toEqual([]);
  });

  it("re-creates an installed object someone deleted", async () => {
    await env.controller.execute(KEY);
    await env.cluster.delete(OPERATOR_RESOURCES.services, NAMESPACE, "virt-api");
    env.cluster.takeWrites();
    await env.controller.execute(KEY);
    expect(env.cluster.takeWrites()).toEqual(["create services kubevirt/virt-api"]);
  });

  it("waits for its own writes to show in the caches before acting again", async () => {
    env.expectations.services.expectCreations(KEY, 1);
    await env.controller.execute(KEY);
    expect(env.cluster.takeWrites()).toEqual([]);
    env.expectations.services.creationObserved(KEY);
    await env.controller.execute(KEY);
    expect(env.cluster.takeWrites().length).toBeGreaterThan(0);
  });
});

describe("KubeVirt controller: refusals", () => {
  it("ignores every KubeVirt CR while there are several, with upstream's condition", async () => {
    const env = setup(kubevirt(), kubevirt("second"));
    for (const key of [KEY, `${NAMESPACE}/second`]) {
      await pastApiVersionStep(env, key);
      await env.controller.execute(key);
      env.cluster.takeWrites();
      expect(conditionOf(env.kv(key) as KubeVirt, "Synchronized")).toMatchObject({
        status: "False",
        reason: "ExistingDeployment",
        message: "There is an active KubeVirt deployment",
      });
      expect(env.kv(key)?.status?.phase).toBeUndefined();
    }
    expect(env.cluster.all(OPERATOR_RESOURCES.crds)).toEqual([]);
  });

  it("ignores a KubeVirt CR outside the operator's namespace", async () => {
    const env = setup(kubevirt("kubevirt", "elsewhere"));
    await pastApiVersionStep(env, "elsewhere/kubevirt");
    await env.controller.execute("elsewhere/kubevirt");
    expect(conditionOf(env.kv("elsewhere/kubevirt") as KubeVirt, "Synchronized")?.reason).toBe(
      "ExistingDeployment",
    );
    expect(env.cluster.all(OPERATOR_RESOURCES.deployments)).toEqual([]);
  });
});

describe("KubeVirt controller: uninstall", () => {
  it("deletes CRDs first, then everything else, then drops its finalizer (Deleting → Deleted)", async () => {
    const env = setup();
    await pastApiVersionStep(env);
    await env.controller.execute(KEY);
    makeDeploymentReady(env.cluster, "kubevirt/virt-api");
    await env.controller.execute(KEY);
    env.cluster.seed(WATCHED_RESOURCES.nodes, {
      metadata: {
        name: "node01",
        labels: { "kubevirt.io/schedulable": "true", "kubernetes.io/hostname": "node01" },
      },
    });
    await env.cluster.delete(WATCHED_RESOURCES.kubevirts, NAMESPACE, "kubevirt");
    env.cluster.takeWrites();

    await env.controller.execute(KEY);
    expect(env.kv()?.status?.phase).toBe("Deleting");
    expect(conditionOf(env.kv() as KubeVirt, "Degraded")).toMatchObject({
      status: "True",
      reason: "DeletionInProgress",
    });
    const first = env.cluster.takeWrites();
    expect(
      first.filter((w) => w.startsWith("delete ")).every((w) => w.includes("customresourcedefinitions")),
    ).toBe(true);

    for (let pass = 0; pass < 5 && env.kv(); pass++) await env.controller.execute(KEY);
    expect(env.kv()).toBeUndefined();
    for (const gvr of Object.values(OPERATOR_RESOURCES))
      expect(env.cluster.all(gvr), gvr.resource).toEqual([]);
    expect(env.cluster.object(WATCHED_RESOURCES.nodes, "node01")?.metadata?.labels).toEqual({
      "kubernetes.io/hostname": "node01",
    });
  });
});
