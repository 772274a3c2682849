// Pause and unpause for real, with no cluster: virt-api's HTTPS server (front-proxy authentication and a
// SubjectAccessReview stand-in) → mutual TLS → virt-handler's console server and its lifecycle endpoint
// → a fake launcher that records the Cmd calls. Certificates are made here by pkg/certificates.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import {
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
  type PemKeyPair,
} from "../../certificates/triple.js";
import { silentLogger } from "../../controller/index.js";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import { ConsoleServer } from "../../virt-handler/rest/console-server.js";
import { LifecycleHandler } from "../../virt-handler/rest/lifecycle.js";
import { createVirtApiServer, type VirtApiServer } from "../server.js";
import { kubeVirtServiceAccounts } from "../webhooks/routes.js";
import type { RequestHeaderConfig } from "./authorizer.js";
import { KubeApiHealth } from "./healthz.js";
import { PauseProxy, validatePause, validateUnpause, type PauseBackend } from "./pause.js";
import { SubresourceApp, type LifecycleClient } from "./subresource-app.js";

const identity = { "X-Remote-User": "alice", "X-Remote-Group": "system:authenticated" };
const PAUSED = { type: "Paused", status: "True", reason: "PausedByUser" };

const vmi = (
  status: VirtualMachineInstance["status"],
  spec: Partial<VirtualMachineInstance["spec"]> = {},
): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} }, ...spec },
  status: { nodeName: "node01", ...status },
});

describe("upstream's checks before anything reaches virt-handler", () => {
  const conflictOn = (why: string) =>
    `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": ${why}`;
  it.each([
    ["running", vmi({ phase: "Running" }), undefined],
    ["scheduled", vmi({ phase: "Scheduled" }), [409, conflictOn("VM is not running")]],
    [
      "already paused",
      vmi({ phase: "Running", conditions: [PAUSED] }),
      [409, conflictOn("VMI is already paused")],
    ],
    [
      "an exec liveness probe",
      vmi({ phase: "Running" }, { livenessProbe: { exec: { command: ["true"] } } }),
      [
        403,
        'virtualmachineinstance.kubevirt.io "testvmi" is forbidden: Pausing VMIs with a non-GuestAgentPing LivenessProbe is not supported',
      ],
    ],
    [
      "a guest agent ping probe",
      vmi({ phase: "Running" }, { livenessProbe: { guestAgentPing: {} } }),
      undefined,
    ],
  ] as const)("pause: %s", (_case, input, expected) => {
    const status = validatePause(input);
    expect(status && [status.code, status.message]).toEqual(expected);
  });

  it.each([
    ["paused", vmi({ phase: "Running", conditions: [PAUSED] }), undefined],
    ["not paused", vmi({ phase: "Running" }), [409, conflictOn("VMI is not paused")]],
    ["not running", vmi({ phase: "Pending", conditions: [PAUSED] }), [409, conflictOn("VMI is not running")]],
  ] as const)("unpause: %s", (_case, input, expected) => {
    const status = validateUnpause(input);
    expect(status && [status.code, status.message]).toEqual(expected);
  });
});

