// Test helper: the stream subresources for real, with no cluster. virt-api's HTTPS server (front-proxy
// authentication and a SubjectAccessReview stand-in) → mutual TLS → virt-handler's console server → unix
// sockets standing in for QEMU's in a temporary pods dir; certificates are made by pkg/certificates. VMIs
// and VMs are maps the test fills; the handler's address and TLS and the access answer can be changed
// between requests.
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import type net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import WebSocket from "ws";
import type { VirtualMachine, VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import {
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
  type PemKeyPair,
} from "../../pkg/certificates/triple.js";
import { silentLogger } from "../../pkg/controller/index.js";
import { ClusterConfig } from "../../pkg/virt-config/cluster-config.js";
import type { LauncherCommands } from "../../pkg/virt-handler/launcher-clients.js";
import { ConsoleHandler, PRIVATE_VOLUME_IN_POD_DIR } from "../../pkg/virt-handler/rest/console.js";
import { ConsoleServer } from "../../pkg/virt-handler/rest/console-server.js";
import { ScreenshotHandler } from "../../pkg/virt-handler/rest/screenshot.js";
import { createVirtApiServer, type VirtApiServer } from "../../pkg/virt-api/server.js";
import { kubeVirtServiceAccounts } from "../../pkg/virt-api/webhooks/routes.js";
import type { RequestHeaderConfig } from "../../pkg/virt-api/rest/authorizer.js";
import { ConsoleProxy, type ConsoleBackend } from "../../pkg/virt-api/rest/console.js";
import type { HandlerTLS } from "../../pkg/virt-api/rest/dialers.js";
import { KubeApiHealth } from "../../pkg/virt-api/rest/healthz.js";
import { PortForwardProxy, type PortForwardOptions } from "../../pkg/virt-api/rest/portforward.js";
import { SubresourceApp, type LifecycleClient } from "../../pkg/virt-api/rest/subresource-app.js";
import { ScreenshotProxy } from "../../pkg/virt-api/rest/vnc.js";

export const POD_UID = "0b5a3c1e-1111-2222-3333-444455556666";
export const VMI_UID = "7d0e1f2a-aaaa-bbbb-cccc-ddddeeeeffff";
export const IDENTITY = { "X-Remote-User": "alice", "X-Remote-Group": "system:authenticated" };

export const runningVMI = (name: string, uid = VMI_UID): VirtualMachineInstance => ({
  metadata: { name, namespace: "default", uid },
  spec: { domain: { devices: {} } },
  status: { phase: "Running", nodeName: "node01", activePods: { [POD_UID]: "node01" } },
});

export interface StreamStackOptions {
  /** What the screenshot endpoint's launcher answers. */
  screenshot?: LauncherCommands["getScreenshot"];
  portForward?: PortForwardOptions;
  /** The deadline of virt-api's GET of the screenshot. */
  screenshotTimeoutMs?: number;
}

export interface Opened {
  socket: WebSocket;
  protocol: string;
  received: Buffer[];
  closed: Promise<number>;
}

export type Refused = { code: number; body: { kind?: string; message?: string; code?: number } };

export class StreamStack {
  allow = true;
  /** Where virt-api looks for virt-handler. */
  handlerAddress = { podIP: "127.0.0.1", port: 0 };
  handlerTLS!: HandlerTLS;
  /** The handler's informer cache, by `namespace/name`. */
  readonly handlerVMIs = new Map<string, VirtualMachineInstance>();
  /** What virt-api reads from the cluster, by name in namespace default. */
  readonly apiVMIs = new Map<string, VirtualMachineInstance>();
  readonly apiVMs = new Map<string, VirtualMachine>();
  apiPort = 0;
  handlerPort = 0;
  apiCA = "";
  kubevirtCA = "";
  proxyClient!: PemKeyPair;
  apiClientOfHandler!: PemKeyPair;
  strangerClient!: PemKeyPair;
  migrationClient!: PemKeyPair;
  api!: VirtApiServer;
  handlerServer!: ConsoleServer;
  private socketCount = 0;

  private constructor(readonly dir: string) {}

  get podsDir(): string {
    return path.join(this.dir, "pods");
  }

  static async start(options: StreamStackOptions = {}): Promise<StreamStack> {
    const stack = new StreamStack(await mkdtemp(path.join(tmpdir(), "c")));
    await stack.startHandler(options);
    await stack.startApi(options);
    return stack;
  }

  /** Serves `server` where the launcher puts the VMI's socket `name` (bound short, then moved there). */
  async serveLauncherSocket(server: net.Server, name: string, vmiUID = VMI_UID): Promise<void> {
    const short = path.join(this.dir, `s${this.socketCount++}`);
    await new Promise<void>((resolve) => server.listen(short, () => resolve()));
    const at = path.join(this.podsDir, POD_UID, PRIVATE_VOLUME_IN_POD_DIR, vmiUID);
    await mkdir(at, { recursive: true });
    await rename(short, path.join(at, name));
  }

  url(subresource: string, name = "testvmi", version = "v1", resource = "virtualmachineinstances"): string {
    return `wss://127.0.0.1:${this.apiPort}/apis/subresources.kubevirt.io/${version}/namespaces/default/${resource}/${name}/${subresource}`;
  }

  /** Opens a stream as a user through the front proxy; the refusal when virt-api answers without upgrading. */
  open(
    url: string,
    options: { client?: PemKeyPair; protocols?: string[]; autoPong?: boolean } = {},
  ): Promise<Opened | Refused> {
    const client = "client" in options ? options.client : this.proxyClient;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options.protocols ?? ["plain.kubevirt.io"], {
        ca: this.apiCA,
        cert: client?.certPem,
        key: client?.keyPem,
        headers: IDENTITY,
        autoPong: options.autoPong ?? true,
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

  async opened(url: string, options?: Parameters<StreamStack["open"]>[1]): Promise<Opened> {
    const result = await this.open(url, options);
    if (!("socket" in result)) throw new Error(`refused: ${JSON.stringify(result)}`);
    return result;
  }

  async refused(url: string, options?: Parameters<StreamStack["open"]>[1]): Promise<Refused> {
    const result = await this.open(url, options);
    if ("socket" in result) {
      result.socket.terminate();
      throw new Error("the stream opened");
    }
    return result;
  }

  async stop(): Promise<void> {
    await this.api?.close();
    await this.handlerServer?.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async startHandler(options: StreamStackOptions): Promise<void> {
    const ca = await newCA("kubevirt.io");
    this.kubevirtCA = (await toPem(ca)).certPem;
    const serving = await toPem(
      await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-handler" }),
    );
    this.apiClientOfHandler = await toPem(
      await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:virt-handler" }),
    );
    this.migrationClient = await toPem(
      await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:migration" }),
    );
    this.strangerClient = await toPem(
      await newClientKeyPair(await newCA("kubevirt.io"), {
        commonName: "kubevirt.io:system:client:virt-handler",
      }),
    );
    await writeFile(path.join(this.dir, "tls.crt"), serving.certPem);
    await writeFile(path.join(this.dir, "tls.key"), serving.keyPem);
    this.handlerTLS = { caBundle: this.kubevirtCA, ...this.apiClientOfHandler };
    const getVMI = (key: string) => this.handlerVMIs.get(key);
    const screenshot = options.screenshot;
    this.handlerServer = new ConsoleServer({
      bindAddress: "127.0.0.1",
      port: 0,
      certFile: path.join(this.dir, "tls.crt"),
      keyFile: path.join(this.dir, "tls.key"),
      clientCA: { current: () => this.kubevirtCA, onChange: () => () => undefined },
      handler: new ConsoleHandler({ host: "node01", podsDir: this.podsDir, getVMI, logger: silentLogger }),
      screenshot: new ScreenshotHandler({
        getVMI,
        launcher: async () => (screenshot ? { getScreenshot: screenshot } : undefined),
        logger: silentLogger,
      }),
      logger: silentLogger,
    });
    this.handlerPort = await this.handlerServer.start();
    this.handlerAddress = { podIP: "127.0.0.1", port: this.handlerPort };
  }

  private async startApi(options: StreamStackOptions): Promise<void> {
    const servingCA = await newCA("kubevirt.io");
    this.apiCA = (await toPem(servingCA)).certPem;
    const proxyCA = await newCA("front-proxy-ca");
    this.proxyClient = await toPem(await newClientKeyPair(proxyCA, { commonName: "front-proxy-client" }));
    const requestHeader: RequestHeaderConfig = {
      clientCA: (await toPem(proxyCA)).certPem,
      allowedNames: ["front-proxy-client"],
      usernameHeaders: ["X-Remote-User"],
      groupHeaders: ["X-Remote-Group"],
      extraHeaderPrefixes: ["X-Remote-Extra-"],
    };
    const backend: ConsoleBackend = {
      getVMI: async (_namespace, name) => this.apiVMIs.get(name),
      handlerPods: async () => [{ podIP: this.handlerAddress.podIP }],
      handlerTLS: async () => this.handlerTLS,
    };
    // The handler's port may change between requests: the proxies are made per request.
    const proxy = () =>
      new ConsoleProxy(backend, { consoleServerPort: this.handlerAddress.port, dialTimeoutMs: 2_000 });
    const portForward = new PortForwardProxy(
      {
        getVMI: async (_namespace, name) => this.apiVMIs.get(name),
        getVM: async (_namespace, name) => this.apiVMs.get(name),
      },
      options.portForward,
    );
    this.api = createVirtApiServer({
      tls: await toPem(
        await newServerKeyPair(servingCA, { commonName: "virt-api", ipAddresses: ["127.0.0.1"] }),
      ),
      requestHeader: () => requestHeader,
      reviewer: {
        review: async () => ({ allowed: this.allow, reason: this.allow ? "" : "no RBAC policy matched" }),
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
      console: { handle: (...args) => proxy().handle(...args) },
      vnc: {
        stream: { handle: (...args) => proxy().handle(...args) },
        screenshot: {
          handle: (namespace, name) =>
            new ScreenshotProxy(backend, {
              consoleServerPort: this.handlerAddress.port,
              timeoutMs: options.screenshotTimeoutMs,
            }).handle(namespace, name),
        },
      },
      portForward,
    });
    await this.api.listen({ host: "127.0.0.1", port: 0 });
    const address = this.api.server.address();
    this.apiPort = typeof address === "object" && address ? address.port : 0;
  }
}
