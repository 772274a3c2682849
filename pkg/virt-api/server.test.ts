// The server over real HTTPS: certificates made by pkg/certificates, a front-proxy CA, a recording
// SubjectAccessReview stand-in and an in-memory VM store.
import { request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCA, newClientKeyPair, newServerKeyPair, toPem, type PemKeyPair } from "../certificates/triple.js";
import type { VirtualMachine } from "../api/generated/v1.js";
import { ClusterConfig } from "../virt-config/cluster-config.js";
import * as version from "../version/version.js";
import { UPSTREAM_SUBRESOURCE_NAMES } from "./rest/discovery.js";
import type { RequestHeaderConfig, SubjectAccessReview } from "./rest/authorizer.js";
import { KubeApiHealth } from "./rest/healthz.js";
import type { JsonPatchOperation } from "./rest/patch.js";
import { SubresourceApp, type LifecycleClient } from "./rest/subresource-app.js";
import { createVirtApiServer, type VirtApiServer } from "./server.js";
import { kubeVirtServiceAccounts } from "./webhooks/routes.js";
import { MetricsEndpoint } from "../monitoring/metrics/common/endpoint.js";
import { ApiMetrics } from "../monitoring/metrics/virt-api/metrics.js";
import { samplesOf } from "../monitoring/metrics/testing/exposition.js";

interface Answer {
  code: number;
  body: unknown;
}

let server: VirtApiServer;
let port = 0;
let serverCA = "";
let proxyClient: PemKeyPair;
let disallowedProxyClient: PemKeyPair;
let strangerClient: PemKeyPair;
const reviews: SubjectAccessReview[] = [];
let allow = true;
const vms = new Map<string, VirtualMachine>();
const writes: { kind: string; patch: JsonPatchOperation[] }[] = [];
const migrations: { namespace: string; name: string; body: unknown }[] = [];
const metrics = new ApiMetrics();

const store: LifecycleClient = {
  getVM: async (_ns, name) => vms.get(name),
  getVMI: async () => undefined,
  patchVM: async (_ns, _name, patch) => void writes.push({ kind: "vm", patch }),
  patchVMStatus: async (_ns, _name, patch) => void writes.push({ kind: "vmStatus", patch }),
  patchVMI: async (_ns, _name, patch) => void writes.push({ kind: "vmi", patch }),
  listPodNames: async () => [],
  deletePod: async () => undefined,
};

beforeAll(async () => {
  const ca = await newCA("kubevirt.io");
  const serving = await toPem(
    await newServerKeyPair(ca, { commonName: "virt-api", ipAddresses: ["127.0.0.1"] }),
  );
  serverCA = (await toPem(ca)).certPem;
  const proxyCA = await newCA("front-proxy-ca");
  proxyClient = await toPem(await newClientKeyPair(proxyCA, { commonName: "front-proxy-client" }));
  disallowedProxyClient = await toPem(await newClientKeyPair(proxyCA, { commonName: "someone-else" }));
  strangerClient = await toPem(
    await newClientKeyPair(await newCA("other-ca"), { commonName: "front-proxy-client" }),
  );
  const requestHeader: RequestHeaderConfig = {
    clientCA: (await toPem(proxyCA)).certPem,
    allowedNames: ["front-proxy-client"],
    usernameHeaders: ["X-Remote-User"],
    groupHeaders: ["X-Remote-Group"],
    extraHeaderPrefixes: ["X-Remote-Extra-"],
  };
  server = createVirtApiServer({
    tls: serving,
    requestHeader: () => requestHeader,
    reviewer: {
      review: async (review) => {
        reviews.push(review);
        return { allowed: allow, reason: allow ? "" : "no RBAC policy matched" };
      },
    },
    webhooks: {
      clusterConfig: () => ClusterConfig.defaults(),
      kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
    },
    subresources: new SubresourceApp(store),
    migrate: {
      handle: async (namespace, name, body) => {
        migrations.push({ namespace, name, body });
        return { code: 202 };
      },
    },
    health: new KubeApiHealth(
      async () => ({ gitVersion: "v1.34.4" }),
      () => "7",
    ),
    metrics: new MetricsEndpoint(metrics.registry),
  });
  await server.listen({ host: "127.0.0.1", port: 0 });
  const address = server.server.address();
  port = typeof address === "object" && address ? address.port : 0;
});

