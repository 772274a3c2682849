import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isAlreadyExists } from "../../pkg/controller/api-error.js";
import { KubeClient } from "../../pkg/controller/client.js";
import { coreGVR } from "../../pkg/controller/gvr.js";
import type { KubeObject } from "../../pkg/controller/object.js";
import { VirtOperatorApp } from "../../pkg/virt-operator/application.js";
import type { InstalledCrd, KubeVirtCR } from "../../pkg/virt-operator/cluster.js";
import type { Deployment, Pod } from "../../pkg/virt-operator/resource/generate/components/k8s-types.js";
import { operatorManifestObjects } from "../../pkg/virt-operator/resource/generate/components/release.js";
import { OPERATOR_RESOURCES, WATCHED_RESOURCES } from "../../pkg/virt-operator/resources.js";
import { StandInNode, markPodReady } from "../../pkg/virt-operator/testing/stand-in.js";
import { VIRT_OPERATOR_COMPONENT_FINALIZER } from "../../pkg/virt-operator/util/labels.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";
import { kubeConfig, kubectl } from "./harness.js";

// virt-operator in-process against the real apiserver. No kubelet runs its pods here: a stand-in node and
// pods play the parts that need one — the operator's own webhook endpoint (the apiserver calls it on every
// change of the KubeVirt CR) and a ready virt-api (upstream rolls out the rest only once virt-api serves).

const suffix = randomBytes(3).toString("hex");
const namespace = `kubevirt-it-${suffix}`;
/** The apiserver's advertise address: the in-process webhook server is reachable there. */
const HOST_IP = "10.243.0.1";
const WAIT = { timeout: 60_000, interval: 500 };

