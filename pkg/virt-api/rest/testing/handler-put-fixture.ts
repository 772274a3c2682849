// The VMI subresources that go to virt-handler, for real and with no cluster: virt-api's HTTPS server
// (front-proxy authentication and a SubjectAccessReview stand-in) → mutual TLS → virt-handler's console
// server and its lifecycle endpoints → a fake launcher that records the Cmd calls. Certificates are made
// by pkg/certificates. `useHandlerPutFixture(startHandler)` registers the hooks and answers the state to
// script; the test passes virt-handler's side in (virt-handler's rest/testing/lifecycle-server.ts), since
// only a test may reach into another component.
import { createServer, request as httpsRequest, type Server } from "node:https";
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { newCA, newClientKeyPair, newServerKeyPair, toPem } from "../../../certificates/triple.js";
import { ClusterConfig } from "../../../virt-config/cluster-config.js";
import { createVirtApiServer, type VirtApiServer } from "../../server.js";
import { kubeVirtServiceAccounts } from "../../webhooks/routes.js";
import type { RequestHeaderConfig } from "../authorizer.js";
import { HandlerPutProxy, type HandlerPutBackend } from "../handler-put.js";
import { KubeApiHealth } from "../healthz.js";
import { SubresourceApp, type LifecycleClient } from "../subresource-app.js";
import { VMI_HANDLER_VERBS } from "../vmi-lifecycle.js";

const identity = { "X-Remote-User": "alice", "X-Remote-Group": "system:authenticated" };

export const testVMI = (
  status: VirtualMachineInstance["status"],
  spec: Partial<VirtualMachineInstance["spec"]> = {},
): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} }, ...spec },
  status: { nodeName: "node01", ...status },
});

/** The handler-side calls of the fake launcher, as LifecycleLauncher has them. */
export interface RecordingLauncher {
  pauseVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  unpauseVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  freezeVirtualMachine(vmi: VirtualMachineInstance, unfreezeTimeoutSeconds: number): Promise<void>;
  unfreezeVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  softRebootVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  resetVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
}

/** virt-handler's side: its lifecycle endpoints over the given VMIs and launcher. */
export type StartHandler = (options: {
  getVMI(key: string): VirtualMachineInstance | undefined;
  launcher(vmi: VirtualMachineInstance): Promise<RecordingLauncher>;
  recordEvent(
    vmi: VirtualMachineInstance,
    reason: string,
    message: string,
    type?: "Normal" | "Warning",
  ): void;
}) => Promise<{
  port: number;
  caBundle: string;
  client: { certPem: string; keyPem: string };
  serving: { certPem: string; keyPem: string };
  stop(): Promise<void>;
}>;

export interface HandlerPutFixture {
  /** Whether the access review allows the call. */
  allow: boolean;
  /** What every launcher command throws, if set. */
  launcherFails: Error | undefined;
  handlerPodIP: string;
  /** Another port to dial instead of the handler's (one that never answers: `silentPort`). */
  portOverride: number | undefined;
  silentPort: number;
  readonly launcherCalls: string[];
  readonly events: string[];
  /** The VMIs virt-api reads from the apiserver, by name, and those in the handler's cache, by key. */
  readonly apiVMIs: Map<string, VirtualMachineInstance>;
  readonly handlerVMIs: Map<string, VirtualMachineInstance>;
  readonly apiVMs: Map<string, VirtualMachine>;
  call(method: string, urlPath: string, body?: string): Promise<{ code: number; body: string }>;
}

/** The subresource URL of a VMI as the aggregator forwards it. */
export const route = (verb: string, version = "v1", name = "testvmi") =>
  `/apis/subresources.kubevirt.io/${version}/namespaces/default/virtualmachineinstances/${name}/${verb}`;
export const messageOf = (body: string) => (JSON.parse(body) as { message?: string }).message;

