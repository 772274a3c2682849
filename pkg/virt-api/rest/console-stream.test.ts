// The console path for real, with no cluster: virt-api's HTTPS server (front-proxy authentication and a
// SubjectAccessReview stand-in) → mutual TLS → virt-handler's console server → a unix socket standing in
// for QEMU's serial console in a temporary pods dir. Certificates are made here by pkg/certificates.
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import {
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
  type PemKeyPair,
} from "../../certificates/triple.js";
import { silentLogger } from "../../controller/index.js";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import {
  ConsoleHandler,
  PRIVATE_VOLUME_IN_POD_DIR,
  SERIAL_SOCKET_NAME,
} from "../../virt-handler/rest/console.js";
import { ConsoleServer } from "../../virt-handler/rest/console-server.js";
import { createVirtApiServer, type VirtApiServer } from "../server.js";
import { kubeVirtServiceAccounts } from "../webhooks/routes.js";
import type { RequestHeaderConfig } from "./authorizer.js";
import { ConsoleProxy, type ConsoleBackend } from "./console.js";
import type { HandlerTLS } from "./dialers.js";
import { KubeApiHealth } from "./healthz.js";
import { SubresourceApp, type LifecycleClient } from "./subresource-app.js";

const POD_UID = "0b5a3c1e-1111-2222-3333-444455556666";
const VMI_UID = "7d0e1f2a-aaaa-bbbb-cccc-ddddeeeeffff";
const identity = { "X-Remote-User": "alice", "X-Remote-Group": "system:authenticated" };
const consoleURL = (port: number, name = "testvmi", version = "v1") =>
  `wss://127.0.0.1:${port}/apis/subresources.kubevirt.io/${version}/namespaces/default/virtualmachineinstances/${name}/console`;

const running = (name: string, uid: string): VirtualMachineInstance => ({
  metadata: { name, namespace: "default", uid },
  spec: { domain: { devices: {} } },
  status: { phase: "Running", nodeName: "node01", activePods: { [POD_UID]: "node01" } },
});

let dir: string;
let echo: net.Server;
let handlerServer: ConsoleServer;
let handlerPort = 0;
let api: VirtApiServer;
let apiPort = 0;
let apiCA = "";
let kubevirtCA = "";
let proxyClient: PemKeyPair;
let apiClientOfHandler: PemKeyPair;
let strangerClient: PemKeyPair;
let migrationClient: PemKeyPair;
let allow = true;
let handlerTLS: HandlerTLS;
let handlerAddress = () => ({ podIP: "127.0.0.1", port: handlerPort });
const handlerVMIs = new Map<string, VirtualMachineInstance>();
const apiVMIs = new Map<string, VirtualMachineInstance>();

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "c"));
  const podsDir = path.join(dir, "pods");
  // QEMU's serial socket: an echo server, bound at a short path and moved where the launcher puts it.
  echo = net.createServer((connection) => connection.pipe(connection));
  await new Promise<void>((resolve) => echo.listen(path.join(dir, "s"), () => resolve()));
  const serialDir = path.join(podsDir, POD_UID, PRIVATE_VOLUME_IN_POD_DIR, VMI_UID);
  await mkdir(serialDir, { recursive: true });
  await rename(path.join(dir, "s"), path.join(serialDir, SERIAL_SOCKET_NAME));

  const ca = await newCA("kubevirt.io");
  kubevirtCA = (await toPem(ca)).certPem;
  const handlerServing = await toPem(
    await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-handler" }),
  );
  apiClientOfHandler = await toPem(
    await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:virt-handler" }),
  );
  migrationClient = await toPem(
    await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:migration" }),
  );
  strangerClient = await toPem(
    await newClientKeyPair(await newCA("kubevirt.io"), {
      commonName: "kubevirt.io:system:client:virt-handler",
    }),
  );
  await writeFile(path.join(dir, "tls.crt"), handlerServing.certPem);
  await writeFile(path.join(dir, "tls.key"), handlerServing.keyPem);
  handlerTLS = { caBundle: kubevirtCA, ...apiClientOfHandler };

  handlerVMIs.set("default/testvmi", running("testvmi", VMI_UID));
  const handler = new ConsoleHandler({
    host: "node01",
    podsDir,
    getVMI: (key) => handlerVMIs.get(key),
    logger: silentLogger,
  });
  handlerServer = new ConsoleServer({
    bindAddress: "127.0.0.1",
    port: 0,
    certFile: path.join(dir, "tls.crt"),
    keyFile: path.join(dir, "tls.key"),
    clientCA: { current: () => kubevirtCA, onChange: () => () => undefined },
    handler,
    logger: silentLogger,
  });
  handlerPort = await handlerServer.start();

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
  apiVMIs.set("testvmi", running("testvmi", VMI_UID));
  const backend: ConsoleBackend = {
    getVMI: async (_namespace, name) => apiVMIs.get(name),
    handlerPods: async () => [{ podIP: handlerAddress().podIP }],
    handlerTLS: async () => handlerTLS,
  };
  const noVMs = {} as LifecycleClient;
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
    subresources: new SubresourceApp(noVMs),
    health: new KubeApiHealth(
      async () => ({}),
      () => "",
    ),
    // The handler's port is known only now; the proxy reads it per connection through this getter.
    console: {
      handle: (request, socket, head, namespace, name) =>
        new ConsoleProxy(backend, { consoleServerPort: handlerAddress().port, dialTimeoutMs: 2_000 }).handle(
          request,
          socket,
          head,
          namespace,
          name,
        ),
    },
  });
  await api.listen({ host: "127.0.0.1", port: 0 });
  const address = api.server.address();
  apiPort = typeof address === "object" && address ? address.port : 0;
});