let client: KubeClient;
let app: VirtOperatorApp;
let node: StandInNode;
const stop = new AbortController();
let running: Promise<void> | undefined;
/** Why the operator stopped before the file ended (e.g. a lost lease), so a stalled wait names its cause. */
let stoppedEarly: unknown;
let blocked: string | undefined;
let createdPriorityClass = false;
/** The operator's last log lines, printed when a wait fails so a stall names its cause. */
const operatorLog: string[] = [];
const OPERATOR_LOG_LINES = 200;
const operatorLogger = pino(
  { level: "debug" },
  {
    write(line: string) {
      operatorLog.push(line.trimEnd());
      if (operatorLog.length > OPERATOR_LOG_LINES) operatorLog.shift();
    },
  },
);
const SERVICE_ACCOUNTS = OPERATOR_RESOURCES.serviceAccounts;
const PRIORITY_CLASSES = {
  group: "scheduling.k8s.io",
  version: "v1",
  resource: "priorityclasses",
  namespaced: false,
  kind: "PriorityClass",
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const get = <T extends KubeObject>(
  gvr: (typeof OPERATOR_RESOURCES)[keyof typeof OPERATOR_RESOURCES] | typeof WATCHED_RESOURCES.kubevirts,
  ns: string,
  name: string,
) =>
  client
    .resource<T>(gvr)
    .get(ns, name)
    .catch(() => undefined);
const kubevirt = () => get<KubeVirtCR>(WATCHED_RESOURCES.kubevirts, namespace, "kubevirt");
const managedCrds = async () =>
  (
    await client
      .resource<InstalledCrd>(OPERATOR_RESOURCES.crds)
      .list("", { labelSelector: "app.kubernetes.io/managed-by=virt-operator" })
  ).items;

/** What a stalled uninstall is waiting for: the CRDs left, their finalizers and Terminating condition. */
async function uninstallDiagnosis(): Promise<string> {
  const crds = (await managedCrds()).map((crd) => {
    const terminating = crd.status?.conditions?.find((c) => c.type === "Terminating");
    return `  ${crd.metadata?.name} finalizers=${JSON.stringify(crd.metadata?.finalizers ?? [])} Terminating=${terminating?.status}/${terminating?.reason}: ${terminating?.message ?? ""}`;
  });
  const kv = await kubevirt();
  return [
    `KubeVirt CR: ${JSON.stringify({ finalizers: kv?.metadata?.finalizers, phase: kv?.status?.phase, conditions: kv?.status?.conditions })}`,
    `managed CRDs left (${crds.length}):`,
    ...crds,
    `operator log (last ${operatorLog.length} lines):`,
    ...operatorLog,
  ].join("\n");
}

const condition = (kv: KubeVirtCR | undefined, type: string) =>
  kv?.status?.conditions?.find((c) => c.type === type);

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(await kubeConfig());
  const crds = await client.resource(OPERATOR_RESOURCES.crds).list("");
  const taken = crds.items.map((c) => c.metadata?.name ?? "").filter((n) => n.endsWith("kubevirt.io"));
  if (taken.length > 0) {
    blocked = `kubevirt CRDs already exist (${taken.slice(0, 3).join(", ")}...): another KubeVirt install owns this cluster`;
    console.warn(`[virt-operator] skipping: ${blocked}`);
    return;
  }
  const swagger = loadSwagger();
  const manifest = operatorManifestObjects(
    {
      namespace,
      registry: "kubevirt-ts.local",
      tag: "devel",
      pullPolicy: "IfNotPresent",
      verbosity: "2",
      useEmulation: true,
    },
    swagger,
  );
  await client.resource(coreGVR.namespaces).create(manifest[0]!);
  await client.resource(OPERATOR_RESOURCES.crds).create(manifest[1]!);
  // Infrastructure pods ask for this priority class: without it the apiserver refuses them.
  await client
    .resource(PRIORITY_CLASSES)
    .create(manifest[2]!)
    .then(() => (createdPriorityClass = true))
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });

  // Pods can only be created once the namespace's default ServiceAccount exists.
  await vi.waitFor(() => client.resource(SERVICE_ACCOUNTS).get(namespace, "default"), WAIT);

  // The operator's webhook Service selects kubevirt.io=virt-operator pods on port "webhooks".
  const webhookPort = await freePort();
  node = new StandInNode(client, `virt-operator-it-${suffix}`);
  await node.create();
  await node.runPod(
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace, name: "virt-operator-in-process", labels: { "kubevirt.io": "virt-operator" } },
      spec: {
        containers: [
          {
            name: "virt-operator",
            image: "kubevirt-ts.local/virt-operator:devel",
            ports: [{ name: "webhooks", containerPort: webhookPort }],
          },
        ],
      },
    },
    HOST_IP,
  );

  app = new VirtOperatorApp({
    kubeConfig: await kubeConfig(),
    namespace,
    env: { VIRT_OPERATOR_IMAGE: "kubevirt-ts.local/virt-operator:devel" },
    host: "0.0.0.0",
    port: 0,
    webhookPort,
    identity: `it-${suffix}`,
    logger: operatorLogger,
    swagger,
    // Upstream's default lease timings: this file tests no fail-over, and a 3 s renew deadline was missed
    // on a loaded CI machine, which stops the operator (as upstream's exits) mid-uninstall.
  });
  running = app.run(stop.signal);
  running.catch((err: unknown) => {
    stoppedEarly = err;
    console.error("[virt-operator] stopped:", err);
  });
});

afterAll(async () => {
  stop.abort();
  await running?.catch(() => undefined);
  if (blocked) return;
  // Leave nothing behind even when a test failed half-way.
  await kubectl(["delete", "kubevirt", "--all", "-n", namespace, "--wait=false"]);
  await kubectl([
    "patch",
    "kubevirt",
    "kubevirt",
    "-n",
    namespace,
    "--type=json",
    "-p",
    '[{"op":"remove","path":"/metadata/finalizers"}]',
  ]);
  // The operator that would take its finalizer off the CRDs is stopped: without this, a failed uninstall
  // leaves the kubevirt.io CRDs terminating for every later file on this cluster.
  for (const crd of await managedCrds()) {
    if (!crd.metadata?.finalizers?.includes(VIRT_OPERATOR_COMPONENT_FINALIZER)) continue;
    await client
      .resource(OPERATOR_RESOURCES.crds)
      .patch("", crd.metadata.name ?? "", "json", [
        {
          op: "replace",
          path: "/metadata/finalizers",
          value: crd.metadata.finalizers.filter((f) => f !== VIRT_OPERATOR_COMPONENT_FINALIZER),
        },
      ])
      .catch((err: unknown) => console.error(`[virt-operator] cleanup of ${crd.metadata?.name}:`, err));
  }
  for (const kind of [
    "validatingwebhookconfigurations",
    "mutatingwebhookconfigurations",
    "apiservices",
    "clusterroles",
    "clusterrolebindings",
    "customresourcedefinitions",
  ]) {
    await kubectl(["delete", kind, "-l", "app.kubernetes.io/managed-by=virt-operator", "--wait=false"]);
  }
  await kubectl(["delete", "crd", "kubevirts.kubevirt.io", "--wait=false"]);
  if (createdPriorityClass)
    await kubectl(["delete", "priorityclass", "kubevirt-cluster-critical", "--wait=false"]);
  await client
    .resource(coreGVR.namespaces)
    .delete("", namespace)
    .catch(() => undefined);
  await node?.delete();
});

