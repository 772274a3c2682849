import net from "node:net";
import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";
import { chooseViewer } from "./vnc.js";

const fixture = useScriptedApiServer();
const vncPath =
  "/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachineinstances/testvmi/vnc";

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5_000) throw new Error("condition not met in 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function startVNC(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  return { io, exit: execute(["vnc", "testvmi", ...argv], io, "virtctl") };
}

/** The port from the one line --proxy-only prints. */
async function printedPort(io: ReturnType<typeof testIO>): Promise<number> {
  await until(() => io.output().endsWith("\n"));
  return (JSON.parse(io.output()) as { port: number }).port;
}

describe("virtctl vnc --proxy-only", () => {
  it('prints {"port":N} and joins the first client that connects to the stream', async () => {
    const { io, exit } = startVNC("--proxy-only");
    const port = await printedPort(io);
    expect(io.output()).toBe(`{"port":${port}}\n`);
    const viewer = net.connect(port, "127.0.0.1");
    let echoed = "";
    viewer.on("data", (chunk: Buffer) => (echoed += chunk.toString()));
    viewer.write("RFB 003.008\n");
    await until(() => echoed === "RFB 003.008\n");
    // The viewer leaving ends virtctl vnc, as upstream.
    viewer.end();
    expect(await exit).toBe(0);
    expect(fixture.server.requests.map((r) => r.path)).toContain(`${vncPath}?preserveSession=false`);
    expect(fixture.server.acceptedProtocols).toEqual(["plain.kubevirt.io"]);
  });

  it("keeps what the VNC server says first until a viewer connects", async () => {
    fixture.server.onConsole = (socket) => {
      socket.send(Buffer.from("RFB 003.008\n"), { binary: true });
      socket.on("message", (data: Buffer) => socket.send(data, { binary: true }));
    };
    const { io, exit } = startVNC("--proxy-only");
    const port = await printedPort(io);
    // Long enough for the greeting to have arrived at virtctl.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const viewer = net.connect(port, "127.0.0.1");
    let received = "";
    viewer.on("data", (chunk: Buffer) => (received += chunk.toString()));
    await until(() => received === "RFB 003.008\n");
    viewer.write("RFB 003.008\n");
    await until(() => received === "RFB 003.008\nRFB 003.008\n");
    viewer.end();
    expect(await exit).toBe(0);
  });

  it("listens on --port and --address, asks to preserve the session, and ends on interrupt", async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", () => resolve()));
    const wanted = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const { io, exit } = startVNC(
      "--proxy-only",
      "--port",
      String(wanted),
      "--address=localhost",
      "--preserve-session",
    );
    expect(await printedPort(io)).toBe(wanted);
    expect(fixture.server.requests[0]?.path).toBe(`${vncPath}?preserveSession=true`);
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it("says so when the VMI's stream is refused", async () => {
    fixture.server.upgradeHandler = () => status(400, "No graphics devices are present.");
    const { io, exit } = startVNC("--proxy-only");
    expect(await exit).toBe(1);
    expect(io.errors()).toMatch(/^can't access VMI testvmi: No graphics devices are present\.\n/);
  });

  it("says so when the port is taken", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", () => resolve()));
    const port = (taken.address() as net.AddressInfo).port;
    const { io, exit } = startVNC("--proxy-only", `--port=${port}`);
    expect(await exit).toBe(1);
    expect(io.errors()).toMatch(
      new RegExp(
        `^can't listen on unix socket: listen tcp 127\\.0\\.0\\.1:${port}: bind: address already in use\\n`,
      ),
    );
    await new Promise((resolve) => taken.close(resolve));
  });

  it("wants --vnc-type and --vnc-path together, as cobra's flag group", async () => {
    const { io, exit } = startVNC("--vnc-type=tiger");
    expect(await exit).toBe(1);
    expect(io.errors()).toBe(
      "if any flags in the group [vnc-type vnc-path] are set they must all be set; missing [vnc-path]\nRun 'virtctl vnc --help' for usage.\n",
    );
  });
});

describe("chooseViewer on Linux (upstream's order)", () => {
  const only =
    (...installed: string[]) =>
    (name: string) =>
      installed.includes(name) ? `/usr/bin/${name}` : undefined;
  it.each([
    [only("remote-viewer", "vncviewer"), { binary: "remote-viewer", args: ["vnc://127.0.0.1:5901"] }],
    [only("vncviewer"), { binary: "vncviewer", args: ["127.0.0.1:5901"] }],
  ])("%#", (find, expected) => {
    expect(chooseViewer("", "", "127.0.0.1", 5901, find)).toEqual(expected);
  });

  it("names both viewers when neither is installed, and checks a viewer given by path", () => {
    expect(() => chooseViewer("", "", "127.0.0.1", 5901, only())).toThrow(
      "could not find remote-viewer or vncviewer binary in $PATH",
    );
    expect(() => chooseViewer("tiger", "/nonexistent/vncviewer", "127.0.0.1", 1, only())).toThrow(
      "specified VNC path does not exist: /nonexistent/vncviewer",
    );
    expect(chooseViewer("tiger", process.execPath, "127.0.0.1", 7, only())).toEqual({
      binary: process.execPath,
      args: ["127.0.0.1:7"],
    });
    expect(() => chooseViewer("chicken", process.execPath, "127.0.0.1", 7, only())).toThrow(
      "unsupported vnc-type for linux: chicken",
    );
  });
});
