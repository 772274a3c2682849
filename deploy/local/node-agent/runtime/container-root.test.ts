import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planContainerRoot } from "./container-root.js";
import type { MountStep, RootPlanInput } from "./container-root.js";
import type { MountEntry } from "./mountinfo.js";

let base: string;
let image: string;
let volume: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-rootplan-"));
  image = path.join(base, "image");
  volume = path.join(base, "volume");
  await mkdir(path.join(image, "etc"), { recursive: true });
  await mkdir(path.join(image, "bin"), { recursive: true });
  await writeFile(path.join(image, "etc/hosts"), "");
  await symlink("/etc", path.join(image, "config")); // absolute link: must stay inside the image
  await symlink("../../../../../../../../tmp", path.join(image, "climb"));
  await mkdir(volume, { recursive: true });
  await writeFile(path.join(base, "hosts-file"), "");
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function input(overrides: Partial<RootPlanInput>): RootPlanInput {
  return {
    scratchDir: "/scratch",
    rootfs: { kind: "directory", path: image },
    privileged: false,
    mounts: [],
    etcFiles: [],
    executables: [],
    devices: [],
    volumeDevices: [],
    workingDir: "/",
    ...overrides,
  };
}

function targets(steps: MountStep[], op: MountStep["op"]): string[] {
  return steps.filter((step) => step.op === op).map((step) => step.target);
}

