import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ApiextensionsV1Api,
  AppsV1Api,
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  VersionApi,
  type KubeConfig,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cluster, eventually, kubeConfig, kubectl } from "./harness.js";

// The upstream control plane that deploy/local builds and starts, checked against its own API.

const suffix = randomBytes(3).toString("hex");
const namespace = `controlplane-${suffix}`;
let kc: KubeConfig;
let core: CoreV1Api;

/** The release deploy/local/go/kube pins, e.g. v1.34.4. */
const pinnedRelease = (() => {
  const goMod = readFileSync(join(cluster.repoRoot, "deploy/local/go/kube/go.mod"), "utf8");
  const match = /^\s*k8s\.io\/kubernetes (v\S+)$/m.exec(goMod);
  if (!match?.[1]) throw new Error("deploy/local/go/kube/go.mod does not require k8s.io/kubernetes");
  return match[1];
})();

/** Waits until `probe` answers something other than undefined (harness `eventually` retries on throw). */
function eventuallyDefined<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  return eventually(async () => {
    const value = await probe();
    if (value === undefined) throw new Error(`timed out waiting for ${what}`);
    return value;
  }, timeoutMs);
}

beforeAll(async () => {
  kc = await kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
});

afterAll(async () => {
  await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
});

describe("the control plane", () => {
  it("reports the pinned Kubernetes release on /version, to client-node and to kubectl", async () => {
    const info = await kc.makeApiClient(VersionApi).getCode();
    expect(info.gitVersion).toBe(pinnedRelease);
    expect(`v${info.major}.${info.minor}`).toBe(pinnedRelease.replace(/\.\d+$/, ""));
    const version = await kubectl(["version", "-o", "json"]);
    expect(version.code).toBe(0);
    const parsed = JSON.parse(version.stdout) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(parsed.serverVersion.gitVersion).toBe(pinnedRelease);
    expect(parsed.clientVersion.gitVersion).toBe(pinnedRelease);
  });

  it("answers kubectl get --raw /readyz with ok", async () => {
    const result = await kubectl(["get", "--raw", "/readyz"]);
    expect(result).toMatchObject({ code: 0, stdout: "ok" });
  });

  it("is served on the advertise address, with the kubernetes Service pointing there", async () => {
    expect(kc.getCurrentCluster()?.server).toBe("https://10.243.0.1:6443");
    const service = await core.readNamespacedService({ name: "kubernetes", namespace: "default" });
    expect(service.spec?.clusterIP).toBe("10.96.0.1");
    const endpoints = await kubectl([
      "get",
      "endpointslices",
      "-n",
      "default",
      "-l",
      "kubernetes.io/service-name=kubernetes",
      "-o",
      "jsonpath={.items[*].endpoints[*].addresses[*]}",
    ]);
    expect(endpoints.stdout).toBe("10.243.0.1");
  });

  it("publishes the front-proxy settings extension apiservers authenticate with", async () => {
    const config = await core.readNamespacedConfigMap({
      name: "extension-apiserver-authentication",
      namespace: "kube-system",
    });
    expect(JSON.parse(config.data?.["requestheader-allowed-names"] ?? "[]")).toEqual(["front-proxy-client"]);
    expect(JSON.parse(config.data?.["requestheader-username-headers"] ?? "[]")).toEqual(["X-Remote-User"]);
    expect(config.data?.["requestheader-client-ca-file"]).toBe(
      readFileSync(join(cluster.pkiDir, "front-proxy-ca.crt"), "utf8"),
    );
  });

  it("stores custom objects of a newly created CRD", async () => {
    const group = `e2e${suffix}.kubevirt-ts.io`;
    const extensions = kc.makeApiClient(ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({
      body: {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: "object",
                  properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
                },
              },
            },
          ],
        },
      },
    });
    try {
      await eventuallyDefined(async () => {
        const crd = await extensions.readCustomResourceDefinition({ name: `widgets.${group}` });
        return (
          crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") || undefined
        );
      }, "the CRD to be Established");
      const objects = kc.makeApiClient(CustomObjectsApi);
      const address = { group, version: "v1", namespace, plural: "widgets" };
      await objects.createNamespacedCustomObject({
        ...address,
        body: {
          apiVersion: `${group}/v1`,
          kind: "Widget",
          metadata: { name: "w1" },
          spec: { size: 3, extra: "x" },
        },
      });
      const stored = (await objects.getNamespacedCustomObject({ ...address, name: "w1" })) as {
        spec: Record<string, unknown>;
      };
      // the structural schema prunes unknown fields: proof the apiserver applied the CRD, not just stored JSON
      expect(stored.spec).toEqual({ size: 3 });
    } finally {
      await extensions.deleteCustomResourceDefinition({ name: `widgets.${group}` }).catch(() => undefined);
    }
  });

  it("mints a service-account token the apiserver then authenticates", async () => {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "minted" } } });
    const request = await core.createNamespacedServiceAccountToken({
      name: "minted",
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const token = request.status?.token ?? "";
    expect(token.split(".")).toHaveLength(3);
    const review = await kc
      .makeApiClient(AuthenticationV1Api)
      .createTokenReview({ body: { spec: { token } } });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe(`system:serviceaccount:${namespace}:minted`);
  });

  it("runs the controller-manager: root CA published, Deployment → ReplicaSet → Pods, garbage collection", async () => {
    const rootCA = await eventuallyDefined(
      () => core.readNamespacedConfigMap({ name: "kube-root-ca.crt", namespace }),
      "kube-root-ca.crt in the test namespace",
    );
    expect(rootCA.data?.["ca.crt"]).toBe(readFileSync(join(cluster.pkiDir, "ca.crt"), "utf8"));

    const apps = kc.makeApiClient(AppsV1Api);
    const labels = { app: "web" };
    const deployment = await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: "web", image: "busybox", command: ["sleep", "3600"] }] },
          },
        },
      },
    });
    const replicaSet = await eventuallyDefined(async () => {
      const list = await apps.listNamespacedReplicaSet({ namespace });
      return list.items.find((rs) => rs.metadata?.ownerReferences?.[0]?.uid === deployment.metadata?.uid);
    }, "a ReplicaSet owned by the Deployment");
    expect(replicaSet.spec?.replicas).toBe(2);
    const pods = await eventuallyDefined(async () => {
      const list = await core.listNamespacedPod({ namespace, labelSelector: "app=web" });
      return list.items.length === 2 ? list.items : undefined;
    }, "two Pods from the ReplicaSet");
    for (const pod of pods) expect(pod.metadata?.ownerReferences?.[0]?.uid).toBe(replicaSet.metadata?.uid);

    await apps.deleteNamespacedDeployment({
      name: "web",
      namespace,
      body: { propagationPolicy: "Background" },
    });
    await eventuallyDefined(async () => {
      const list = await apps.listNamespacedReplicaSet({ namespace });
      return list.items.length === 0 || undefined;
    }, "the garbage collector to delete the orphaned ReplicaSet");
  });
});
