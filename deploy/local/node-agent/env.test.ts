import { describe, expect, it } from "vitest";
import { ContainerConfigError, expandCommand, expandVars, resolveEnv, type EnvContext } from "./env.js";
import { FakeKubeClient } from "./fake-kube-client.js";
import { objectSource } from "./kube-client.js";
import { podSchema, type Container } from "./k8s-types.js";
import { containerResourceValue, formatMap } from "./downward-api.js";

const pod = podSchema.parse({
  metadata: {
    name: "web",
    namespace: "apps",
    uid: "uid-1",
    labels: { app: "web" },
    annotations: { note: "hi" },
  },
  spec: { nodeName: "node01", serviceAccountName: "builder", containers: [{ name: "c" }] },
});

function context(container: Partial<Container>, client = new FakeKubeClient()): EnvContext {
  return {
    pod,
    container: { name: "c", ...container },
    runtime: { podIPs: ["10.244.1.7"], hostIPs: ["10.244.1.1"] },
    allocatable: { cpu: 8, memory: 16 * 2 ** 30, "ephemeral-storage": 100 * 2 ** 30 },
    apiService: { host: "10.96.0.1", port: 443 },
    objects: objectSource(client),
  };
}

describe("expandVars", () => {
  const vars: Record<string, string> = { A: "1", B: "two" };
  it.each([
    ["$(A)-$(B)", "1-two"],
    ["$(MISSING)", "$(MISSING)"],
    ["$$(A)", "$(A)"],
    ["cost $5", "cost $5"],
    ["$(A", "$(A"],
    ["end$", "end$"],
  ])("%s → %s", (input, expected) => expect(expandVars(input, (n) => vars[n])).toBe(expected));
});

describe("resolveEnv", () => {
  it("resolves values, references, downward API, ConfigMap and Secret keys, envFrom and the service env", async () => {
    const client = new FakeKubeClient();
    client.addConfigMap("apps", "settings", { MODE: "fast", "bad key": "skipped" });
    client.addSecret("apps", "creds", { password: "s3cret" });
    const env = await resolveEnv(
      context(
        {
          envFrom: [{ configMapRef: { name: "settings" }, prefix: "CFG_" }, { secretRef: { name: "creds" } }],
          env: [
            { name: "GREETING", value: "hello $(CFG_MODE) on $(KUBERNETES_SERVICE_HOST)" },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
            { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
            {
              name: "MEM_MI",
              valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } },
            },
            { name: "KEY", valueFrom: { configMapKeyRef: { name: "settings", key: "MODE" } } },
            { name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
            { name: "OPT", valueFrom: { configMapKeyRef: { name: "absent", key: "x", optional: true } } },
          ],
        },
        client,
      ),
    );
    expect(Object.fromEntries(env)).toMatchObject({
      CFG_MODE: "fast",
      password: "s3cret",
      GREETING: "hello fast on 10.96.0.1",
      POD_NAME: "web",
      POD_IP: "10.244.1.7",
      NODE: "node01",
      APP: "web",
      MEM_MI: "16384",
      KEY: "fast",
      PW: "s3cret",
      KUBERNETES_SERVICE_HOST: "10.96.0.1",
      KUBERNETES_SERVICE_PORT: "443",
      KUBERNETES_PORT_443_TCP: "tcp://10.96.0.1:443",
    });
    expect(env.has("CFG_bad key")).toBe(false);
    expect(env.has("OPT")).toBe(false);
  });

  it("lets the container override a service variable", async () => {
    const env = await resolveEnv(context({ env: [{ name: "KUBERNETES_SERVICE_HOST", value: "x" }] }));
    expect(env.get("KUBERNETES_SERVICE_HOST")).toBe("x");
  });

  it.each<[string, Partial<Container>, string]>([
    [
      "missing ConfigMap",
      { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "nope", key: "k" } } }] },
      'configmap "nope" not found',
    ],
    ["missing Secret", { envFrom: [{ secretRef: { name: "gone" } }] }, 'secret "gone" not found'],
    [
      "missing key",
      { env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "present", key: "k" } } }] },
      "couldn't find key k in ConfigMap apps/present",
    ],
    [
      "unsupported field",
      { env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "spec.bogus" } } }] },
      "unsupported fieldPath: spec.bogus",
    ],
  ])("refuses a %s with kubelet's message", async (_what, container, message) => {
    const client = new FakeKubeClient();
    client.addConfigMap("apps", "present", {});
    const attempt = resolveEnv(context(container, client));
    await expect(attempt).rejects.toBeInstanceOf(ContainerConfigError);
    await expect(attempt).rejects.toThrow(message);
  });

  it("expands command and args from the environment", () => {
    const env = new Map([["PORT", "8080"]]);
    expect(
      expandCommand({ name: "c", command: ["serve", "--port=$(PORT)"], args: ["$(UNSET)"] }, env),
    ).toEqual({
      command: ["serve", "--port=8080"],
      args: ["$(UNSET)"],
    });
  });
});

describe("downward API values", () => {
  const allocatable = { cpu: 8, memory: 1024, "ephemeral-storage": 0 };
  it.each([
    [{ limits: { cpu: "500m" } }, "limits.cpu", undefined, "1"],
    [{ limits: { cpu: "500m" } }, "limits.cpu", "1m", "500"],
    [{ requests: { cpu: "100m" } }, "requests.cpu", "1m", "100"],
    [{}, "limits.cpu", undefined, "8"],
    [{ limits: { memory: "64Mi" } }, "limits.memory", "1Mi", "64"],
    [{ limits: { memory: "1G" } }, "limits.memory", "1Mi", "954"],
  ])("%j %s / %s = %s", (resources, resource, divisor, value) => {
    expect(containerResourceValue({ name: "c", resources }, resource, divisor, allocatable)).toBe(value);
  });

  it("formats label maps as a downwardAPI file does", () => {
    expect(formatMap({ b: "2", a: 'say "hi"' })).toBe('a="say \\"hi\\""\nb="2"');
  });
});
