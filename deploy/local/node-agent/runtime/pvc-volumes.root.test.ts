import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import {
  copyFile,
  mkdir,
  mkdtemp,
  open,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerRequest, PodRef, VolumeRequest } from "../pod-runtime.js";
import type { ClusterNetworkConfig } from "./cluster-network-config.js";
import { readMountInfo } from "./mountinfo.js";
import { NodeRuntime } from "./node-runtime.js";
import { rootTestsUnavailable } from "./root-test-support.js";
import { runnable } from "../../../../pkg/testutils/requirement.js";

// PVC-backed volumes against the real kernel, as the launcher uses them: a local directory PV bind-mounted
// at the mountPath and given to fsGroup 107, and a local Block PV (a loop device over a sparse file) as a
// device node at the devicePath; a process running as uid 107 writes both. Removing the pod leaves no
// mount of it behind, and the data stays where the PVs keep it. A hostNetwork pod on a node of its own.

const LOSETUP = "/usr/sbin/losetup";
const canRun = runnable(
  "the PVC volume root tests",
  rootTestsUnavailable() ?? (existsSync(LOSETUP) ? undefined : `${LOSETUP} is missing (util-linux)`),
);
const ID = randomBytes(2).toString("hex");
const CLUSTER: ClusterNetworkConfig = {
  tableName: `kvts_pvc_${ID}`,
  interfacePrefix: `kp${ID}-`,
  podRanges: ["10.244.212.0/24"],
  clusterRanges: ["10.244.212.0/24"],
  blackholeRanges: ["10.244.212.0/24"],
  serviceRanges: ["10.244.213.0/24"],
};
const QEMU = 107;
const pod: PodRef = { uid: randomUUID(), namespace: "vms", name: "virt-launcher-vm" };
let base: string;
let nodeDir: string;
let node: NodeRuntime;
/** The loop device this test attached, detached again by this name only. */
let loopDevice: string | undefined;

const volumes = (device: string): VolumeRequest[] => [
  {
    name: "data",
    source: {
      kind: "persistentVolume",
      pvName: "local-dir",
      plugin: "local",
      path: "/mnt/disks/vol1",
      volumeMode: "Filesystem",
      readOnly: false,
      fsGroup: { gid: QEMU, changePolicy: "Always" },
    },
  },
  {
    name: "data-ro",
    source: {
      kind: "persistentVolume",
      pvName: "local-dir-ro",
      plugin: "local",
      path: "/mnt/disks/vol1",
      volumeMode: "Filesystem",
      readOnly: true,
    },
  },
  {
    name: "bootdisk",
    source: {
      kind: "persistentVolume",
      pvName: "local-block",
      plugin: "local",
      path: device,
      volumeMode: "Block",
      readOnly: false,
    },
  },
];

function request(overrides: Partial<ContainerRequest>): ContainerRequest {
  return {
    pod,
    name: "compute",
    attempt: 0,
    image: { image: "kubevirt-ts/test-guest:latest", imageID: "" },
    command: ["sleep", "600"],
    env: {},
    mounts: [
      { volume: "data", mountPath: "/var/run/kubevirt-private/vmi-disks/data", readOnly: false },
      { volume: "data-ro", mountPath: "/ro", readOnly: false },
    ],
    volumeDevices: [{ volume: "bootdisk", devicePath: "/dev/bootdisk" }],
    hostMounts: [],
    devices: [],
    privileged: false,
    runAsUser: QEMU,
    runAsGroup: QEMU,
    hostNetwork: true,
    hostPID: false,
    ...overrides,
  };
}

