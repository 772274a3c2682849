import { mkdir, mkdtemp, rm, stat, symlink } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/log.js";
import { openNoFollow } from "../../safepath/no-follow.js";
import { NOTIFY_PIPE_SOCKET, NotifyPipes } from "./pipe.js";

const POD = "0f0e0d0c-1111-2222-3333-444455556666";
let base: string;
let podsDir: string;
let notifyServer: Server;
let pipes: NotifyPipes;

const vmi = {
  metadata: { name: "vmi1", namespace: "default", uid: "vmi-uid" },
  spec: { domain: { devices: {} } },
  status: { nodeName: "node01", activePods: { [POD]: "node01" } },
} as unknown as VirtualMachineInstance;

const shareDir = () => path.join(podsDir, POD, "volumes/kubernetes.io~empty-dir/public");

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "pipe-"));
  podsDir = path.join(base, "pods");
  const notifySocket = path.join(base, "domain-notify.sock");
  // The notify server stand-in answers each message with its upper-case copy.
  notifyServer = createServer((socket) =>
    socket.on("data", (data) => socket.write(data.toString().toUpperCase())),
  );
  await new Promise<void>((resolve) => notifyServer.listen(notifySocket, resolve));
  pipes = new NotifyPipes({
    host: "node01",
    podsDir,
    notifySocket,
    ownerFor: () => undefined,
    logger: silentLogger,
  });
});

afterEach(async () => {
  pipes.closeAll();
  await new Promise((resolve) => notifyServer.close(resolve));
  await rm(base, { recursive: true, force: true });
});

/** Dials the pipe as the launcher would; through /proc/self/fd, since the temp path is longer than 107 bytes. */
async function roundTrip(socketPath: string, message: string): Promise<string> {
  const socket = await openNoFollow(path.dirname(socketPath), [path.basename(socketPath)], "socket");
  try {
    return await new Promise((resolve, reject) => {
      const client = connect(socket.procPath, () => client.write(message));
      client.once("data", (data) => {
        resolve(data.toString());
        client.end();
      });
      client.once("error", reject);
    });
  } finally {
    await socket.close();
  }
}

describe("NotifyPipes", () => {
  it("relays a launcher's connection from inside its pod to the handler's notify server", async () => {
    await mkdir(shareDir(), { recursive: true });
    await pipes.ensure(vmi);
    await pipes.ensure(vmi); // once per launcher
    expect(await roundTrip(path.join(shareDir(), NOTIFY_PIPE_SOCKET), "event")).toBe("EVENT");
  });

  it("replaces a stale socket an earlier handler left behind", async () => {
    await mkdir(shareDir(), { recursive: true });
    const stale = createServer();
    await new Promise<void>((resolve) => stale.listen(path.join(shareDir(), NOTIFY_PIPE_SOCKET), resolve));
    stale.close();
    await new Promise<void>((resolve) => stale.listen(path.join(base, "x.sock"), resolve));
    await pipes.ensure(vmi);
    expect(await roundTrip(path.join(shareDir(), NOTIFY_PIPE_SOCKET), "again")).toBe("AGAIN");
    stale.close();
  });

  it("refuses a share dir the pod replaced with a symlink", async () => {
    const elsewhere = path.join(base, "elsewhere");
    await mkdir(elsewhere);
    await mkdir(path.dirname(shareDir()), { recursive: true });
    await symlink(elsewhere, shareDir());
    await expect(pipes.ensure(vmi)).rejects.toThrow(/has no share dir/);
    await expect(stat(path.join(elsewhere, NOTIFY_PIPE_SOCKET))).rejects.toThrow();
  });

  it("stops listening when the VMI is forgotten", async () => {
    await mkdir(shareDir(), { recursive: true });
    await pipes.ensure(vmi);
    pipes.close(vmi);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(roundTrip(path.join(shareDir(), NOTIFY_PIPE_SOCKET), "x")).rejects.toThrow();
  });
});
