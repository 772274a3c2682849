import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { socketDirectoryOnHost } from "../handler-launcher-com/sockets.js";
import {
  LauncherClients,
  LauncherSocketWatch,
  activePodUID,
  dialLauncher,
  safeSocketPath,
  type LauncherCommands,
} from "./launcher-clients.js";

const UID = "0b5a3c1e-1111-2222-3333-444455556666";

const vmiOn = (pods: Record<string, string>): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default" },
  spec: { domain: { devices: {} } },
  status: { activePods: pods },
});

describe("launcher sockets", () => {
  let dir: string;
  let podsDir: string;
  let server: net.Server | undefined;

  beforeEach(async () => {
    // Short: a unix socket path has at most 107 bytes, and the pod's socket path is long already.
    dir = await mkdtemp(path.join(tmpdir(), "l"));
    podsDir = path.join(dir, "p");
    await mkdir(socketDirectoryOnHost(UID, podsDir), { recursive: true });
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const listen = (socketPath: string) =>
    new Promise<void>((resolve) => {
      server = net.createServer().listen(socketPath, () => resolve());
    });

  it("picks the launcher pod that runs on this node", async () => {
    expect(await activePodUID(vmiOn({ "uid-a": "node02", [UID]: "node01" }), "node01", podsDir)).toBe(UID);
    expect(await activePodUID(vmiOn({ "uid-a": "node02" }), "node01", podsDir)).toBeUndefined();
  });

  it("of several pods on this node (a failed migration's target, the current one), picks the one with a socket", async () => {
    const finished = "0b5a3c1e-0000-2222-3333-444455556666";
    await listen(path.join(socketDirectoryOnHost(UID, podsDir), "launcher-sock"));
    const vmi = vmiOn({ [finished]: "node01", "uid-a": "node02", [UID]: "node01" });
    expect(await activePodUID(vmi, "node01", podsDir)).toBe(UID);
  });

  it("accepts the launcher's socket in the pod's sockets emptyDir", async () => {
    const socketPath = path.join(socketDirectoryOnHost(UID, podsDir), "launcher-sock");
    await listen(socketPath);
    expect(await safeSocketPath(podsDir, UID)).toBe(socketPath);
  });

  it("refuses a missing socket, a symlink out of the pods dir, and a UID that is a path", async () => {
    expect(await safeSocketPath(podsDir, UID)).toBeUndefined();
    const outside = path.join(dir, "elsewhere.sock");
    await listen(outside);
    await symlink(outside, path.join(socketDirectoryOnHost(UID, podsDir), "launcher-sock"));
    expect(await safeSocketPath(podsDir, UID)).toBeUndefined();
    expect(await safeSocketPath(podsDir, "../..")).toBeUndefined();
  });

  it("refuses a socket of another pod reached through a symlinked directory", async () => {
    const other = "0b5a3c1e-9999-2222-3333-444455556666";
    await mkdir(socketDirectoryOnHost(other, podsDir), { recursive: true });
    await listen(path.join(socketDirectoryOnHost(other, podsDir), "launcher-sock"));
    await rm(socketDirectoryOnHost(UID, podsDir), { recursive: true });
    await symlink(socketDirectoryOnHost(other, podsDir), socketDirectoryOnHost(UID, podsDir));
    expect(await safeSocketPath(podsDir, UID)).toBeUndefined();
    expect(await safeSocketPath(podsDir, other)).toBe(
      path.join(socketDirectoryOnHost(other, podsDir), "launcher-sock"),
    );
  });

  it("dials nothing for the metrics of a VMI without a launcher socket here", async () => {
    expect(await dialLauncher(vmiOn({ [UID]: "node02" }), "node01", podsDir)).toBeUndefined();
    expect(await dialLauncher(vmiOn({ [UID]: "node01" }), "node01", podsDir)).toBeUndefined();
  });

  it("dials once per socket and dials again after the socket was gone", async () => {
    const socketPath = path.join(socketDirectoryOnHost(UID, podsDir), "launcher-sock");
    await listen(socketPath);
    const dialed: string[] = [];
    const clients = new LauncherClients("node01", podsDir, async (p) => {
      dialed.push(p);
      return { close: () => undefined } as unknown as LauncherCommands;
    });
    const vmi = vmiOn({ [UID]: "node01" });
    expect(await clients.connector(vmi)).toBeDefined();
    expect(await clients.connector(vmi)).toBeDefined();
    expect(dialed).toEqual([socketPath]);
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    expect(await clients.connector(vmi)).toBeUndefined();
    await listen(socketPath);
    expect(await clients.connector(vmi)).toBeDefined();
    expect(dialed).toEqual([socketPath, socketPath]);
  });
});

describe("LauncherSocketWatch", () => {
  const start = Date.parse("2026-11-30T12:00:00Z");
  it.each<[string, Array<[boolean, number]>, boolean]>([
    ["a socket there at once", [[true, 0]], false],
    [
      "no socket yet, within the timeout",
      [
        [false, 0],
        [false, 180_000],
      ],
      false,
    ],
    [
      "no socket after the timeout",
      [
        [false, 0],
        [false, 180_001],
      ],
      true,
    ],
    [
      "a socket that came, then went",
      [
        [false, 0],
        [true, 5_000],
        [false, 6_000],
      ],
      true,
    ],
    [
      "a socket that was there from the first look, then went",
      [
        [true, 0],
        [false, 1_000],
      ],
      true,
    ],
  ])("%s: lost is %s", (_name, looks, expected) => {
    const watch = new LauncherSocketWatch();
    let lost = false;
    for (const [present, after] of looks) lost = watch.lost("vmi-uid", present, start + after);
    expect(lost).toBe(expected);
  });

  it("starts over for a VMI it forgot", () => {
    const watch = new LauncherSocketWatch();
    watch.lost("vmi-uid", true, start);
    watch.forget("vmi-uid");
    expect(watch.lost("vmi-uid", false, start + 1_000)).toBe(false);
  });
});
