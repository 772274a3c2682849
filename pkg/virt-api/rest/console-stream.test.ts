// The console path for real, with no cluster (test/support/stream-stack.ts): virt-api → mutual TLS →
// virt-handler's console server → a unix socket standing in for QEMU's serial console.
import net from "node:net";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCA, toPem, type PemKeyPair } from "../../certificates/triple.js";
import { SERIAL_SOCKET_NAME } from "../../virt-handler/rest/console.js";
import {
  runningVMI as running,
  StreamStack,
  VMI_UID,
  type Opened,
} from "../../../test/support/stream-stack.js";

let stack: StreamStack;
let echo: net.Server;
const consoleURL = (name = "testvmi", version = "v1") => stack.url("console", name, version);
const opened = (url: string, options?: Parameters<StreamStack["open"]>[1]) => stack.opened(url, options);
const refused = (url: string, options?: Parameters<StreamStack["open"]>[1]) => stack.refused(url, options);

beforeAll(async () => {
  stack = await StreamStack.start();
  // QEMU's serial socket: an echo server where the launcher puts it.
  echo = net.createServer((connection) => connection.pipe(connection));
  await stack.serveLauncherSocket(echo, SERIAL_SOCKET_NAME);
  stack.handlerVMIs.set("default/testvmi", running("testvmi", VMI_UID));
  stack.apiVMIs.set("testvmi", running("testvmi", VMI_UID));
});

afterAll(async () => {
  // An open console must not hold virt-api's shutdown.
  const open = await opened(consoleURL());
  await stack.api.close();
  expect(await open.closed).toBeGreaterThan(0);
  await stack.stop();
  await new Promise((resolve) => echo?.close(resolve));
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

const text = (opened: Opened) => Buffer.concat(opened.received).toString();

describe("virtctl → virt-api → virt-handler → serial socket", () => {
  it("echoes what is typed, on both API versions, with the plain stream subprotocol", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const console = await opened(consoleURL("testvmi", version));
      expect(console.protocol).toBe("plain.kubevirt.io");
      console.socket.send(Buffer.from("hello\r\n"));
      await until(() => text(console) === "hello\r\n", "the echo");
      console.socket.close(1000);
      await console.closed;
    }
  });

  it("answers pings end to end (virt-handler pongs through virt-api)", async () => {
    const console = await opened(consoleURL());
    let pongs = 0;
    console.socket.on("pong", () => pongs++);
    console.socket.ping();
    await until(() => pongs === 1, "the pong");
    console.socket.close(1000);
    await console.closed;
  });

  it("ends the first session when a second one connects to the same VMI", async () => {
    const first = await opened(consoleURL());
    const second = await opened(consoleURL());
    expect(await first.closed).toBe(1000);
    second.socket.send(Buffer.from("still here"));
    await until(() => text(second) === "still here", "the second session's echo");
    second.socket.close(1000);
    await second.closed;
  });

  it("refuses a user without rights with 403 before any upgrade", async () => {
    stack.allow = false;
    const answer = await refused(consoleURL()).finally(() => (stack.allow = true));
    expect(answer.code).toBe(403);
    expect(answer.body.message).toBe(
      'virtualmachineinstances.subresources.kubevirt.io "testvmi" is forbidden: User "alice" cannot get resource "virtualmachineinstances/console" in API group "subresources.kubevirt.io" in the namespace "default": no RBAC policy matched',
    );
  });

  it("refuses identity headers without the front proxy's certificate", async () => {
    expect((await refused(consoleURL(), { client: undefined })).code).toBe(401);
  });

  it("answers a missing VMI with a NotFound Status and a stopped one with upstream's message", async () => {
    const missing = await refused(consoleURL("nope"));
    expect(missing).toMatchObject({
      code: 404,
      body: { kind: "Status", message: 'virtualmachineinstance.kubevirt.io "nope" not found' },
    });
    stack.apiVMIs.set("stopped", { ...running("stopped", VMI_UID), status: { phase: "Scheduled" } });
    expect(await refused(consoleURL("stopped"))).toMatchObject({
      code: 400,
      body: { message: "VMI is not running" },
    });
  });

  it("passes virt-handler's refusal on as a Status", async () => {
    stack.apiVMIs.set("ghost", running("ghost", VMI_UID));
    expect(await refused(consoleURL("ghost"))).toMatchObject({
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
    const previous = stack.handlerAddress;
    stack.handlerAddress = { podIP: "127.0.0.1", port };
    const answer = await refused(consoleURL()).finally(() => (stack.handlerAddress = previous));
    expect(answer).toMatchObject({
      code: 500,
      body: { message: `Internal error occurred: dial tcp 127.0.0.1:${port}: connect: connection refused` },
    });
  });

  it("does not trust a virt-handler whose certificate another CA signed", async () => {
    const previous = stack.handlerTLS;
    stack.handlerTLS = { ...previous, caBundle: (await toPem(await newCA("kubevirt.io"))).certPem };
    const answer = await refused(consoleURL()).finally(() => (stack.handlerTLS = previous));
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
        port: stack.handlerPort,
        ca: stack.kubevirtCA,
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
    expect(await handshake(stack.apiClientOfHandler)).toBe("HTTP/1.1 404 Not Found");
  });

  it.each([
    ["no certificate", () => undefined],
    ["a certificate from another CA", () => stack.strangerClient],
    ["a KubeVirt certificate with another role", () => stack.migrationClient],
  ])("refuses %s", async (_case, client) => {
    expect(await handshake(client())).toBe("refused");
  });
});
