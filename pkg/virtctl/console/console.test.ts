import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { execute } from "../root.js";
import type { TestIO } from "../testing/scripted-apiserver.js";
import { TOKEN, status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";
import { DISCONNECTED_MESSAGE } from "./attach.js";
import { newConsoleCommand } from "./console.js";

const fixture = useScriptedApiServer();

// A "minute" of 200 ms and a quick retry keep the waiting paths testable.
const fastConsole = newConsoleCommand({
  minuteMs: 200,
  retryIntervalMs: 20,
  keepAlive: { pingIntervalMs: 50, timeoutMs: 300 },
});
const consolePath =
  "/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachineinstances/vm-cirros/console";
const CONNECTED = "Successfully connected to vm-cirros console. Press Ctrl+] or Ctrl+5 to exit console.\n";

function startConsoleOn(makeIO: () => TestIO, ...flags: string[]): { io: TestIO; exit: Promise<number> } {
  const io = makeIO();
  return { io, exit: execute(["console", "vm-cirros", ...flags], io, "virtctl", [fastConsole]) };
}

const startConsole = (...flags: string[]) =>
  startConsoleOn(() => testIO({ KUBECONFIG: fixture.kubeconfig.path }), ...flags);

/** Console upgrades only: after a failure virtctl also asks for the server's version. */
const consoleRequests = () => fixture.server.requests.filter((request) => request.path === consolePath);

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5_000) throw new Error("condition not met in 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("virtctl console in pipe mode", () => {
  it("streams stdin to the console and the console to stdout, and ^] ends the session", async () => {
    const { io, exit } = startConsole();
    await until(() => io.errors() === CONNECTED);
    io.stdin.write("echo hello\n");
    await until(() => io.output() === "echo hello\n");
    io.stdin.write("uname\n\x1dignored");
    expect(await exit).toBe(0);
    expect(io.output()).toBe("echo hello\nuname\n");
    const [upgrade] = fixture.server.requests;
    expect(upgrade?.method).toBe("GET");
    expect(upgrade?.path).toBe(consolePath);
    expect(upgrade?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(fixture.server.acceptedProtocols).toEqual(["plain.kubevirt.io"]);
  });

  it("a terminal is switched to raw mode for the session and restored after it", async () => {
    const { io, exit } = startConsoleOn(() => {
      const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
      const modes: boolean[] = [];
      Object.assign(io.stdin, { isTTY: true, setRawMode: (raw: boolean) => modes.push(raw), modes });
      return io;
    });
    await until(() => io.errors() === CONNECTED);
    expect((io.stdin as unknown as { modes: boolean[] }).modes).toEqual([true]);
    io.stdin.write("\x1d");
    expect(await exit).toBe(0);
    expect((io.stdin as unknown as { modes: boolean[] }).modes).toEqual([true, false]);
  });

  it("the end of stdin ends the session", async () => {
    const { io, exit } = startConsole();
    await until(() => io.errors() === CONNECTED);
    io.stdin.end();
    expect(await exit).toBe(0);
  });

  it("an interrupt ends the session", async () => {
    const { io, exit } = startConsole();
    await until(() => io.errors() === CONNECTED);
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it("the server closing the stream normally ends the session without an error", async () => {
    fixture.server.onConsole = (socket) =>
      socket.send(Buffer.from("login: "), { binary: true }, () => socket.close(1000));
    const { io, exit } = startConsole();
    expect(await exit).toBe(0);
    expect(io.output()).toBe("login: ");
  });

  it("a lost stream says why the user may have been disconnected", async () => {
    fixture.server.onConsole = (socket: WebSocket) => socket.terminate();
    const { io, exit } = startConsole();
    expect(await exit).toBe(1);
    expect(io.errors()).toBe(
      `${CONNECTED}${DISCONNECTED_MESSAGE}websocket: close 1006 (abnormal closure): unexpected EOF\n`,
    );
  });

  it("a server that stops answering pings is given up on", async () => {
    fixture.server.answerPings = false;
    const { io, exit } = startConsole();
    expect(await exit).toBe(1);
    expect(io.errors()).toContain("You were disconnected from the console.");
  });
});

describe("waiting for the VMI", () => {
  it("retries while virt-api answers 400, then connects", async () => {
    let refusals = 3;
    fixture.server.upgradeHandler = () => (refusals-- > 0 ? status(400, "VMI is not running") : undefined);
    const { io, exit } = startConsole();
    await until(() => io.errors() === CONNECTED);
    expect(consoleRequests()).toHaveLength(4);
    io.stdin.end();
    expect(await exit).toBe(0);
  });

  it("gives up after --timeout minutes", async () => {
    fixture.server.upgradeHandler = () => status(400, "VMI is not running");
    const { io, exit } = startConsole("--timeout=1");
    expect(await exit).toBe(1);
    expect(io.errors()).toBe("Timeout trying to connect to the virtual machine instance\n");
    expect(consoleRequests().length).toBeGreaterThan(1);
  });

  it("with --timeout=0 tries once and prints the server's message", async () => {
    fixture.server.upgradeHandler = () => status(400, "VMI is not running");
    const { io, exit } = startConsole("--timeout=0");
    expect(await exit).toBe(1);
    expect(io.errors()).toBe("VMI is not running\n");
    expect(consoleRequests()).toHaveLength(1);
  });

  it.each([
    {
      reply: status(404, 'virtualmachineinstance.kubevirt.io "vm-cirros" not found', "NotFound"),
      line: 'virtualmachineinstance.kubevirt.io "vm-cirros" not found',
    },
    {
      reply: status(403, "forbidden: user cannot get console", "Forbidden"),
      line: "forbidden: user cannot get console",
    },
    {
      reply: { status: 503, body: "no endpoints" },
      line: "Can't connect to websocket (503): websocket: bad handshake: application info: no endpoints",
    },
  ])("does not retry a $reply.status", async ({ reply, line }) => {
    fixture.server.upgradeHandler = () => reply;
    const { io, exit } = startConsole();
    expect(await exit).toBe(1);
    expect(io.errors()).toBe(`${line}\n`);
    expect(consoleRequests()).toHaveLength(1);
  });

  it("an interrupt while waiting exits cleanly", async () => {
    fixture.server.upgradeHandler = () => status(400, "VMI is not running");
    const { io, exit } = startConsole();
    await until(() => fixture.server.requests.length > 0);
    io.interrupt();
    expect(await exit).toBe(0);
    expect(io.output()).toBe("\n");
  });
});