beforeAll(async () => {
  if (!canRun) return;
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-pvc-"));
  nodeDir = path.join(base, "node");
  const cacheDir = path.join(base, "cache");
  const guest = path.join(cacheDir, "images/test-guest");
  await mkdir(path.join(guest, "bin"), { recursive: true });
  await copyFile("/bin/busybox", path.join(guest, "bin/busybox"));
  for (const applet of ["sh", "cat", "sleep", "stat", "dd", "id", "head"])
    await symlink("busybox", path.join(guest, "bin", applet));
  const backing = path.join(base, "block.img");
  await writeFile(backing, "");
  await truncate(backing, 16 * 2 ** 20); // sparse
  loopDevice = execFileSync(LOSETUP, ["--find", "--show", backing], { encoding: "utf8" }).trim();
  node = await NodeRuntime.create({
    nodeName: `pvc${ID}`,
    stateDir: nodeDir,
    podCidr: "10.244.212.0/24",
    cluster: CLUSTER,
    ensureClusterNetwork: false,
    images: { cacheDir, checkoutDir: path.join(base, "checkout") },
  });
  // The local PV's directory on the node, as the cluster bring-up prepares it: root's, with a disk image.
  const pvDir = path.join(node.layout.root, "mnt/disks/vol1");
  await mkdir(pvDir, { recursive: true, mode: 0o755 });
  await writeFile(path.join(pvDir, "disk.img"), "from the node\n", { mode: 0o644 });
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  await node?.removePod(pod).catch(() => undefined);
  await node?.teardownNode().catch(() => undefined);
  if (loopDevice) execFileSync(LOSETUP, ["--detach", loopDevice]);
  await rm(base, { recursive: true, force: true });
});

describe.runIf(canRun)("PVC volumes as root", () => {
  let containerId: string;
  const inPod = async (script: string) => {
    const result = await node.exec(containerId, ["sh", "-c", script], 5_000);
    expect(result, script).toMatchObject({ exitCode: 0 });
    return result.output;
  };

  it("bind-mounts the directory PV and maps the block PV for a non-root container", async () => {
    const device = loopDevice as string;
    await node.runSandbox({ ...pod, hostNetwork: true, dns: { servers: [], searches: [], options: [] } });
    await node.setUpVolumes(pod, volumes(device));
    const image = await node.pullImage("kubevirt-ts/test-guest:latest");
    containerId = (await node.startContainer(request({ image }))).id;

    expect(await inPod("id -u; id -g")).toBe(`${QEMU}\n${QEMU}\n`);
    const disk = "/var/run/kubevirt-private/vmi-disks/data/disk.img";
    expect(await inPod(`cat ${disk}`)).toBe("from the node\n");
    await inPod(`echo 'from the pod' >> ${disk}`);
    // a read-only claim stays read-only although the volumeMount does not ask for it
    expect((await node.exec(containerId, ["sh", "-c", "echo x >> /ro/disk.img"], 5_000)).exitCode).not.toBe(
      0,
    );
    expect(await inPod("cat /ro/disk.img")).toBe("from the node\nfrom the pod\n");

    // major:minor as the host's stat reports them for the loop device itself
    const hostNumbers = execFileSync("stat", ["-c", "%t:%T", device], { encoding: "utf8" }).trim();
    expect(await inPod("stat -c '%F %t:%T %u:%g' /dev/bootdisk")).toBe(
      `block special file ${hostNumbers} ${QEMU}:${QEMU}\n`,
    );
    await inPod("echo bootsector | dd of=/dev/bootdisk conv=notrunc 2>/dev/null");
    const handle = await open(device, "r");
    const { buffer } = await handle.read(Buffer.alloc(11), 0, 11, 0);
    await handle.close();
    expect(buffer.toString()).toBe("bootsector\n");
  }, 60_000);

  it("gives the directory PV to fsGroup as kubelet's local plugin does", async () => {
    const pvDir = path.join(node.layout.root, "mnt/disks/vol1");
    const [root, image] = await Promise.all([stat(pvDir), stat(path.join(pvDir, "disk.img"))]);
    expect([root.gid, root.mode & 0o7777]).toEqual([QEMU, 0o2775]);
    expect([image.gid, image.mode & 0o777]).toEqual([QEMU, 0o664]);
  });

  it("leaves no mount of the pod behind, and the data where the PVs keep it", async () => {
    await node.stopContainer(containerId, 1_000);
    await node.removePod(pod);
    const left = (await readMountInfo()).filter((m) => m.mountPoint.includes(pod.uid));
    expect(left).toEqual([]);
    const pvDir = path.join(node.layout.root, "mnt/disks/vol1");
    expect(await readFile(path.join(pvDir, "disk.img"), "utf8")).toBe("from the node\nfrom the pod\n");
    expect(existsSync(node.layout.podDir(pod.uid))).toBe(false);
  }, 60_000);
});
