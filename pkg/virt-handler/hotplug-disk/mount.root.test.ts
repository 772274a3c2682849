import { spawn, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFile, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { ensureNativeBinary } from "../../../deploy/local/node-agent/runtime/native-binary.js";
import { SocketIsolationDetector } from "../isolation/detector.js";
import { mountsAt, until } from "../testing/mounts.js";
import { nodeMountCommand } from "../node-mount-command.js";
import { HOTPLUG_DISKS_DIR, NodeHotplugVolumeMounter } from "./mount.js";
import { runnable, unlessRoot } from "../../testutils/requirement.js";

// The mounter against the real kernel: an attachment pod as the node agent runs one (a private mount
// namespace whose root is a tmpfs, the pod's hotplug-disks emptyDir at /path, a Filesystem claim at
// /fsvol, a Block claim's device node bound onto /path/blockvol/<claim uid>, the real container-disk
// binary listening on /path/hp.sock), found by that socket; its volumes handed to a launcher pod's
// hotplug-disks dir and taken back.

const root = runnable("the hotplug volume mounter as root", unlessRoot());
const HOST = "hotplug-test-node";
let base: string;
let podsDir: string;
let launcherDir: string;
let claimDir: string;
let evilClaimDir: string;
let ctrRoot: string;
let attachment: ReturnType<typeof spawn> | undefined;
const vmiUID = randomUUID();
const launcherUID = randomUUID();
const attachUID = randomUUID();
const claimUID = randomUUID();
// A loop device number: only the node is made, the device is never opened.
const BLOCK_MAJOR = 7;
const BLOCK_MINOR = 243;

function vmiWith(volumes: string[], statuses: string[] = volumes): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi", namespace: "default", uid: vmiUID },
    spec: {
      domain: { devices: {} },
      volumes: volumes.map((name) => ({
        name,
        persistentVolumeClaim: { claimName: `${name}-claim`, hotpluggable: true },
      })),
    },
    status: {
      activePods: { [launcherUID]: HOST },
      volumeStatus: statuses.map((name) => ({
        name,
        target: "",
        phase: "AttachedToNode",
        hotplugVolume: { attachPodName: "hp-volume-test", attachPodUID: attachUID },
        persistentVolumeClaimInfo: {
          claimName: `${name}-claim`,
          volumeMode: name === "blockvol" ? "Block" : "Filesystem",
        },
      })),
    },
  } as VirtualMachineInstance;
}

const mounter = () =>
  new NodeHotplugVolumeMounter({
    podsDir,
    recordDir: path.join(base, "records"),
    detector: new SocketIsolationDetector({ host: HOST, podsDir }),
    // This test's own mount namespace plays the node's.
    nodePid: process.pid,
    run: nodeMountCommand(`/proc/${process.pid}/ns/mnt`),
  });

beforeAll(async () => {
  if (!root) return;
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-hpmount-"));
  podsDir = path.join(base, "pods");
  launcherDir = path.join(podsDir, launcherUID, HOTPLUG_DISKS_DIR);
  const attachDir = path.join(podsDir, attachUID, HOTPLUG_DISKS_DIR);
  await mkdir(launcherDir, { recursive: true });
  await mkdir(attachDir, { recursive: true, mode: 0o777 });
  claimDir = path.join(base, "claims/fsvol");
  await mkdir(claimDir, { recursive: true });
  await writeFile(path.join(claimDir, "disk.img"), "a raw disk image\n");
  // A claim whose user planted disk.img -> /etc/shadow.
  evilClaimDir = path.join(base, "claims/evilvol");
  await mkdir(evilClaimDir, { recursive: true });
  await symlink("/etc/shadow", path.join(evilClaimDir, "disk.img"));
  ctrRoot = path.join(base, "ctr-root");
  await mkdir(ctrRoot);
  execFileSync("mount", ["-t", "tmpfs", "-o", "mode=0755", "tmpfs", ctrRoot]);
  execFileSync("mount", ["--make-private", ctrRoot]);
  for (const dir of ["usr/bin", "path", "fsvol", "evilvol", "etc", "dev-state"]) {
    await mkdir(path.join(ctrRoot, dir), { recursive: true });
  }
  await writeFile(path.join(ctrRoot, "etc/shadow"), "the attachment container's own shadow\n");
  const binary = await ensureNativeBinary(
    path.resolve(import.meta.dirname, "../../../cmd/container-disk/main.c"),
    { binDir: path.join(base, "bin") },
  );
  await copyFile(binary, path.join(ctrRoot, "usr/bin/container-disk"));
  // As the node agent gives a container a Block volume: a node of its own, bound onto the device path.
  const script = [
    'mount --bind "$1" "$2/path"',
    'mount --bind "$3" "$2/fsvol"',
    'mount --bind "$4" "$2/evilvol"',
    'mkdir -p "$2/path/blockvol"',
    'mknod "$2/dev-state/blockvol" b $6 $7',
    'touch "$2/path/blockvol/$5"',
    'mount --bind "$2/dev-state/blockvol" "$2/path/blockvol/$5"',
    'exec chroot "$2" /usr/bin/container-disk --copy-path /path/hp',
  ].join(" && ");
  attachment = spawn(
    "unshare",
    [
      "--mount",
      "--propagation",
      "private",
      "--",
      "sh",
      "-c",
      script,
      "sh",
      attachDir,
      ctrRoot,
      claimDir,
      evilClaimDir,
      claimUID,
      String(BLOCK_MAJOR),
      String(BLOCK_MINOR),
    ],
    { stdio: "inherit" },
  );
  await until("the attachment pod's socket", async () =>
    (await stat(path.join(attachDir, "hp.sock"))).isSocket() ? true : undefined,
  );
});