describe("virt-operator against a real apiserver", () => {
  it("installs everything of a new KubeVirt CR and reports Deploying", async ({ skip }) => {
    if (blocked) return skip(blocked);
    const cr: KubeVirtCR = {
      apiVersion: "kubevirt.io/v1",
      kind: "KubeVirt",
      metadata: { name: "kubevirt", namespace },
      spec: {
        configuration: { developerConfiguration: { useEmulation: true } },
        // Keep virt-handler pods off the cluster's real nodes: this test runs no components.
        workloads: { nodePlacement: { nodeSelector: { "kubevirt-ts/integration": "no-node" } } },
      },
    };
    await client.resource(WATCHED_RESOURCES.kubevirts).create(cr);

    await vi.waitFor(
      async () => expect(await get(OPERATOR_RESOURCES.deployments, namespace, "virt-api")).toBeDefined(),
      WAIT,
    );
    const crds = await client
      .resource(OPERATOR_RESOURCES.crds)
      .list("", { labelSelector: "app.kubernetes.io/managed-by=virt-operator" });
    expect(crds.items.map((c) => c.metadata?.name)).toEqual(
      expect.arrayContaining(["virtualmachines.kubevirt.io", "virtualmachineinstances.kubevirt.io"]),
    );
    for (const name of ["kubevirt-apiserver", "kubevirt-controller", "kubevirt-handler"]) {
      expect(await get(OPERATOR_RESOURCES.serviceAccounts, namespace, name), name).toBeDefined();
    }
    const admin = await get(OPERATOR_RESOURCES.clusterRoles, "", "kubevirt.io:admin");
    expect(admin?.metadata?.labels).toMatchObject({ "rbac.authorization.k8s.io/aggregate-to-admin": "true" });
    for (const name of [
      "kubevirt-ca",
      "kubevirt-virt-api-certs",
      "kubevirt-virt-handler-server-certs",
      "kubevirt-virt-handler-certs",
      "kubevirt-controller-certs",
      "kubevirt-operator-certs",
    ]) {
      expect(await get(OPERATOR_RESOURCES.secrets, namespace, name), name).toBeDefined();
    }
    const bundle = await get<KubeObject & { data?: Record<string, string> }>(
      OPERATOR_RESOURCES.configMaps,
      namespace,
      "kubevirt-ca",
    );
    expect(bundle?.data?.["ca-bundle"]).toContain("BEGIN CERTIFICATE");
    const service = await get<KubeObject & { spec: { ports: Array<{ port: number; targetPort: number }> } }>(
      OPERATOR_RESOURCES.services,
      namespace,
      "virt-api",
    );
    expect(service?.spec.ports[0]).toMatchObject({ port: 443, targetPort: 8443 });
    for (const name of ["virt-api-validator", "virt-operator-validator"]) {
      expect(await get(OPERATOR_RESOURCES.validatingWebhooks, "", name), name).toBeDefined();
    }
    expect(await get(OPERATOR_RESOURCES.mutatingWebhooks, "", "virt-api-mutator")).toBeDefined();
    for (const name of ["v1.subresources.kubevirt.io", "v1alpha3.subresources.kubevirt.io"]) {
      expect(await get(OPERATOR_RESOURCES.apiServices, "", name), name).toBeDefined();
    }
    const api = await get<Deployment>(OPERATOR_RESOURCES.deployments, namespace, "virt-api");
    expect(api?.metadata?.labels).toMatchObject({
      "kubevirt.io": "virt-api",
      "app.kubernetes.io/managed-by": "virt-operator",
    });
    expect(api?.metadata?.annotations).toMatchObject({
      "kubevirt.io/install-strategy-version": "devel",
      "kubevirt.io/install-strategy-registry": "kubevirt-ts.local",
    });

    await vi.waitFor(async () => {
      const kv = await kubevirt();
      expect(kv?.status?.phase).toBe("Deploying");
      expect(condition(kv, "Progressing")).toMatchObject({ status: "True", reason: "DeploymentInProgress" });
      expect(condition(kv, "Available")).toMatchObject({ status: "False", reason: "DeploymentInProgress" });
      expect(kv?.metadata?.finalizers).toContain("kubevirt.io/foregroundDeleteKubeVirt");
    }, WAIT);
  });

  it("rolls out virt-controller and virt-handler once virt-api is ready, still Progressing", async ({
    skip,
  }) => {
    if (blocked) return skip(blocked);
    const pods = await vi.waitFor(async () => {
      const list = await client
        .resource<Pod>(coreGVR.pods)
        .list(namespace, { labelSelector: "kubevirt.io=virt-api" });
      expect(list.items.length).toBeGreaterThan(0);
      return list.items;
    }, WAIT);
    await markPodReady(client, pods[0]!);

    await vi.waitFor(async () => {
      expect(await get(OPERATOR_RESOURCES.deployments, namespace, "virt-controller")).toBeDefined();
      expect(await get(OPERATOR_RESOURCES.daemonSets, namespace, "virt-handler")).toBeDefined();
    }, WAIT);
    const handler = await get<
      KubeObject & {
        spec: { template: { spec: { containers: Array<{ securityContext?: { privileged?: boolean } }> } } };
      }
    >(OPERATOR_RESOURCES.daemonSets, namespace, "virt-handler");
    expect(handler?.spec.template.spec.containers[0]?.securityContext?.privileged).toBe(true);
    const kv = await kubevirt();
    expect(kv?.status?.phase).toBe("Deploying");
    expect(condition(kv, "Available")?.status).toBe("False");
  });

  it("uninstalls everything when the KubeVirt CR is deleted, through its own delete webhook", async ({
    skip,
  }) => {
    if (blocked) return skip(blocked);
    // The apiserver asks the operator's own webhook first (kubevirt-validator.kubevirt.io).
    const deleted = await kubectl(["delete", "kubevirt", "kubevirt", "-n", namespace, "--wait=false"]);
    expect(deleted.stderr).toBe("");
    expect(deleted.code).toBe(0);

    await vi
      .waitFor(
        async () => {
          expect(stoppedEarly, "the operator stopped before the uninstall ended").toBeUndefined();
          expect(await kubevirt()).toBeUndefined();
        },
        {
          timeout: 90_000,
          interval: 1000,
        },
      )
      .catch(async (err: unknown) => {
        console.error(`[virt-operator] the uninstall stalled:\n${await uninstallDiagnosis()}`);
        throw err;
      });
    expect((await managedCrds()).filter((c) => !c.metadata?.deletionTimestamp)).toEqual([]);
    expect(await get(OPERATOR_RESOURCES.clusterRoles, "", "kubevirt.io:admin")).toBeUndefined();
    expect(await get(OPERATOR_RESOURCES.validatingWebhooks, "", "virt-api-validator")).toBeUndefined();
    expect(await get(OPERATOR_RESOURCES.apiServices, "", "v1.subresources.kubevirt.io")).toBeUndefined();
    expect(await get(OPERATOR_RESOURCES.deployments, namespace, "virt-api")).toBeUndefined();
    expect(await get(OPERATOR_RESOURCES.daemonSets, namespace, "virt-handler")).toBeUndefined();
    expect(await get(OPERATOR_RESOURCES.secrets, namespace, "kubevirt-ca")).toBeUndefined();
  });
});
