import { link, mkdir, mkdtemp, rm, stat, symlink } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { socketFilePathOnHost } from "../../handler-launcher-com/sockets.js";
import { SocketIsolationDetector, processSeesSocket } from "./detector.js";

// (Short paths: a unix socket path must fit in 108 bytes.)
// A fake /proc: each <pid>/root is a plain directory standing for that process's root. The launcher
// pod's processes see the pods-dir socket itself (a hard link: same device and inode); other processes
// plant symlinks aimed at it.

const POD_UID = "0b6e1c2a";
const IN_POD_SOCKET = "/var/run/kubevirt/sockets/launcher-sock";

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

function vmiOn(node: string, podUID = POD_UID): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: { domain: { devices: {} } },
    status: { nodeName: node, activePods: { [podUID]: node } },
  };
}

describe("SocketIsolationDetector on a fake /proc", () => {
  let base: string;
  let podsDir: string;
  let procDir: string;
  let socketPath: string;
  const servers: Server[] = [];

  async function processRoot(pid: number): Promise<string> {
    const root = join(procDir, String(pid), "root");
    await mkdir(join(root, "var"), { recursive: true });
    return root;
  }

  async function plant(pid: number, target: string): Promise<void> {
    const at = join(await processRoot(pid), IN_POD_SOCKET);
    await mkdir(dirname(at), { recursive: true });
    await symlink(target, at);
  }

  beforeAll(async () => {
    base = await mkdtemp("/tmp/kvi-");
    podsDir = join(base, "p");
    procDir = join(base, "proc");
    socketPath = socketFilePathOnHost(POD_UID, podsDir);
    await mkdir(dirname(socketPath), { recursive: true });
    servers.push(await listen(socketPath));

    // pid 1: the node, with a launcher socket of its own at the same path.
    const nodeSocket = join(await processRoot(1), IN_POD_SOCKET);
    await mkdir(dirname(nodeSocket), { recursive: true });
    servers.push(await listen(nodeSocket));
    // pids 5 and 7: another pod aiming symlinks at the launcher's socket, absolute and climbing.
    await plant(5, socketPath);
    await plant(7, `../../../../../../../../../../../..${socketPath}`);
    // pids 42 and 43: the launcher pod's containers; /var/run is an absolute symlink to /run.
    for (const pid of [43, 42]) {
      const root = await processRoot(pid);
      await symlink("/run", join(root, "var/run"));
      await mkdir(join(root, "run/kubevirt/sockets"), { recursive: true });
      await link(socketPath, join(root, "run/kubevirt/sockets/launcher-sock"));
    }
    await mkdir(join(procDir, "self"));
    await mkdir(join(procDir, "net"));
  });

  afterAll(async () => {
    for (const server of servers) server.close();
    await rm(base, { recursive: true, force: true });
  });

  const detector = () => new SocketIsolationDetector({ host: "node01", podsDir, procDir });

  it("finds the lowest pid of the pod that mounts the socket, not the ones pointing at it", async () => {
    expect(await detector().detect(vmiOn("node01"))).toEqual({
      pid: 42,
      netnsPath: join(procDir, "42/ns/net"),
      rootFs: join(procDir, "42/root"),
    });
  });

  it("refuses a VMI without an active launcher pod on this node", async () => {
    await expect(detector().detect(vmiOn("node02"))).rejects.toThrow(
      "no launcher pod of the VMI is active on node01",
    );
  });

  it("refuses a pod whose socket is missing", async () => {
    const other = "0b6e1c2b";
    await expect(detector().detect(vmiOn("node01", other))).rejects.toThrow(
      `the launcher socket of pod ${other} is missing or not a socket`,
    );
  });

  it("refuses a socket that no process mounts", async () => {
    const orphanUID = "0b6e1c2c";
    const orphan = socketFilePathOnHost(orphanUID, podsDir);
    await mkdir(dirname(orphan), { recursive: true });
    servers.push(await listen(orphan));
    await expect(detector().detect(vmiOn("node01", orphanUID))).rejects.toThrow(
      `no process of the pod owning ${orphan} was found`,
    );
  });
});

describe("processSeesSocket on the real /proc", () => {
  let base: string;
  let server: Server;
  let socketPath: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "kvts-isolation-self-"));
    socketPath = join(base, "launcher-sock");
    server = await listen(socketPath);
  });

  afterAll(async () => {
    server.close();
    await rm(base, { recursive: true, force: true });
  });

  it("finds this process's own socket through /proc/self/root", async () => {
    expect(await processSeesSocket("/proc", "self", socketPath, await stat(socketPath))).toBe(true);
    expect(await processSeesSocket("/proc", process.pid, socketPath, await stat(socketPath))).toBe(true);
  });

  it("does not take another file, or a path that is not there, for the socket", async () => {
    expect(await processSeesSocket("/proc", "self", socketPath, await stat(base))).toBe(false);
    expect(await processSeesSocket("/proc", "self", `${socketPath}.gone`, await stat(socketPath))).toBe(
      false,
    );
  });
});