afterAll(async () => {
  await server.close();
});

function call(
  method: string,
  path: string,
  options: { client?: PemKeyPair; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        ca: serverCA,
        cert: options.client?.certPem,
        key: options.client?.keyPem,
        headers: { "content-type": "application/json", ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ code: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const identity = { "X-Remote-User": "alice", "X-Remote-Group": ["devs", "system:authenticated"] };
const startPath = "/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachines/testvm/start";

describe("discovery, version and health (no authentication)", () => {
  it("lists exactly the subresources it serves, in upstream's order, for each version", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const answer = await call("GET", `/apis/subresources.kubevirt.io/${version}`);
      expect(answer.code).toBe(200);
      const list = answer.body as { kind: string; groupVersion: string; resources: { name: string }[] };
      expect(list.kind).toBe("APIResourceList");
      expect(list.groupVersion).toBe(`subresources.kubevirt.io/${version}`);
      expect(list.resources.map((r) => r.name)).toEqual([
        "virtualmachineinstances/console",
        "virtualmachines/start",
        "virtualmachines/stop",
        "virtualmachines/restart",
        "virtualmachines/migrate",
      ]);
    }
  });

  it("serves the group, version and healthz", async () => {
    // The same build information virtctl reports as its client version.
    expect((await call("GET", "/apis/subresources.kubevirt.io/v1/version")).body).toEqual(version.get());
    expect(await call("GET", "/apis/subresources.kubevirt.io/v1/healthz")).toEqual({
      code: 200,
      body: {
        apiserver: { connectivity: "ok", version: { gitVersion: "v1.34.4" } },
        "config-resource-version": "7",
      },
    });
  });

  it("serves /metrics to anyone, as upstream serves it beside the API", async () => {
    metrics.ready.set(1);
    const before = reviews.length;
    const answer = await server.inject({ method: "GET", url: "/metrics" });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-type"]).toBe(metrics.registry.contentType);
    expect(samplesOf(answer.body, "kubevirt_virt_api_ready_status").map((sample) => sample.value)).toEqual([
      1,
    ]);
    expect(answer.body).toContain("# TYPE kubevirt_rest_client_requests_total counter");
    expect(reviews.length).toBe(before);
  });

  it("authenticates every other path, as upstream does", async () => {
    const answer = await call("GET", "/apis/subresources.kubevirt.io/v2");
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: "Status", reason: "Unauthorized" });
  });
});

describe("front-proxy authentication", () => {
  it("refuses identity headers without the front proxy's client certificate", async () => {
    const answer = await call("PUT", startPath, { headers: identity });
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({
      kind: "Status",
      reason: "Unauthorized",
      message: "request is not authenticated",
    });
  });

  it("refuses a certificate from another CA", async () => {
    expect((await call("PUT", startPath, { client: strangerClient, headers: identity })).code).toBe(401);
  });

  it("refuses a front-proxy certificate whose CN is not allowed", async () => {
    const answer = await call("PUT", startPath, { client: disallowedProxyClient, headers: identity });
    expect(answer.code).toBe(401);
    expect((answer.body as { message: string }).message).toContain("someone-else");
  });

  it("reviews the request as the user named in the headers and answers 403 on deny", async () => {
    allow = false;
    reviews.length = 0;
    const answer = await call("PUT", startPath, {
      client: proxyClient,
      headers: { ...identity, "X-Remote-Extra-Scopes": "a" },
    });
    allow = true;
    expect(answer.code).toBe(403);
    expect(answer.body).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      message:
        'virtualmachines.subresources.kubevirt.io "testvm" is forbidden: User "alice" cannot update resource "virtualmachines/start" in API group "subresources.kubevirt.io" in the namespace "default": no RBAC policy matched',
    });
    expect(reviews[0]?.spec).toEqual({
      user: "alice",
      groups: ["devs", "system:authenticated"],
      extra: { scopes: ["a"] },
      resourceAttributes: {
        namespace: "default",
        verb: "update",
        group: "subresources.kubevirt.io",
        version: "v1",
        resource: "virtualmachines",
        subresource: "start",
        name: "testvm",
      },
    });
  });
});

