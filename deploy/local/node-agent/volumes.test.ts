import { describe, expect, it } from "vitest";
import { FakeKubeClient } from "./fake-kube-client.js";
import { objectSource } from "./kube-client.js";
import { podSchema, type Volume } from "./k8s-types.js";
import { ServiceAccountTokens } from "./service-account-tokens.js";
import { renderVolumes, UnsupportedVolumeError, VolumeSetUpError, type VolumeContext } from "./volumes.js";
import type { VolumeRequest } from "./pod-runtime.js";

function setup(volumes: Volume[], clock = { t: Date.parse("2025-01-01T00:00:00Z") }) {
  const client = new FakeKubeClient();
  client.clock = () => clock.t;
  const pod = podSchema.parse({
    metadata: { name: "web", namespace: "apps", uid: "uid-1", labels: { app: "web" } },
    spec: {
      serviceAccountName: "builder",
      containers: [{ name: "c", resources: { limits: { memory: "64Mi" } } }],
      volumes,
    },
  });
  const tokens = new ServiceAccountTokens(client, () => clock.t);
  const ctx: VolumeContext = {
    pod,
    runtime: { podIPs: ["10.244.1.7"], hostIPs: ["10.244.1.1"] },
    allocatable: { cpu: 2, memory: 2 ** 30, "ephemeral-storage": 0 },
    objects: objectSource(client),
    tokens,
  };
  return { client, ctx, tokens, clock };
}

const files = (v: VolumeRequest | undefined) =>
  v?.source.kind === "files"
    ? Object.fromEntries(v.source.files.map((f) => [f.path, `${f.content.toString()}@${f.mode.toString(8)}`]))
    : undefined;

const kubeApiAccess: Volume = {
  name: "kube-api-access-abcde",
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      {
        downwardAPI: {
          items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
        },
      },
    ],
  },
};

describe("renderVolumes", () => {
  it("renders the service-account volume: bound token, cluster CA and namespace", async () => {
    const { client, ctx } = setup([kubeApiAccess]);
    client.addConfigMap("apps", "kube-root-ca.crt", { "ca.crt": "CA PEM" });
    const [volume] = await renderVolumes(ctx);
    expect(files(volume)).toEqual({
      token: "token-builder-1@644",
      "ca.crt": "CA PEM@644",
      namespace: "apps@644",
    });
    expect(client.writes("create", "token/apps/builder")[0]?.body).toEqual({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        expirationSeconds: 3607,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "web", uid: "uid-1" },
      },
    });
  });

  it("reuses a token until 80% of its lifetime has passed", async () => {
    const { client, ctx, clock } = setup([kubeApiAccess]);
    client.addConfigMap("apps", "kube-root-ca.crt", { "ca.crt": "CA" });
    await renderVolumes(ctx);
    clock.t += 0.79 * 3607_000;
    await renderVolumes(ctx);
    expect(client.writes("create", "token/apps/builder")).toHaveLength(1);
    clock.t += 0.02 * 3607_000;
    const [volume] = await renderVolumes(ctx);
    expect(files(volume)?.token).toBe("token-builder-2@644");
  });

  it("renders configMap, secret and downwardAPI volumes with items and modes", async () => {
    const { client, ctx } = setup([
      { name: "cfg", configMap: { name: "settings", defaultMode: 0o600 } },
      {
        name: "sec",
        secret: { secretName: "creds", items: [{ key: "pw", path: "nested/password", mode: 0o400 }] },
      },
      {
        name: "info",
        downwardAPI: {
          items: [
            { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
            {
              path: "mem",
              resourceFieldRef: { containerName: "c", resource: "limits.memory", divisor: "1Mi" },
            },
          ],
        },
      },
      { name: "scratch", emptyDir: {} },
      { name: "host", hostPath: { path: "/var/run/kubevirt", type: "DirectoryOrCreate" } },
    ]);
    client.addConfigMap("apps", "settings", { a: "1", b: "2" });
    client.addSecret("apps", "creds", { pw: "hunter2", other: "x" });
    const volumes = await renderVolumes(ctx);
    expect(files(volumes[0])).toEqual({ a: "1@600", b: "2@600" });
    expect(files(volumes[1])).toEqual({ "nested/password": "hunter2@400" });
    expect(files(volumes[2])).toEqual({ labels: 'app="web"@644', mem: "64@644" });
    expect(volumes[3]).toEqual({ name: "scratch", source: { kind: "emptyDir" } });
    expect(volumes[4]).toEqual({
      name: "host",
      source: { kind: "hostPath", path: "/var/run/kubevirt", type: "DirectoryOrCreate" },
    });
  });

  it("skips optional objects and keys that are absent", async () => {
    const { ctx } = setup([{ name: "cfg", configMap: { name: "absent", optional: true } }]);
    expect(files((await renderVolumes(ctx))[0])).toEqual({});
  });

  it.each<[string, Volume, string]>([
    [
      "a missing ConfigMap",
      { name: "cfg", configMap: { name: "nope" } },
      'MountVolume.SetUp failed for volume "cfg" : configmap "nope" not found',
    ],
    [
      "a missing Secret",
      { name: "s", secret: { secretName: "nope" } },
      'MountVolume.SetUp failed for volume "s" : secret "nope" not found',
    ],
    [
      "a missing key",
      { name: "cfg", configMap: { name: "settings", items: [{ key: "zz", path: "z" }] } },
      'MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: zz',
    ],
  ])("waits for %s with kubelet's message", async (_what, volume, message) => {
    const { client, ctx } = setup([volume]);
    client.addConfigMap("apps", "settings", { a: "1" });
    const attempt = renderVolumes(ctx);
    await expect(attempt).rejects.toBeInstanceOf(VolumeSetUpError);
    await expect(attempt).rejects.toThrow(message);
  });

  it("refuses volume types it does not implement, naming them", async () => {
    const { ctx } = setup([{ name: "data", iscsi: { targetPortal: "10.0.0.1:3260" } } as Volume]);
    const attempt = renderVolumes(ctx);
    await expect(attempt).rejects.toBeInstanceOf(UnsupportedVolumeError);
    await expect(attempt).rejects.toThrow('volume "data" has type iscsi');
  });
});