afterAll(async () => {
  // An open console must not hold virt-api's shutdown.
  const open = await opened(consoleURL(apiPort));
  await api?.close();
  expect(await open.closed).toBeGreaterThan(0);
  await handlerServer?.stop();
  await new Promise((resolve) => echo?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

interface Opened {
  socket: WebSocket;
  protocol: string;
  received: Buffer[];
  closed: Promise<number>;
}

type Refused = { code: number; body: { kind?: string; message?: string; code?: number } };

function open(
  url: string,
  options: { client?: PemKeyPair; protocols?: string[] } = {},
): Promise<Opened | Refused> {
  const client = "client" in options ? options.client : proxyClient;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options.protocols ?? ["plain.kubevirt.io"], {
      ca: apiCA,
      cert: client?.certPem,
      key: client?.keyPem,
      headers: identity,
    });
    const received: Buffer[] = [];
    const closed = new Promise<number>((done) => socket.once("close", (code) => done(code)));
    socket.on("message", (data: Buffer, isBinary) => {
      if (isBinary) received.push(data);
    });
    socket.once("open", () => resolve({ socket, protocol: socket.protocol, received, closed }));
    socket.once("unexpected-response", (_request, response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          code: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Refused["body"],
        }),
      );
    });
    socket.once("error", reject);
  });
}

async function opened(url: string, options?: Parameters<typeof open>[1]): Promise<Opened> {
  const result = await open(url, options);
  if (!("socket" in result)) throw new Error(`refused: ${JSON.stringify(result)}`);
  return result;
}

