// vnc and vnc/screenshot for real, with no cluster (test/support/stream-stack.ts): virt-api → mutual TLS →
// virt-handler → a unix socket standing in for QEMU's VNC server, and the launcher's screenshot.
import { request as httpsRequest } from "node:https";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERIAL_SOCKET_NAME, VNC_SOCKET_NAME } from "../../virt-handler/rest/console.js";
import { IDENTITY, runningVMI, StreamStack, type Opened } from "../../../test/support/stream-stack.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
let stack: StreamStack;
let vncServer: net.Server;
let serial: net.Server;
let screenshot: () => Promise<{ mime: string; data: Buffer }> = async () => ({
  mime: "image/png",
  data: PNG,
});

beforeAll(async () => {
  stack = await StreamStack.start({ screenshot: () => screenshot(), screenshotTimeoutMs: 500 });
  // QEMU's VNC server stand-in greets each client the way RFB does, then echoes.
  vncServer = net.createServer((connection) => {
    connection.write("RFB 003.008\n");
    connection.pipe(connection);
  });
  serial = net.createServer((connection) => connection.pipe(connection));
  await stack.serveLauncherSocket(vncServer, VNC_SOCKET_NAME);
  await stack.serveLauncherSocket(serial, SERIAL_SOCKET_NAME);
  stack.handlerVMIs.set("default/testvmi", runningVMI("testvmi"));
  stack.apiVMIs.set("testvmi", runningVMI("testvmi"));
});

afterAll(async () => {
  await stack.stop();
  await Promise.all([vncServer, serial].map((server) => new Promise((resolve) => server.close(resolve))));
});

const text = (opened: Opened) => Buffer.concat(opened.received).toString();

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

function get(url: string): Promise<{ code: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url.replace(/^wss:/, "https:"),
      { ca: stack.apiCA, cert: stack.proxyClient.certPem, key: stack.proxyClient.keyPem, headers: IDENTITY },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            code: response.statusCode ?? 0,
            type: response.headers["content-type"] ?? "",
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on("error", reject);
    request.end();
  });
}

describe("virtctl vnc → virt-api → virt-handler → VNC socket", () => {
  it("carries the RFB greeting and what the client sends, on both API versions", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const vnc = await stack.opened(stack.url("vnc", "testvmi", version));
      expect(vnc.protocol).toBe("plain.kubevirt.io");
      await until(() => text(vnc) === "RFB 003.008\n", "the greeting");
      vnc.socket.send(Buffer.from("RFB 003.008\n"));
      await until(() => text(vnc) === "RFB 003.008\nRFB 003.008\n", "the echo");
      vnc.socket.close(1000);
      await vnc.closed;
    }
  });

  it("drops the current session for a new client, unless the new one asks to preserve it", async () => {
    const first = await stack.opened(stack.url("vnc"));
    await until(() => text(first) !== "", "the first greeting");
    const second = await stack.opened(stack.url("vnc"));
    expect(await first.closed).toBe(1000);
    await until(() => text(second) !== "", "the second greeting");
    const third = await stack.refused(stack.url("vnc?preserveSession=true"));
    expect(third).toMatchObject({
      code: 500,
      body: {
        message:
          "Internal error occurred: Can't connect to websocket (503): websocket: bad handshake: application info: Active VNC connection. Request denied.",
      },
    });
    second.socket.send(Buffer.from("x"));
    await until(() => text(second).endsWith("x"), "the second session, still there");
    second.socket.close(1000);
    await second.closed;
  });

  it("keeps the serial console and VNC sessions apart", async () => {
    const vnc = await stack.opened(stack.url("vnc"));
    const console = await stack.opened(stack.url("console"));
    console.socket.send(Buffer.from("typed"));
    await until(() => text(console) === "typed", "the console echo");
    vnc.socket.send(Buffer.from("!"));
    await until(() => text(vnc).endsWith("!"), "the VNC echo");
    for (const open of [vnc, console]) open.socket.close(1000);
    await Promise.all([vnc.closed, console.closed]);
  });

  it("refuses a VMI without graphics, or not running, with upstream's Status", async () => {
    const headless = runningVMI("headless");
    headless.spec.domain.devices.autoattachGraphicsDevice = false;
    stack.apiVMIs.set("headless", headless);
    expect(await stack.refused(stack.url("vnc", "headless"))).toMatchObject({
      code: 400,
      body: { message: "No graphics devices are present." },
    });
    stack.apiVMIs.set("starting", { ...runningVMI("starting"), status: { phase: "Scheduled" } });
    expect(await stack.refused(stack.url("vnc", "starting"))).toMatchObject({
      code: 400,
      body: { message: "VMI is not running" },
    });
  });
});

describe("discovery", () => {
  it("lists vnc, vnc/screenshot and portforward once they are served, VM portforward not, as upstream", async () => {
    const answer = await get(`https://127.0.0.1:${stack.apiPort}/apis/subresources.kubevirt.io/v1`);
    const names = (JSON.parse(answer.body.toString()) as { resources: { name: string }[] }).resources.map(
      (resource) => resource.name,
    );
    expect(names.slice(0, 4)).toEqual([
      "virtualmachineinstances/vnc",
      "virtualmachineinstances/vnc/screenshot",
      "virtualmachineinstances/console",
      "virtualmachineinstances/portforward",
    ]);
    expect(names).not.toContain("virtualmachines/portforward");
  });

  it("refuses a vnc or portforward request that is no WebSocket upgrade", async () => {
    for (const subresource of ["vnc", "portforward/22"]) {
      const answer = await get(stack.url(subresource));
      expect(answer.code).toBe(400);
      expect(JSON.parse(answer.body.toString())).toMatchObject({
        message:
          "websocket: the client is not using the websocket protocol: 'upgrade' token not found in 'Connection' header",
      });
    }
  });
});

describe("vnc/screenshot", () => {
  it("answers the launcher's PNG", async () => {
    const answer = await get(stack.url("vnc/screenshot?moveCursor=false"));
    expect(answer).toMatchObject({ code: 200, type: "image/png" });
    expect(answer.body.equals(PNG)).toBe(true);
  });

  it("answers every failure with a 500 and the reason as text, as upstream", async () => {
    const previous = screenshot;
    screenshot = () => Promise.reject(new Error('server error. command GetScreenshot failed: "no screens"'));
    const failed = await get(stack.url("vnc/screenshot")).finally(() => (screenshot = previous));
    expect(failed.code).toBe(500);
    expect(failed.body.toString()).toBe(
      'unexpected return code 500 (500 Internal Server Error), message: server error. command GetScreenshot failed: "no screens"',
    );
    const missing = await get(stack.url("vnc/screenshot", "nope"));
    expect([missing.code, missing.body.toString()]).toEqual([
      500,
      'virtualmachineinstance.kubevirt.io "nope" not found',
    ]);
  });

  it("gives up on a launcher that never answers, within its deadline", async () => {
    const previous = screenshot;
    screenshot = () => new Promise(() => undefined);
    const started = Date.now();
    const hung = await get(stack.url("vnc/screenshot")).finally(() => (screenshot = previous));
    expect(hung.code).toBe(500);
    expect(hung.body.toString()).toMatch(/i\/o timeout/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
