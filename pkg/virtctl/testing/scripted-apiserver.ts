// A scripted HTTPS endpoint for virtctl's tests (not an apiserver: each test scripts the answers, and the
// in-memory apiserver is pkg/controller/testing/fake-apiserver.ts): it records every
// request, answers through a per-test handler, and serves console WebSockets with an echo by default.
import type { IncomingMessage } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, type Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { WebSocketServer } from "ws";
import { afterAll, afterEach, beforeAll } from "vitest";
import { newCA, newServerKeyPair, toPem } from "../../certificates/triple.js";
import type { IO } from "../command.js";

export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
  authorization: string | undefined;
}

export interface Reply {
  status: number;
  /** JSON-encoded unless a string or bytes, which go as they are. */
  body?: unknown;
  contentType?: string;
}

export type Handler = (request: RecordedRequest) => Reply;
/** Decides a console upgrade: a Reply refuses it, undefined accepts it. */
export type UpgradeHandler = (request: RecordedRequest) => Reply | undefined;

export const TOKEN = "virtctl-test-token";

export class ScriptedApiServer {
  readonly requests: RecordedRequest[] = [];
  handler: Handler = () => ({ status: 200, body: {} });
  upgradeHandler: UpgradeHandler = () => undefined;
  onConsole: (socket: WebSocket) => void = echo;
  /** Whether console sockets answer the client's keepalive pings. */
  answerPings = true;
  readonly acceptedProtocols: string[] = [];
  /** Upgraded sockets, which closeAllConnections does not reach: a stream a test left open ends at close. */
  private readonly upgraded = new Set<Duplex>();

  private constructor(
    private readonly server: https.Server,
    readonly caPem: string,
  ) {}

  static async start(): Promise<ScriptedApiServer> {
    const ca = await newCA("virtctl-test-ca");
    const serving = await toPem(
      await newServerKeyPair(ca, { commonName: "127.0.0.1", ipAddresses: ["127.0.0.1"] }),
    );
    const caPem = (await toPem(ca)).certPem;
    const server = https.createServer({ cert: serving.certPem, key: serving.keyPem });
    const fake = new ScriptedApiServer(server, caPem);
    const sockets = new WebSocketServer({
      noServer: true,
      autoPong: false,
      handleProtocols: (protocols) => fake.pickProtocol(protocols),
    });
    server.on("request", (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const recorded = fake.record(request, Buffer.concat(chunks).toString("utf8"));
        const reply = fake.handler(recorded);
        response.writeHead(reply.status, { "Content-Type": reply.contentType ?? "application/json" });
        response.end(
          reply.body === undefined
            ? ""
            : typeof reply.body === "string" || Buffer.isBuffer(reply.body)
              ? reply.body
              : JSON.stringify(reply.body),
        );
      });
    });
    server.on("upgrade", (request, socket, head) => {
      fake.upgraded.add(socket);
      socket.once("close", () => fake.upgraded.delete(socket));
      const refusal = fake.upgradeHandler(fake.record(request, ""));
      if (refusal) {
        const text = typeof refusal.body === "string" ? refusal.body : JSON.stringify(refusal.body ?? "");
        const type = typeof refusal.body === "string" ? "text/plain" : "application/json";
        socket.end(
          `HTTP/1.1 ${refusal.status} Refused\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
        );
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        if (fake.answerPings) ws.on("ping", (data: Buffer) => ws.pong(data));
        fake.onConsole(ws);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig trusting this server, with contexts "main" (namespace "from-context") and "bare". */
  kubeconfigYaml(): string {
    const ca = Buffer.from(this.caPem).toString("base64");
    return `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "${this.url}", certificate-authority-data: ${ca}}
users:
- name: tester
  user: {token: ${TOKEN}}
contexts:
- name: main
  context: {cluster: fake, user: tester, namespace: from-context}
- name: bare
  context: {cluster: fake, user: tester}
current-context: main
`;
  }

  reset(): void {
    this.requests.length = 0;
    this.acceptedProtocols.length = 0;
    this.handler = () => ({ status: 200, body: {} });
    this.upgradeHandler = () => undefined;
    this.onConsole = echo;
    this.answerPings = true;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    for (const socket of this.upgraded) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private record(request: IncomingMessage, body: string): RecordedRequest {
    const recorded = {
      method: request.method ?? "",
      path: request.url ?? "",
      body,
      authorization: request.headers.authorization,
    };
    this.requests.push(recorded);
    return recorded;
  }

  private pickProtocol(protocols: Set<string>): string | false {
    this.acceptedProtocols.push(...protocols);
    return protocols.has("plain.kubevirt.io") ? "plain.kubevirt.io" : false;
  }
}

/** The console of a guest that repeats what it is told, as binary frames. */
export function echo(socket: WebSocket): void {
  socket.on("message", (data: Buffer) => socket.send(data, { binary: true }));
}

/** A Kubernetes Status body. */
export function status(code: number, message: string, reason = "BadRequest"): Reply {
  return {
    status: code,
    body: { kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code },
  };
}

export interface TestIO extends IO {
  stdin: PassThrough;
  output(): string;
  errors(): string;
  interrupt(): void;
}

/** Pipes for stdin/stdout/stderr, an environment without a home kubeconfig, and a manual interrupt. */
export function testIO(env: IO["env"] = {}): TestIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => out.push(chunk));
  stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const listeners = new Set<() => void>();
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env,
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    output: () => Buffer.concat(out).toString("utf8"),
    errors: () => Buffer.concat(err).toString("utf8"),
    interrupt: () => [...listeners].forEach((listener) => listener()),
  };
}

/** A scratch directory with the fake server's kubeconfig written to `config`. */
export function writeKubeconfig(server: ScriptedApiServer): { dir: string; path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "virtctl-test-"));
  const path = join(dir, "config");
  writeFileSync(path, server.kubeconfigYaml());
  return { dir, path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One fake apiserver (and a kubeconfig naming it) per test file, reset after each test. */
export function useScriptedApiServer(): {
  server: ScriptedApiServer;
  kubeconfig: ReturnType<typeof writeKubeconfig>;
} {
  const fixture = {} as { server: ScriptedApiServer; kubeconfig: ReturnType<typeof writeKubeconfig> };
  beforeAll(async () => {
    fixture.server = await ScriptedApiServer.start();
    fixture.kubeconfig = writeKubeconfig(fixture.server);
  });
  afterAll(async () => {
    fixture.kubeconfig.remove();
    await fixture.server.close();
  });
  afterEach(() => fixture.server.reset());
  return fixture;
}
