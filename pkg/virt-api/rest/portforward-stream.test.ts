// portforward for real, with no cluster (test/support/stream-stack.ts): virt-api dials the VMI's first interface
// IP, here a loopback server standing in for the guest, and streams it over the client's WebSocket.
import { createSocket, type Socket as UDPSocket } from "node:dgram";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { guestAddress } from "./portforward.js";
import { runningVMI, StreamStack, VMI_UID, type Opened } from "../../../test/support/stream-stack.js";

let stack: StreamStack;
let tcpEcho: net.Server;
let udpEcho: UDPSocket;
let tcpPort = 0;
let udpPort = 0;

const withIP = (vmi: VirtualMachineInstance, ip = "127.0.0.1"): VirtualMachineInstance => ({
  ...vmi,
  status: { ...vmi.status, interfaces: [{ name: "default", ipAddress: ip }] },
});

beforeAll(async () => {
  stack = await StreamStack.start({
    portForward: { dialTimeoutMs: 300, keepAlive: { pingIntervalMs: 50, timeoutMs: 300 } },
  });
  tcpEcho = net.createServer((connection) => connection.pipe(connection));
  await new Promise<void>((resolve) => tcpEcho.listen(0, "127.0.0.1", () => resolve()));
  tcpPort = (tcpEcho.address() as net.AddressInfo).port;
  udpEcho = createSocket("udp4");
  udpEcho.on("message", (message, from) =>
    udpEcho.send(Buffer.from(`echo:${message}`), from.port, from.address),
  );
  await new Promise<void>((resolve) => udpEcho.bind(0, "127.0.0.1", () => resolve()));
  udpPort = udpEcho.address().port;
  stack.apiVMIs.set("testvmi", withIP(runningVMI("testvmi")));
});

afterAll(async () => {
  await stack.stop();
  await new Promise((resolve) => tcpEcho.close(resolve));
  udpEcho.close();
});

const text = (opened: Opened) => Buffer.concat(opened.received).toString();

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe("guestAddress (upstream's netDial target)", () => {
  const vmi = withIP(runningVMI("testvmi"), "10.244.1.9");
  it.each([
    ["22", undefined, { ok: true, value: { protocol: "tcp", host: "10.244.1.9", port: 22 } }],
    ["53", "udp", { ok: true, value: { protocol: "udp", host: "10.244.1.9", port: 53 } }],
    [
      "22",
      "sctp",
      {
        ok: false,
        status: {
          code: 500,
          message: "Internal error occurred: dialing VM: dial sctp: unknown network sctp",
        },
      },
    ],
    [
      "ssh",
      undefined,
      {
        ok: false,
        status: {
          code: 500,
          message: "Internal error occurred: dialing VM: dial tcp: lookup tcp/ssh: unknown port",
        },
      },
    ],
    [
      "70000",
      undefined,
      {
        ok: false,
        status: {
          code: 500,
          message: "Internal error occurred: dialing VM: dial tcp: address 70000: invalid port",
        },
      },
    ],
  ])("port %s protocol %s", (port, protocol, expected) => {
    expect(guestAddress(vmi, port, protocol)).toMatchObject(expected);
  });

  it("refuses a VMI without interfaces, or whose first interface has no address yet", () => {
    expect(guestAddress(runningVMI("x"), "22")).toMatchObject({
      ok: false,
      status: { code: 400, message: "no network interfaces are present" },
    });
    const noIP = { ...runningVMI("x"), status: { phase: "Running", interfaces: [{ name: "default" }] } };
    expect(guestAddress(noIP, "22")).toMatchObject({ ok: false, status: { code: 400 } });
  });
});