async function refused(url: string, options?: Parameters<typeof open>[1]): Promise<Refused> {
  const result = await open(url, options);
  if ("socket" in result) {
    result.socket.terminate();
    throw new Error("the console opened");
  }
  return result;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

const text = (opened: Opened) => Buffer.concat(opened.received).toString();

describe("virtctl → virt-api → virt-handler → serial socket", () => {
  it("echoes what is typed, on both API versions, with the plain stream subprotocol", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const console = await opened(consoleURL(apiPort, "testvmi", version));
      expect(console.protocol).toBe("plain.kubevirt.io");
      console.socket.send(Buffer.from("hello\r\n"));
      await until(() => text(console) === "hello\r\n", "the echo");
      console.socket.close(1000);
      await console.closed;
    }
  });

  it("answers pings end to end (virt-handler pongs through virt-api)", async () => {
    const console = await opened(consoleURL(apiPort));
    let pongs = 0;
    console.socket.on("pong", () => pongs++);
    console.socket.ping();
    await until(() => pongs === 1, "the pong");
    console.socket.close(1000);
    await console.closed;
  });

  it("ends the first session when a second one connects to the same VMI", async () => {
    const first = await opened(consoleURL(apiPort));
    const second = await opened(consoleURL(apiPort));
    expect(await first.closed).toBe(1000);
    second.socket.send(Buffer.from("still here"));
    await until(() => text(second) === "still here", "the second session's echo");
    second.socket.close(1000);
    await second.closed;
  });

  it("refuses a user without rights with 403 before any upgrade", async () => {
    allow = false;
    const answer = await refused(consoleURL(apiPort)).finally(() => (allow = true));
    expect(answer.code).toBe(403);
    expect(answer.body.message).toBe(
      'virtualmachineinstances.subresources.kubevirt.io "testvmi" is forbidden: User "alice" cannot get resource "virtualmachineinstances/console" in API group "subresources.kubevirt.io" in the namespace "default": no RBAC policy matched',
    );
  });

  it("refuses identity headers without the front proxy's certificate", async () => {
    expect((await refused(consoleURL(apiPort), { client: undefined })).code).toBe(401);
  });

  it("answers a missing VMI with a NotFound Status and a stopped one with upstream's message", async () => {
    const missing = await refused(consoleURL(apiPort, "nope"));
    expect(missing).toMatchObject({
      code: 404,
      body: { kind: "Status", message: 'virtualmachineinstance.kubevirt.io "nope" not found' },
    });
    apiVMIs.set("stopped", { ...running("stopped", VMI_UID), status: { phase: "Scheduled" } });
    expect(await refused(consoleURL(apiPort, "stopped"))).toMatchObject({
      code: 400,
      body: { message: "VMI is not running" },
    });
  });

  it("passes virt-handler's refusal on as a Status", async () => {
    apiVMIs.set("ghost", running("ghost", VMI_UID));
    expect(await refused(consoleURL(apiPort, "ghost"))).toMatchObject({
      code: 500,
      body: {
        message:
          "Internal error occurred: Can't connect to websocket (404): websocket: bad handshake: application info: VMI default/ghost does not exist",
      },
    });
  });

  it("says plainly when virt-handler cannot be reached", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const previous = handlerAddress;
    handlerAddress = () => ({ podIP: "127.0.0.1", port });
    const answer = await refused(consoleURL(apiPort)).finally(() => (handlerAddress = previous));
    expect(answer).toMatchObject({
      code: 500,
      body: { message: `Internal error occurred: dial tcp 127.0.0.1:${port}: connect: connection refused` },
    });
  });

  it("does not trust a virt-handler whose certificate another CA signed", async () => {
    const previous = handlerTLS;
    handlerTLS = { ...handlerTLS, caBundle: (await toPem(await newCA("kubevirt.io"))).certPem };
    const answer = await refused(consoleURL(apiPort)).finally(() => (handlerTLS = previous));
    expect(answer.code).toBe(500);
    expect(answer.body.message).toMatch(/^Internal error occurred: could not verify peer certificate: /);
  });
});

describe("virt-handler's console server accepts only virt-api's client certificate", () => {
  /** Whether the handler lets a TLS client with `client` through to HTTP. */
  function handshake(client: PemKeyPair | undefined): Promise<string> {
    return new Promise((resolve) => {
      const socket = tlsConnect({
        host: "127.0.0.1",
        port: handlerPort,
        ca: kubevirtCA,
        cert: client?.certPem,
        key: client?.keyPem,
        checkServerIdentity: () => undefined,
      });
      let answer = "";
      socket.on("secureConnect", () =>
        socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
      );
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
      socket.on("error", () => resolve("refused"));
      socket.on("close", () => resolve(answer === "" ? "refused" : (answer.split("\r\n")[0] ?? "")));
    });
  }

  it("answers virt-api's certificate", async () => {
    expect(await handshake(apiClientOfHandler)).toBe("HTTP/1.1 404 Not Found");
  });

  it.each([
    ["no certificate", () => undefined],
    ["a certificate from another CA", () => strangerClient],
    ["a KubeVirt certificate with another role", () => migrationClient],
  ])("refuses %s", async (_case, client) => {
    expect(await handshake(client())).toBe("refused");
  });
});