export function useHandlerPutFixture(startHandler: StartHandler): HandlerPutFixture {
  let handler: Awaited<ReturnType<StartHandler>> | undefined;
  let handlerPort = 0;
  let api: VirtApiServer | undefined;
  let apiPort = 0;
  let apiCA = "";
  let proxyClient = { certPem: "", keyPem: "" };
  let silent: Server | undefined;

  const fixture: HandlerPutFixture = {
    allow: true,
    launcherFails: undefined,
    handlerPodIP: "127.0.0.1",
    portOverride: undefined,
    silentPort: 0,
    launcherCalls: [],
    events: [],
    apiVMIs: new Map(),
    handlerVMIs: new Map(),
    apiVMs: new Map(),
    call: (method, urlPath, body) =>
      new Promise((resolve, reject) => {
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
      }),
  };

  const recorded =
    (command: string) =>
    async (target: VirtualMachineInstance, ...args: unknown[]): Promise<void> => {
      if (fixture.launcherFails) throw fixture.launcherFails;
      fixture.launcherCalls.push([command, target.metadata?.name, ...args].join(" "));
    };
  const launcher: RecordingLauncher = {
    pauseVirtualMachine: recorded("Pause"),
    unpauseVirtualMachine: recorded("Unpause"),
    freezeVirtualMachine: recorded("Freeze"),
    unfreezeVirtualMachine: recorded("Unfreeze"),
    softRebootVirtualMachine: recorded("SoftReboot"),
    resetVirtualMachine: recorded("Reset"),
  };

  beforeAll(async () => {
    const started = await startHandler({
      getVMI: (key) => fixture.handlerVMIs.get(key),
      launcher: async () => launcher,
      recordEvent: (_vmi, reason, message, type = "Normal") =>
        fixture.events.push(`${type === "Normal" ? "" : `${type} `}${reason}: ${message}`),
    });
    handler = started;
    handlerPort = started.port;
    const { caBundle: kubevirtCA, client: apiClientOfHandler, serving: handlerServing } = started;
    // A handler that accepts the connection and never answers: the deadline must end the call.
    const idle = createServer({ cert: handlerServing.certPem, key: handlerServing.keyPem }, () => undefined);
    silent = idle;
    await new Promise<void>((resolve) => idle.listen(0, "127.0.0.1", () => resolve()));
    const address = idle.address();
    fixture.silentPort = typeof address === "object" && address ? address.port : 0;

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
    const backend: HandlerPutBackend = {
      getVM: async (_namespace, name) => fixture.apiVMs.get(name),
      getVMI: async (_namespace, name) => fixture.apiVMIs.get(name),
      handlerPods: async () => [{ podIP: fixture.handlerPodIP }],
      handlerTLS: async () => ({ caBundle: kubevirtCA, ...apiClientOfHandler }),
    };
    // The handler's port is known only now, and a test may swap it: a proxy is made per request.
    const proxy = () =>
      new HandlerPutProxy(backend, VMI_HANDLER_VERBS, {
        consoleServerPort: fixture.portOverride ?? handlerPort,
        timeoutMs: 500,
      });
    const server = createVirtApiServer({
      tls: await toPem(
        await newServerKeyPair(apiServingCA, { commonName: "virt-api", ipAddresses: ["127.0.0.1"] }),
      ),
      requestHeader: () => requestHeader,
      reviewer: {
        review: async () => ({
          allowed: fixture.allow,
          reason: fixture.allow ? "" : "no RBAC policy matched",
        }),
      },
      webhooks: {
        clusterConfig: () => ClusterConfig.defaults(),
        kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
      },
      subresources: new SubresourceApp({} as LifecycleClient),
      health: new KubeApiHealth(
        async () => ({}),
        () => "",
      ),
      vmiHandlerPut: {
        verbs: proxy().verbs,
        handle: (verb, namespace, name, body) => proxy().handle(verb, namespace, name, body),
      },
    });
    api = server;
    await server.listen({ host: "127.0.0.1", port: 0 });
    const apiAddress = server.server.address();
    apiPort = typeof apiAddress === "object" && apiAddress ? apiAddress.port : 0;
  });

  afterAll(async () => {
    await api?.close();
    await handler?.stop();
    silent?.closeAllConnections();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
  });

  beforeEach(() => {
    fixture.allow = true;
    fixture.launcherFails = undefined;
    fixture.handlerPodIP = "127.0.0.1";
    fixture.portOverride = undefined;
    fixture.launcherCalls.length = 0;
    fixture.events.length = 0;
    fixture.apiVMs.clear();
    fixture.apiVMIs.clear();
    fixture.handlerVMIs.clear();
    const running = testVMI({ phase: "Running" });
    fixture.apiVMIs.set("testvmi", running);
    fixture.handlerVMIs.set("default/testvmi", running);
  });

  return fixture;
}