describe("virtctl port-forward → virt-api → the VMI's port", () => {
  it("forwards tcp both ways on both API versions, and closes when the guest does", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const forward = await stack.opened(stack.url(`portforward/${tcpPort}`, "testvmi", version));
      expect(forward.protocol).toBe("plain.kubevirt.io");
      forward.socket.send(Buffer.from("GET / HTTP/1.0\r\n\r\n"));
      await until(() => text(forward) === "GET / HTTP/1.0\r\n\r\n", "the echo");
      forward.socket.close(1000);
      await forward.closed;
    }
    const guest = net.createServer((connection) => connection.end("bye"));
    await new Promise<void>((resolve) => guest.listen(0, "127.0.0.1", () => resolve()));
    const port = (guest.address() as net.AddressInfo).port;
    const forward = await stack.opened(stack.url(`portforward/${port}/tcp`));
    expect(await forward.closed).toBe(1000);
    expect(text(forward)).toBe("bye");
    await new Promise((resolve) => guest.close(resolve));
  });

  it("forwards udp one message per datagram", async () => {
    const forward = await stack.opened(stack.url(`portforward/${udpPort}/udp`));
    forward.socket.send(Buffer.from("one"));
    forward.socket.send(Buffer.from("two"));
    await until(() => forward.received.length === 2, "two datagrams");
    expect(forward.received.map(String).sort()).toEqual(["echo:one", "echo:two"]);
    forward.socket.close(1000);
    await forward.closed;
  });

  it("reaches a VM's VMI, once the VM created it and owns it", async () => {
    stack.apiVMs.set("testvmi", {
      metadata: { name: "testvmi", namespace: "default", uid: "vm-uid" },
      spec: { template: { spec: { domain: { devices: {} } } } },
      status: { created: true },
    });
    const owned = withIP(runningVMI("testvmi"));
    owned.metadata!.ownerReferences = [
      { apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", name: "testvmi", uid: "vm-uid" },
    ];
    stack.apiVMIs.set("testvmi", owned);
    const forward = await stack.opened(
      stack.url(`portforward/${tcpPort}`, "testvmi", "v1", "virtualmachines"),
    );
    forward.socket.send(Buffer.from("vm"));
    await until(() => text(forward) === "vm", "the echo through the VM");
    forward.socket.close(1000);
    await forward.closed;

    stack.apiVMIs.set("testvmi", withIP(runningVMI("testvmi")));
    expect(
      await stack.refused(stack.url(`portforward/${tcpPort}`, "testvmi", "v1", "virtualmachines")),
    ).toMatchObject({
      code: 500,
      body: { message: "Internal error occurred: unable to retrieve vmi [testvmi] for vm: <nil>" },
    });
    stack.apiVMs.set("testvmi", { ...stack.apiVMs.get("testvmi")!, status: {} });
    expect(
      await stack.refused(stack.url(`portforward/${tcpPort}`, "testvmi", "v1", "virtualmachines")),
    ).toMatchObject({
      code: 409,
      body: {
        message: 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvmi": VMI is not started',
      },
    });
    expect(
      await stack.refused(stack.url(`portforward/${tcpPort}`, "nope", "v1", "virtualmachines")),
    ).toMatchObject({
      code: 404,
      body: { message: 'virtualmachine.kubevirt.io "nope" not found' },
    });
  });

  it("refuses a paused VMI, and says why the guest cannot be dialed", async () => {
    const paused = withIP(runningVMI("paused"));
    paused.status!.conditions = [{ type: "Paused", status: "True" }];
    stack.apiVMIs.set("paused", paused);
    expect(await stack.refused(stack.url(`portforward/${tcpPort}`, "paused"))).toMatchObject({
      code: 409,
      body: {
        message:
          'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "paused": VMI is paused',
      },
    });
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await stack.refused(stack.url(`portforward/${port}`))).toMatchObject({
      code: 500,
      body: {
        message: `Internal error occurred: dialing VM: dial tcp 127.0.0.1:${port}: connect: connection refused`,
      },
    });
  });

  it("gives up dialing a guest that does not answer within the deadline", async () => {
    // TEST-NET-1: nothing answers there; the dial either times out or finds no route.
    stack.apiVMIs.set("silent", withIP(runningVMI("silent", VMI_UID), "192.0.2.1"));
    const started = Date.now();
    const answer = await stack.refused(stack.url("portforward/80", "silent"));
    expect(answer.code).toBe(500);
    expect(answer.body.message).toMatch(/^Internal error occurred: dialing VM: dial tcp 192\.0\.2\.1:80: /);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("drops a client that stops answering pings", async () => {
    const forward = await stack.opened(stack.url(`portforward/${tcpPort}`), { autoPong: false });
    expect(await forward.closed).toBe(1006);
  });
});