describe("VM lifecycle subresources", () => {
  // Built per test: the certificates exist only once beforeAll has run.
  const asProxy = () => ({ client: proxyClient, headers: identity });

  it("starts a halted VM: 202 and the run strategy patched", async () => {
    vms.set("testvm", { metadata: { name: "testvm" }, spec: { runStrategy: "Halted", template: {} } });
    writes.length = 0;
    const answer = await call("PUT", startPath, asProxy());
    expect(answer.body).toBeUndefined();
    expect(answer.code).toBe(202);
    expect(writes).toEqual([
      {
        kind: "vm",
        patch: [
          { op: "test", path: "/spec/runStrategy", value: "Halted" },
          { op: "replace", path: "/spec/runStrategy", value: "Always" },
        ],
      },
    ]);
  });

  it("refuses to start an Always VM with upstream's conflict", async () => {
    vms.set("testvm", { metadata: { name: "testvm" }, spec: { runStrategy: "Always", template: {} } });
    const answer = await call("PUT", startPath, asProxy());
    expect(answer.code).toBe(409);
    expect((answer.body as { message: string }).message).toBe(
      'Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvm": Always does not support manual start requests',
    );
  });

  it("answers NotFound for a missing VM and BadRequest for a bad body", async () => {
    const missing = await call("PUT", startPath.replace("testvm", "nope"), asProxy());
    expect(missing.code).toBe(404);
    expect((missing.body as { message: string }).message).toBe('virtualmachine.kubevirt.io "nope" not found');
    const bad = await call("PUT", startPath, { ...asProxy(), body: "{not json" });
    expect(bad.code).toBe(400);
    const wrongType = await call("PUT", startPath.replace("start", "stop"), {
      ...asProxy(),
      body: '{"gracePeriod":"soon"}',
    });
    expect(wrongType.code).toBe(400);
    expect((wrongType.body as { message: string }).message).toMatch(
      /^Can not unmarshal Request body to struct, error: gracePeriod/,
    );
  });

  it("hands migrate's namespace, name and body to the migrate subresource", async () => {
    migrations.length = 0;
    const answer = await call("PUT", startPath.replace("start", "migrate"), {
      ...asProxy(),
      body: '{"dryRun":["All"],"addedNodeSelector":{"zone":"b"}}',
    });
    expect(answer).toEqual({ code: 202, body: undefined });
    expect(migrations).toEqual([
      { namespace: "default", name: "testvm", body: { dryRun: ["All"], addedNodeSelector: { zone: "b" } } },
    ]);
    const bad = await call("PUT", startPath.replace("start", "migrate"), { ...asProxy(), body: "{not json" });
    expect(bad.code).toBe(400);
  });

  it("answers an authorized but unknown subresource with a NotFound Status", async () => {
    const answer = await call("PUT", startPath.replace("start", "frobnicate"), asProxy());
    expect(answer.code).toBe(404);
    expect(answer.body).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 });
  });

  it("authenticates before answering an unknown path, as go-restful runs its filters first", async () => {
    const answer = await call("PUT", startPath.replace("start", "frobnicate"));
    expect(answer.code).toBe(401);
    expect(answer.body).toMatchObject({ kind: "Status", reason: "Unauthorized" });
  });

  it("serves what discovery lists and answers NotFound for every other subresource upstream has", async () => {
    const listed = (
      (await call("GET", "/apis/subresources.kubevirt.io/v1")).body as { resources: { name: string }[] }
    ).resources.map((resource) => resource.name);
    const pathOf = (name: string) => {
      const [resource, ...sub] = name.split("/");
      const prefix = "/apis/subresources.kubevirt.io/v1/namespaces/default";
      return sub.length === 0 ? `${prefix}/${resource}` : `${prefix}/${resource}/testvm/${sub.join("/")}`;
    };
    for (const name of UPSTREAM_SUBRESOURCE_NAMES) {
      const answers = [
        await call("GET", pathOf(name), asProxy()),
        await call("PUT", pathOf(name), asProxy()),
      ];
      const notFound = answers.every(
        (answer) =>
          answer.code === 404 &&
          (answer.body as { reason?: string; message?: string }).reason === "NotFound" &&
          (answer.body as { message: string }).message.startsWith("the server could not find"),
      );
      expect({ name, served: !notFound }).toEqual({ name, served: listed.includes(name) });
    }
  });

  it("refuses a console request that is not a WebSocket upgrade, as upstream's upgrader does", async () => {
    const answer = await call(
      "GET",
      "/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/testvm/console",
      asProxy(),
    );
    expect(answer.code).toBe(400);
    expect((answer.body as { message: string }).message).toBe(
      "websocket: the client is not using the websocket protocol: 'upgrade' token not found in 'Connection' header",
    );
  });
});

