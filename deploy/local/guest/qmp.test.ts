// QmpClient against fake peers on a unix socket: QEMU's QMP greeting and negotiation, and a guest
// agent that still holds an answer an earlier client left unread.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QmpClient } from "./qmp.js";

let dir: string;
let server: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kvts-qmp-"));
});
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A peer that answers each command line with what `answer` returns (lines, or nothing). */
async function fakePeer(
  onConnect: (socket: Socket) => void,
  answer: (command: { execute: string; arguments?: Record<string, unknown> }) => string[],
): Promise<string> {
  const socketPath = path.join(dir, "peer.sock");
  server = createServer((socket) => {
    onConnect(socket);
    createInterface({ input: socket }).on("line", (line) => {
      for (const reply of answer(JSON.parse(line) as { execute: string })) socket.write(reply + "\n");
    });
  });
  await new Promise<void>((resolve) => server?.listen(socketPath, resolve));
  return socketPath;
}

describe("QmpClient.connect", () => {
  it("reads the greeting, negotiates, then pairs answers with commands in order", async () => {
    const seen: string[] = [];
    const socketPath = await fakePeer(
      (socket) => socket.write('{"QMP": {"version": {}, "capabilities": []}}\n'),
      (command) => {
        seen.push(command.execute);
        if (command.execute === "query-status")
          return ['{"event": "RESET"}', '{"return": {"status": "running"}}'];
        if (command.execute === "nope") return ['{"error": {"class": "CommandNotFound", "desc": "no nope"}}'];
        return ['{"return": {}}'];
      },
    );
    const qmp = await QmpClient.connect(socketPath);
    try {
      expect(await qmp.execute("query-status")).toEqual({ status: "running" });
      await expect(qmp.execute("nope")).rejects.toThrow("QMP nope: CommandNotFound: no nope");
      expect(seen).toEqual(["qmp_capabilities", "query-status", "nope"]);
    } finally {
      qmp.close();
    }
  });
});

describe("QmpClient.connectGuestAgent", () => {
  it("drops what comes before its guest-sync answer: a stale answer is never taken for the next one", async () => {
    const socketPath = await fakePeer(
      // an answer left over from an earlier client, and a partial line
      (socket) => socket.write('{"return": {"stale": true}}\n\xff{"retu\n'),
      (command) => {
        if (command.execute === "guest-sync") return [`{"return": ${String(command.arguments?.["id"])}}`];
        if (command.execute === "guest-get-host-name") return ['{"return": {"host-name": "vm1"}}'];
        return [];
      },
    );
    const agent = await QmpClient.connectGuestAgent(socketPath);
    try {
      expect(await agent.execute("guest-get-host-name")).toEqual({ "host-name": "vm1" });
    } finally {
      agent.close();
    }
  });

  it("gives up when the agent does not answer (nothing listens on the guest's end)", async () => {
    const socketPath = await fakePeer(
      () => {},
      () => [],
    );
    await expect(QmpClient.connectGuestAgent(socketPath, 300)).rejects.toThrow(
      "no guest-sync answer within 300 ms",
    );
  });
});