afterAll(async () => {
  if (!root) return;
  if (attachment?.exitCode === null && attachment.pid) process.kill(attachment.pid, "SIGKILL");
  for (const point of [path.join(launcherDir, "fsvol.img"), ctrRoot]) {
    while ((await mountsAt(point)) > 0) execFileSync("umount", [point]);
  }
  await rm(base, { recursive: true, force: true });
});

describe.runIf(root)("the hotplug volume mounter as root", () => {
  it("bind-mounts a Filesystem claim's disk.img onto <volume>.img, owned by qemu", async () => {
    const vmi = vmiWith(["fsvol"]);
    expect(await mounter().isMounted(vmi, "fsvol")).toBe(false);
    await mounter().mount(vmi);
    const target = path.join(launcherDir, "fsvol.img");
    expect(await readFile(target, "utf8")).toBe("a raw disk image\n");
    expect((await stat(target)).uid).toBe(107);
    expect(await mountsAt(target)).toBe(1);
    expect(await mounter().isMounted(vmi, "fsvol")).toBe(true);
    await mounter().mount(vmi); // idempotent
    expect(await mountsAt(target)).toBe(1);
  });

  it("makes a Block claim's device node <volume> with the source's major:minor", async () => {
    const vmi = vmiWith(["fsvol", "blockvol"]);
    await mounter().mount(vmi);
    const node = await lstat(path.join(launcherDir, "blockvol"));
    expect(node.isBlockDevice()).toBe(true);
    expect(
      execFileSync("stat", ["-c", "%Hr:%Lr", path.join(launcherDir, "blockvol")])
        .toString()
        .trim(),
    ).toBe(`${BLOCK_MAJOR}:${BLOCK_MINOR}`);
    expect(node.uid).toBe(107);
    expect(await mounter().isMounted(vmi, "blockvol")).toBe(true);
    const record = JSON.parse(await readFile(path.join(base, "records", vmiUID), "utf8")) as unknown;
    expect(record).toEqual({
      mountTargetEntries: [
        { targetFile: path.join(launcherDir, "fsvol.img") },
        { targetFile: path.join(launcherDir, "blockvol") },
      ],
    });
  });

  it("refuses a disk.img that links out of the claim, and mounts nothing", async () => {
    const vmi = vmiWith(["evilvol"]);
    await expect(mounter().mount(vmi)).rejects.toThrow(/evilvol/);
    expect(await mountsAt(path.join(launcherDir, "evilvol.img"))).toBe(0);
    expect(await mounter().isMounted(vmi, "evilvol")).toBe(false);
    // The target stays the empty file made to mount onto: nothing of either shadow reached it.
    expect(await readFile(path.join(launcherDir, "evilvol.img"), "utf8")).toBe("");
  });

  it("takes back the volumes that left the spec, keeps the others", async () => {
    await mounter().unmount(vmiWith(["fsvol"], ["fsvol", "blockvol"]));
    await expect(lstat(path.join(launcherDir, "blockvol"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await mountsAt(path.join(launcherDir, "fsvol.img"))).toBe(1);
    await mounter().unmount(vmiWith([], ["fsvol"]));
    expect(await mountsAt(path.join(launcherDir, "fsvol.img"))).toBe(0);
    await expect(lstat(path.join(launcherDir, "fsvol.img"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(stat(path.join(base, "records", vmiUID))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("unmountAll takes back everything recorded, best effort", async () => {
    const vmi = vmiWith(["fsvol", "blockvol"]);
    await mounter().mount(vmi);
    await mounter().unmountAll(vmi);
    expect(await mountsAt(path.join(launcherDir, "fsvol.img"))).toBe(0);
    await expect(lstat(path.join(launcherDir, "blockvol"))).rejects.toMatchObject({ code: "ENOENT" });
    await mounter().unmountAll(vmi); // nothing recorded: nothing to do
  });
});
