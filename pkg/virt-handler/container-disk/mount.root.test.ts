import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { ensureNativeBinary } from "../../../deploy/local/node-agent/runtime/native-binary.js";
import { SocketIsolationDetector } from "../isolation/detector.js";
import { mountsAt, until } from "../testing/mounts.js";
import { nodeMountCommand } from "../node-mount-command.js";
import { NodeContainerDiskMounter } from "./mount.js";
import { runnable, unlessRoot } from "../../testutils/requirement.js";

// The mounter against the real kernel: a disk container as the node agent runs one (its root a mount the
// node sees, the pod's container-disks dir bound into a private mount namespace, the real container-disk
// binary chrooted there), found by its socket, its image bind-mounted read-only onto disk_0.img.

const root = runnable("the containerDisk mounter as root", unlessRoot());
const HOST = "mounter-test-node";
const EPHEMERAL = "/var/run/kubevirt-ephemeral-disks";
let base: string;
let podsDir: string;
let diskDir: string;
let ctrRoot: string;
let diskContainer: ReturnType<typeof spawn> | undefined;
const vmiUID = randomUUID();
const podUID = randomUUID();

const vmi: VirtualMachineInstance = {
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachineInstance",
  metadata: { name: "testvmi", namespace: "default", uid: vmiUID },
  spec: {
    domain: { devices: {} },
    volumes: [
      { name: "cloudinitdisk", cloudInitNoCloud: { userData: "#cloud-config" } },
      { name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } },
    ],
  },
  status: { activePods: { [podUID]: HOST } },
} as VirtualMachineInstance;

const mounter = () =>
  new NodeContainerDiskMounter({
    host: HOST,
    podsDir,
    recordDir: path.join(base, "records"),
    detector: new SocketIsolationDetector({ host: HOST, podsDir }),
    // This test's own mount namespace plays the node's (PID 1 may live in another one here).
    nodePid: process.pid,
    run: nodeMountCommand(`/proc/${process.pid}/ns/mnt`),
  });

const target = () => path.join(diskDir, "disk_1.img");

beforeAll(async () => {
  if (!root) return;
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-cdmount-"));
  podsDir = path.join(base, "pods");
  diskDir = path.join(podsDir, podUID, "volumes/kubernetes.io~empty-dir/container-disks");
  await mkdir(diskDir, { recursive: true, mode: 0o777 });
  ctrRoot = path.join(base, "ctr-root");
  await mkdir(ctrRoot);
  execFileSync("mount", ["-t", "tmpfs", "-o", "mode=0755", "tmpfs", ctrRoot]);
  execFileSync("mount", ["--make-private", ctrRoot]);
  await mkdir(path.join(ctrRoot, "disk"));
  await writeFile(path.join(ctrRoot, "disk/disk.qcow2"), "QFI\xfb a disk image\n");
  await mkdir(path.join(ctrRoot, "usr/bin"), { recursive: true });
  const binary = await ensureNativeBinary(
    path.resolve(import.meta.dirname, "../../../cmd/container-disk/main.c"),
    { binDir: path.join(base, "bin") },
  );
  await copyFile(binary, path.join(ctrRoot, "usr/bin/container-disk"));
  const dataDir = `${EPHEMERAL}/container-disk-data/${vmiUID}`;
  await mkdir(path.join(ctrRoot, dataDir), { recursive: true });
  const script = `mount --bind "$1" "$2$3" && exec chroot "$2" /usr/bin/container-disk --copy-path "$3/disk_1"`;
  diskContainer = spawn(
    "unshare",
    ["--mount", "--propagation", "private", "--", "sh", "-c", script, "sh", diskDir, ctrRoot, dataDir],
    { stdio: "inherit" },
  );
  await until("the disk container's socket", async () =>
    (await stat(path.join(diskDir, "disk_1.sock"))).isSocket() ? true : undefined,
  );
});

afterAll(async () => {
  if (!root) return;
  if (diskContainer?.exitCode === null && diskContainer.pid) process.kill(diskContainer.pid, "SIGKILL");
  for (const point of [target(), ctrRoot]) {
    while ((await mountsAt(point)) > 0) execFileSync("umount", [point]);
  }
  await rm(base, { recursive: true, force: true });
});

describe.runIf(root)("the containerDisk mounter as root", () => {
  it("bind-mounts the image found in the disk container's root onto disk_<index>.img, read-only", async () => {
    await mounter().mountAndVerify(vmi);
    expect(await readFile(target(), "utf8")).toBe("QFI\xfb a disk image\n");
    await expect(writeFile(target(), "x")).rejects.toMatchObject({ code: "EROFS" });
    expect(await mountsAt(target())).toBe(1);
  });

  it("is idempotent, also for a restarted handler (the record survives)", async () => {
    await mounter().mountAndVerify(vmi);
    await mounter().mountAndVerify(vmi);
    expect(await mountsAt(target())).toBe(1);
    const record = JSON.parse(await readFile(path.join(base, "records", vmiUID), "utf8")) as unknown;
    expect(record).toEqual({
      mountTargetEntries: [{ targetFile: target(), socketFile: path.join(diskDir, "disk_1.sock") }],
    });
  });

  it("unmounts what the record names and forgets it", async () => {
    await mounter().unmount(vmi);
    expect(await mountsAt(target())).toBe(0);
    await expect(stat(path.join(base, "records", vmiUID))).rejects.toMatchObject({ code: "ENOENT" });
    await mounter().unmount(vmi); // nothing recorded: nothing to do
  });

  it("container-disk removes its socket and exits 0 on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => diskContainer?.once("exit", resolve));
    diskContainer?.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(stat(path.join(diskDir, "disk_1.sock"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