describe("planContainerRoot", () => {
  it("overlays a tmpfs on the image so writes never reach it, mounted where the node sees it", async () => {
    const plan = await planContainerRoot(input({}));
    expect(plan.rootDir).toBe("/scratch/root");
    expect(plan.hostSteps).toEqual([
      { op: "tmpfs", target: "/scratch", options: "mode=0755" },
      { op: "private", target: "/scratch" },
      { op: "mkdir", target: "/scratch/upper" },
      { op: "mkdir", target: "/scratch/work" },
      { op: "mkdir", target: "/scratch/root" },
      {
        op: "overlay",
        target: "/scratch/root",
        lower: image,
        upper: "/scratch/upper",
        work: "/scratch/work",
      },
    ]);
  });

  it("gives an unprivileged image container /proc, a read-only /sys and a minimal /dev", async () => {
    const plan = await planContainerRoot(input({}));
    const binds = plan.steps.filter((step) => step.op === "bind");
    expect(binds.slice(0, 2)).toEqual([
      { op: "bind", source: "/proc", target: "/scratch/root/proc", readOnly: false },
      { op: "bind", source: "/sys", target: "/scratch/root/sys", readOnly: true },
    ]);
    expect(targets(plan.steps, "tmpfs")).toContain("/scratch/root/dev");
    expect(binds.map((step) => step.target)).toContain("/scratch/root/dev/null");
    expect(targets(plan.steps, "touch")).toContain("/scratch/root/dev/null");
    expect(targets(plan.steps, "devpts")).toEqual(["/scratch/root/dev/pts"]);
  });

  it("gives a privileged container the host's /dev", async () => {
    const plan = await planContainerRoot(input({ privileged: true }));
    expect(plan.steps).toContainEqual({
      op: "bind",
      source: "/dev",
      target: "/scratch/root/dev",
      readOnly: false,
    });
    expect(targets(plan.steps, "devpts")).toEqual([]);
  });

  it("binds a block volume's device node into every container, privileged or not", async () => {
    const device = { hostPath: "/state/devices/volumes/loop7-7-7", containerPath: "/dev/bootdisk" };
    const plan = await planContainerRoot(input({ volumeDevices: [device] }));
    expect(plan.steps).toContainEqual({
      op: "bind",
      source: device.hostPath,
      target: "/scratch/root/dev/bootdisk",
      readOnly: false,
    });
    expect(targets(plan.steps, "touch")).toContain("/scratch/root/dev/bootdisk");
    const elsewhere = { ...device, containerPath: "/disks/boot" };
    const privileged = await planContainerRoot(input({ privileged: true, volumeDevices: [elsewhere] }));
    expect(targets(privileged.steps, "bind")).toContain("/scratch/root/disks/boot");
    // never a mount point in the node's own /dev
    await expect(planContainerRoot(input({ privileged: true, volumeDevices: [device] }))).rejects.toThrow(
      "shares with the node",
    );
  });

  it("binds a device whose path lies in a mounted volume after that volume, as runc does", async () => {
    // KubeVirt's hotplug attachment pod: its claim's device under the emptyDir it shares with the node.
    const device = { hostPath: "/state/devices/volumes/loop3-7-3", containerPath: "/path/hpvol/claim-uid" };
    const plan = await planContainerRoot(
      input({
        mounts: [{ source: volume, destination: "/path", readOnly: false, kind: "directory" }],
        volumeDevices: [device],
      }),
    );
    expect(targets(plan.steps, "bind").filter((target) => target.startsWith("/scratch/root/path"))).toEqual([
      "/scratch/root/path",
      "/scratch/root/path/hpvol/claim-uid",
    ]);
  });

  it("resolves mount destinations inside the image, whatever its symlinks say", async () => {
    const plan = await planContainerRoot(
      input({
        mounts: [
          { source: volume, destination: "/config/app", readOnly: true, kind: "directory" },
          { source: volume, destination: "/climb/escape", readOnly: false, kind: "directory" },
        ],
      }),
    );
    expect(plan.steps).toContainEqual({ op: "mkdir", target: "/scratch/root/etc/app" });
    expect(plan.steps).toContainEqual({
      op: "bind",
      source: volume,
      target: "/scratch/root/etc/app",
      readOnly: true,
    });
    expect(plan.steps).toContainEqual({
      op: "bind",
      source: volume,
      target: "/scratch/root/tmp/escape",
      readOnly: false,
    });
  });

  it("mounts parents before children and creates file mount points as files", async () => {
    const plan = await planContainerRoot(
      input({
        mounts: [
          { source: volume, destination: "/data/inner", readOnly: false, kind: "directory" },
          { source: volume, destination: "/data", readOnly: false, kind: "directory" },
          { source: path.join(base, "hosts-file"), destination: "/data/file", readOnly: false, kind: "file" },
        ],
      }),
    );
    const volumeTargets = plan.steps
      .filter((step) => step.op === "bind" && step.target.startsWith("/scratch/root/data"))
      .map((step) => step.target);
    expect(volumeTargets).toEqual([
      "/scratch/root/data",
      "/scratch/root/data/inner",
      "/scratch/root/data/file",
    ]);
    expect(targets(plan.steps, "touch")).toContain("/scratch/root/data/file");
  });

  it("binds etc files over the image's and writes executables into the writable layer", async () => {
    const plan = await planContainerRoot(
      input({
        etcFiles: [{ destination: "/etc/hosts", source: path.join(base, "hosts-file") }],
        executables: [{ path: "/usr/bin/tool", content: "#!/bin/sh\n" }],
        workingDir: "/work/dir",
      }),
    );
    expect(targets(plan.steps, "touch")).not.toContain("/scratch/root/etc/hosts"); // already in the image
    expect(plan.steps).toContainEqual({ op: "mkdir", target: "/scratch/root/usr/bin" });
    expect(plan.steps).toContainEqual({
      op: "write",
      target: "/scratch/root/usr/bin/tool",
      content: "#!/bin/sh\n",
      mode: 0o755,
    });
    expect(plan.workingDir).toBe("/work/dir");
    expect(plan.steps[plan.steps.length - 1]).toEqual({ op: "mkdir", target: "/scratch/root/work/dir" });
  });

  it("says how each bind propagates only when some volume propagates", async () => {
    const plain = await planContainerRoot(
      input({ mounts: [{ source: volume, destination: "/data", readOnly: false, kind: "directory" }] }),
    );
    expect(plain.propagates).toBe(false);
    expect(targets(plain.steps, "propagation")).toEqual([]);
    const plan = await planContainerRoot(
      input({
        mounts: [
          { source: volume, destination: "/data", readOnly: false, kind: "directory" },
          {
            source: volume,
            destination: "/disks",
            readOnly: false,
            kind: "directory",
            propagation: "HostToContainer",
          },
          {
            source: volume,
            destination: "/pods",
            readOnly: false,
            kind: "directory",
            propagation: "Bidirectional",
          },
        ],
      }),
    );
    expect(plan.propagates).toBe(true);
    const propagation = (target: string) =>
      plan.steps.find((step) => step.op === "propagation" && step.target === target);
    expect(propagation("/scratch/root/proc")).toMatchObject({ propagation: "None" });
    expect(propagation("/scratch/root/data")).toMatchObject({ propagation: "None" });
    expect(propagation("/scratch/root/disks")).toMatchObject({ propagation: "HostToContainer" });
    expect(propagation("/scratch/root/pods")).toMatchObject({ propagation: "Bidirectional" });
    // Each right after its own bind, before anything is mounted below it.
    const bindAt = plan.steps.findIndex(
      (step) => step.op === "bind" && step.target === "/scratch/root/disks",
    );
    expect(plan.steps[bindAt + 1]).toEqual(propagation("/scratch/root/disks"));
  });

  it("copies compiled executables from the host", async () => {
    const plan = await planContainerRoot(
      input({ executables: [{ path: "/usr/bin/container-disk", source: "/cache/bin/container-disk-1" }] }),
    );
    expect(plan.steps).toContainEqual({
      op: "copy",
      target: "/scratch/root/usr/bin/container-disk",
      source: "/cache/bin/container-disk-1",
      mode: 0o755,
    });
  });

  it("rebuilds the host's mounts for host-rootfs containers, with a fresh /run and no netns handles", async () => {
    const hostMounts: MountEntry[] = [
      {
        id: 2,
        parentId: 1,
        root: "/",
        mountPoint: "/proc",
        fsType: "proc",
        source: "proc",
        superOptions: "rw",
      },
      {
        id: 3,
        parentId: 1,
        root: "/",
        mountPoint: "/dev",
        fsType: "devtmpfs",
        source: "dev",
        superOptions: "rw",
      },
      {
        id: 4,
        parentId: 1,
        root: "/",
        mountPoint: "/run",
        fsType: "tmpfs",
        source: "tmpfs",
        superOptions: "rw",
      },
      {
        id: 5,
        parentId: 1,
        root: "/",
        mountPoint: "/run/netns/kvts-abc",
        fsType: "nsfs",
        source: "nsfs",
        superOptions: "rw",
      },
      {
        id: 6,
        parentId: 1,
        root: "/",
        mountPoint: "/var/lib/x",
        fsType: "nsfs",
        source: "nsfs",
        superOptions: "rw",
      },
    ];
    const plan = await planContainerRoot(input({ rootfs: { kind: "host", hostMounts } }));
    expect(plan.hostSteps[5]).toMatchObject({ op: "overlay", lower: "/" });
    const binds = plan.steps.filter((step) => step.op === "bind").map((step) => step.target);
    expect(binds).toEqual(["/scratch/root/dev", "/scratch/root/proc"]);
    expect(plan.steps).toContainEqual({
      op: "tmpfs",
      target: "/scratch/root/run",
      options: "mode=0755,nosuid,nodev",
    });
    const volumePlan = await planContainerRoot(
      input({
        rootfs: { kind: "host", hostMounts },
        mounts: [{ source: volume, destination: "/var/run/kubevirt", readOnly: false, kind: "directory" }],
      }),
    );
    // /var/run is a symlink to /run on Debian hosts; the mount lands in the container's own /run.
    expect(volumePlan.steps).toContainEqual({ op: "mkdir", target: "/scratch/root/run/kubevirt" });
  });
});