let dir: string;
let handlerServer: ConsoleServer;
let handlerPort = 0;
let api: VirtApiServer;
let apiPort = 0;
let apiCA = "";
let proxyClient: PemKeyPair;
let allow = true;
let launcherFails: Error | undefined;
let handlerPodIP = "127.0.0.1";
let portOverride: number | undefined;
const launcherCalls: string[] = [];
const events: string[] = [];
const apiVMIs = new Map<string, VirtualMachineInstance>();
const handlerVMIs = new Map<string, VirtualMachineInstance>();
const apiVMs = new Map<string, VirtualMachine>();
let silent: Server;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "p"));
  const ca = await newCA("kubevirt.io");
  const kubevirtCA = (await toPem(ca)).certPem;
  const handlerServing = await toPem(
    await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-handler" }),
  );
  const apiClientOfHandler = await toPem(
    await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:virt-handler" }),
  );
  await writeFile(path.join(dir, "tls.crt"), handlerServing.certPem);
  await writeFile(path.join(dir, "tls.key"), handlerServing.keyPem);
  const launcher = {
    pauseVirtualMachine: async (target: VirtualMachineInstance) => {
      if (launcherFails) throw launcherFails;
      launcherCalls.push(`Pause ${target.metadata?.name}`);
    },
    unpauseVirtualMachine: async (target: VirtualMachineInstance) => {
      if (launcherFails) throw launcherFails;
      launcherCalls.push(`Unpause ${target.metadata?.name}`);
    },
  };
  handlerServer = new ConsoleServer({
    bindAddress: "127.0.0.1",
    port: 0,
    certFile: path.join(dir, "tls.crt"),
    keyFile: path.join(dir, "tls.key"),
    clientCA: { current: () => kubevirtCA, onChange: () => () => undefined },
    handler: { handleUpgrade: async () => undefined, endAll: () => undefined },
    lifecycle: new LifecycleHandler({
      getVMI: (key) => handlerVMIs.get(key),
      launcher: async () => launcher,
      recordEvent: (_vmi, reason, message) => events.push(`${reason}: ${message}`),
      logger: silentLogger,
    }),
    logger: silentLogger,
  });
  handlerPort = await handlerServer.start();
  // A handler that accepts the connection and never answers: the deadline must end the call.
  silent = createServer({ cert: handlerServing.certPem, key: handlerServing.keyPem }, () => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));

  const apiServingCA = await newCA("kubevirt.io");
  apiCA = (await toPem(apiServingCA)).certPem;
  const proxyCA = await newCA("front-proxy-ca");
  proxyClient = await toPem(await newClientKeyPair(proxyCA, { commonName: "front-proxy-client" }));
  const requestHeader: RequestHeaderConfig = {
    clientCA: (await toPem(proxyCA)).certPem,
    allowedNames: ["front-proxy-client"],
    usernameHeaders: ["X-Remote-User"],
    groupHeaders: ["X-Remote-Group"],
    extraHeaderPrefixes: ["X-Remote-Extra-"],
  };
  const backend: PauseBackend = {
    getVM: async (_namespace, name) => apiVMs.get(name),
    getVMI: async (_namespace, name) => apiVMIs.get(name),
    handlerPods: async () => [{ podIP: handlerPodIP }],
    handlerTLS: async () => ({ caBundle: kubevirtCA, ...apiClientOfHandler }),
  };
  api = createVirtApiServer({
    tls: await toPem(
      await newServerKeyPair(apiServingCA, { commonName: "virt-api", ipAddresses: ["127.0.0.1"] }),
    ),
    requestHeader: () => requestHeader,
    reviewer: { review: async () => ({ allowed: allow, reason: allow ? "" : "no RBAC policy matched" }) },
    webhooks: {
      clusterConfig: () => ClusterConfig.defaults(),
      kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
    },
    subresources: new SubresourceApp({} as LifecycleClient),
    health: new KubeApiHealth(
      async () => ({}),
      () => "",
    ),
    // The handler's port is known only now; a proxy is made per request to read it.
    pause: {
      handle: (action, namespace, name, body) =>
        new PauseProxy(backend, { consoleServerPort: portOverride ?? handlerPort, timeoutMs: 500 }).handle(
          action,
          namespace,
          name,
          body,
        ),
    },
  });
  await api.listen({ host: "127.0.0.1", port: 0 });
  const address = api.server.address();
  apiPort = typeof address === "object" && address ? address.port : 0;
});