describe("admission webhooks", () => {
  const review = (resource: string, object: unknown) =>
    JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "review-1",
        resource: { group: "kubevirt.io", version: "v1", resource },
        operation: "CREATE",
        userInfo: { username: "alice" },
        object,
      },
    });
  const vmObject = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm1", namespace: "default" },
    spec: {
      runStrategy: "Halted",
      template: { spec: { domain: { devices: {}, memory: { guest: "128Mi" } } } },
    },
  };

  it("mutates a VM: uid echoed, JSONPatch base64-encoded", async () => {
    const answer = await call("POST", "/virtualmachines-mutate", {
      body: review("virtualmachines", vmObject),
    });
    expect(answer.code).toBe(200);
    const response = (
      answer.body as { response: { uid: string; allowed: boolean; patch: string; patchType: string } }
    ).response;
    expect(response.uid).toBe("review-1");
    expect(response.allowed).toBe(true);
    expect(response.patchType).toBe("JSONPatch");
    const patch = JSON.parse(Buffer.from(response.patch, "base64").toString("utf8")) as { path: string }[];
    expect(patch.map((op) => op.path)).toContain("/spec");
  });

  it("refuses an invalid VM with causes", async () => {
    const invalid = structuredClone(vmObject);
    Object.assign(invalid.spec, { running: true });
    const answer = await call("POST", "/virtualmachines-validate", {
      body: review("virtualmachines", invalid),
    });
    const response = (
      answer.body as {
        response: { allowed: boolean; status: { code: number; details: { causes: unknown[] } } };
      }
    ).response;
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(422);
    expect(response.status.details.causes.length).toBeGreaterThan(0);
  });

  it("denies a review sent to the wrong webhook", async () => {
    const answer = await call("POST", "/virtualmachines-validate", {
      body: review("virtualmachineinstances", vmObject),
    });
    expect(
      (answer.body as { response: { allowed: boolean; status: { message: string } } }).response,
    ).toMatchObject({
      allowed: false,
      status: { message: "expect resource to be 'virtualmachines'" },
    });
  });

  it.each([
    ["not JSON", "{"],
    ["not a review", '{"kind":"Pod"}'],
    ["an empty body", ""],
  ])("answers %s with a 400 Status", async (_case, body) => {
    const answer = await call("POST", "/virtualmachineinstances-mutate", { body });
    expect(answer.code).toBe(400);
    expect(answer.body).toMatchObject({ kind: "Status", code: 400 });
  });

  it("serves every upstream webhook path", async () => {
    for (const path of [
      "/virtualmachineinstances-mutate",
      "/virtualmachines-mutate",
      "/virtualmachineinstances-validate-create",
      "/virtualmachineinstances-validate-update",
      "/virtualmachines-validate",
      "/virtualmachinereplicaset-validate",
    ]) {
      expect((await call("POST", path, { body: "{}" })).code, path).toBe(400);
    }
  });
});
