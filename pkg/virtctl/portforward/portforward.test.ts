import { createSocket } from "node:dgram";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";
import { parseTarget } from "./portforward.js";

const fixture = useScriptedApiServer();
const base = "/apis/subresources.kubevirt.io/v1/namespaces";

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5_000) throw new Error("condition not met in 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  return { io, exit: execute(["port-forward", ...argv], io, "virtctl") };
}

/** One TCP exchange through the local port: what came back for `text`. */
async function exchange(port: number, text: string): Promise<string> {
  const connection = net.connect(port, "127.0.0.1");
  let received = "";
  connection.on("data", (chunk: Buffer) => (received += chunk.toString()));
  connection.write(text);
  await until(() => received.length >= text.length);
  connection.destroy();
  return received;
}

describe("parseTarget (upstream's table)", () => {
  it.each([
    ["vmi/testvmi", { kind: "vmi", name: "testvmi", namespace: "" }],
    ["vmi/testvmi/default", { kind: "vmi", name: "testvmi", namespace: "default" }],
    ["vm/testvm", { kind: "vm", name: "testvm", namespace: "" }],
    ["VirtualMachines/testvm/ns", { kind: "vm", name: "testvm", namespace: "ns" }],
    ["vmis/testvmi.with.dots", { kind: "vmi", name: "testvmi.with.dots", namespace: "" }],
  ])("%s", (target, expected) => {
    expect(parseTarget(target)).toEqual(expected);
  });

  it.each([
    ["", "target cannot be empty"],
    ["testvmi", "target must contain type and name separated by '/'"],
    ["vmi/testvmi/", "namespace cannot be empty"],
    ["vmi/testvmi/default/something", "target is not valid with more than two '/'"],
    ["invalid/testvmi", "unsupported resource type 'invalid'"],
    ["vmi/", "name cannot be empty"],
    ["/", "unsupported resource type ''"],
  ])("refuses %j", (target, message) => {
    expect(() => parseTarget(target)).toThrow(message);
  });
});

describe("virtctl port-forward", () => {
  it("forwards a local tcp port to the VMI's port, one stream per connection, until interrupted", async () => {
    const local = await freePort();
    const { io, exit } = start("vmi/testvmi", `${local}:22`);
    await until(() => io.errors().includes(`"msg":"forwarding tcp 127.0.0.1:${local} to 22"`));
    expect(await exchange(local, "SSH-2.0-test\r\n")).toBe("SSH-2.0-test\r\n");
    expect(await exchange(local, "again")).toBe("again");
    const streams = fixture.server.requests.filter((r) => r.path.includes("/portforward/"));
    expect(streams.map((r) => r.path)).toEqual([
      `${base}/from-context/virtualmachineinstances/testvmi/portforward/22/tcp`,
      `${base}/from-context/virtualmachineinstances/testvmi/portforward/22/tcp`,
    ]);
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it("reaches a VM in the namespace the target names, and keeps listening after a refused tunnel", async () => {
    const local = await freePort();
    let refuse = true;
    fixture.server.upgradeHandler = () => (refuse ? status(409, "VMI is paused", "Conflict") : undefined);
    const { io, exit } = start(`vm/testvm/other`, String(local));
    await until(() => io.errors().includes("forwarding tcp"));
    const refused = net.connect(local, "127.0.0.1");
    await new Promise((resolve) => refused.once("close", resolve));
    expect(io.errors()).toContain('"msg":"can\'t access vm/testvm.other: VMI is paused"');
    refuse = false;
    expect(await exchange(local, "hi")).toBe("hi");
    expect(fixture.server.requests.at(-1)?.path).toBe(
      `${base}/other/virtualmachines/testvm/portforward/${local}/tcp`,
    );
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it("forwards udp datagrams as messages, one stream per client", async () => {
    const local = await freePort();
    const { io, exit } = start("vmi/testvmi", `udp/${local}:53`);
    await until(() => io.errors().includes("forwarding udp"));
    const client = createSocket("udp4");
    const replies: string[] = [];
    client.on("message", (message) => replies.push(message.toString()));
    client.send("query-1", local, "127.0.0.1");
    client.send("query-2", local, "127.0.0.1");
    await until(() => replies.length === 2);
    expect(replies).toEqual(["query-1", "query-2"]);
    expect(fixture.server.requests.filter((r) => r.path.endsWith("/portforward/53/udp"))).toHaveLength(1);
    client.close();
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it("--stdio carries stdin and stdout over one stream, and ends with stdin", async () => {
    const { io, exit } = start("--stdio=true", "vmi/testvmi/default", "22");
    io.stdin.write("SSH-2.0-OpenSSH\r\n");
    await until(() => io.output() === "SSH-2.0-OpenSSH\r\n");
    io.stdin.end();
    expect(await exit).toBe(0);
    expect(io.errors()).toBe("");
    expect(fixture.server.requests[0]?.path).toBe(
      `${base}/default/virtualmachineinstances/testvmi/portforward/22/tcp`,
    );
  });

  it.each([
    [["--stdio", "vmi/testvmi", "22", "23"], "only one port supported when forwarding to stdout"],
    [["vmi/testvmi", "sctp/2222:22"], "unknown protocol: sctp"],
    [["vmi/testvmi", "x"], 'strconv.Atoi: parsing "x": invalid syntax'],
    [["pod/testvmi", "22"], "unsupported resource type 'pod'"],
    [["vmi/testvmi", "22", "--address=no-such-host.invalid"], "lookup no-such-host.invalid: no such host"],
  ])("refuses %j", async (argv, message) => {
    const { io, exit } = start(...argv);
    expect(await exit).toBe(1);
    expect(io.errors().trim().split("\n").at(-1)).toBe(message);
  });

  it("wants a target and at least one port, and prints its help on stderr otherwise", async () => {
    const { io, exit } = start("vmi/testvmi");
    expect(await exit).toBe(1);
    expect(io.output()).toBe("");
    const lines = io.errors().split("\n");
    expect(lines[0]).toContain(
      "fatal: Number of input parameters is incorrect, portforward requires at least 2 arg(s), received 1",
    );
    expect(io.errors()).toContain(
      "Usage:\n  virtctl port-forward type/name[/namespace] [protocol/]localPort[:targetPort]... [flags]",
    );
    expect(lines.at(-2)).toBe("argument validation failed");
  });
});