afterAll(async () => {
  await api?.close();
  await handlerServer?.stop();
  silent?.closeAllConnections();
  await new Promise((resolve) => silent?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  allow = true;
  launcherFails = undefined;
  handlerPodIP = "127.0.0.1";
  portOverride = undefined;
  launcherCalls.length = 0;
  events.length = 0;
  apiVMs.clear();
  const running = vmi({ phase: "Running" });
  apiVMIs.set("testvmi", running);
  handlerVMIs.set("default/testvmi", running);
});

function call(method: string, urlPath: string, body?: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: "127.0.0.1",
        port: apiPort,
        path: urlPath,
        method,
        ca: apiCA,
        cert: proxyClient.certPem,
        key: proxyClient.keyPem,
        headers: { ...identity, "Content-Type": "application/json" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ code: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const route = (verb: string, version = "v1", name = "testvmi") =>
  `/apis/subresources.kubevirt.io/${version}/namespaces/default/virtualmachineinstances/${name}/${verb}`;
const messageOf = (body: string) => (JSON.parse(body) as { message?: string }).message;

describe("PUT .../virtualmachineinstances/{name}/pause|unpause", () => {
  it.each(["v1", "v1alpha3"])("%s: pause reaches the launcher through virt-handler", async (version) => {
    const answer = await call("PUT", route("pause", version), "{}");
    expect(answer).toEqual({ code: 200, body: "" });
    expect(launcherCalls).toEqual(["Pause testvmi"]);
    expect(events).toEqual(["Paused: VirtualMachineInstance paused"]);
  });

  it("unpause of a paused VMI reaches the launcher", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    const answer = await call("PUT", route("unpause"));
    expect(answer.code).toBe(200);
    expect(launcherCalls).toEqual(["Unpause testvmi"]);
    expect(events).toEqual(["Unpaused: VirtualMachineInstance unpaused"]);
  });

  it("a dry run checks everything and changes nothing", async () => {
    const answer = await call("PUT", route("pause"), JSON.stringify({ dryRun: ["All"] }));
    expect(answer.code).toBe(200);
    expect(launcherCalls).toEqual([]);
  });

  it("pausing a paused VMI is a Conflict, and virt-handler is not called", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(409);
    expect(messageOf(answer.body)).toBe(
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": VMI is already paused',
    );
    expect(launcherCalls).toEqual([]);
  });

  it("a missing VMI is NotFound", async () => {
    const answer = await call("PUT", route("pause", "v1", "nothere"));
    expect(answer.code).toBe(404);
    expect(messageOf(answer.body)).toBe('virtualmachineinstance.kubevirt.io "nothere" not found');
  });

  it("unpause waits for a VM snapshot in progress", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    apiVMs.set("testvmi", {
      metadata: { name: "testvmi" },
      spec: { template: {} },
      status: { snapshotInProgress: "snap" },
    } as VirtualMachine);
    const answer = await call("PUT", route("unpause"));
    expect(answer.code).toBe(409);
    expect(messageOf(answer.body)).toBe(
      'Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvmi": VM snapshot is in progress',
    );
  });

  it("a body that is not PauseOptions is a BadRequest", async () => {
    const answer = await call("PUT", route("pause"), JSON.stringify({ dryRun: "All" }));
    expect(answer.code).toBe(400);
    expect(messageOf(answer.body)).toMatch(/^Can not unmarshal Request body to struct, error: dryRun/);
  });

  it("the access review's refusal is Forbidden before any check", async () => {
    allow = false;
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(403);
    expect(launcherCalls).toEqual([]);
  });

  it("a launcher failure comes back as an InternalError with virt-handler's answer", async () => {
    launcherFails = new Error("virError(Code=55, Domain=10, Message='Requested operation is not valid')");
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      "Internal error occurred: unexpected return code 500 (500 Internal Server Error), message: virError(Code=55, Domain=10, Message='Requested operation is not valid')",
    );
  });

  it("a VMI virt-handler does not know is its 404, passed on", async () => {
    handlerVMIs.clear();
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      "Internal error occurred: unexpected return code 404 (404 Not Found), message: VMI default/testvmi does not exist",
    );
  });

  it("a handler that never answers is cut off by the deadline", async () => {
    const address = silent.address();
    portOverride = typeof address === "object" && address ? address.port : 0;
    const started = Date.now();
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      `Internal error occurred: dial tcp 127.0.0.1:${portOverride}: i/o timeout`,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("discovery lists both, as they are registered", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const answer = await call("GET", `/apis/subresources.kubevirt.io/${version}`);
      const names = (JSON.parse(answer.body) as { resources: { name: string }[] }).resources.map(
        (r) => r.name,
      );
      expect(names).toEqual(
        expect.arrayContaining(["virtualmachineinstances/pause", "virtualmachineinstances/unpause"]),
      );
    }
  });

  it("virt-handler's endpoint answers only PUT", async () => {
    const handler = new LifecycleHandler({
      getVMI: () => vmi({ phase: "Running" }),
      launcher: async () => undefined,
      logger: silentLogger,
    });
    expect(await handler.serve("GET", { namespace: "default", name: "testvmi", command: "pause" })).toEqual({
      code: 405,
      message: "405: Method Not Allowed",
    });
    expect(await handler.serve("PUT", { namespace: "default", name: "testvmi", command: "pause" })).toEqual({
      code: 500,
      message: "No command socket found for vmi 7d0e1f2a-aaaa",
    });
  });
});
