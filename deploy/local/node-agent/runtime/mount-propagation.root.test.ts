import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerRequest, PodRef } from "../pod-runtime.js";
import type { ClusterNetworkConfig } from "./cluster-network-config.js";
import { mountsUnder, readMountInfo } from "./mountinfo.js";
import { NodeRuntime } from "./node-runtime.js";
import { rootTestsUnavailable, waitFor } from "./root-test-support.js";
import { runnable } from "../../../../pkg/testutils/requirement.js";

// mountPropagation against the real kernel: a mount the node makes below a HostToContainer volume after the
// container started shows up inside it, a None volume does not see it, and teardown leaves no mount. A
// hostNetwork pod on a node of its own (own bridge name and range, no host-wide network).

const canRun = runnable("the mountPropagation root tests", rootTestsUnavailable());
const ID = randomBytes(2).toString("hex");
const CLUSTER: ClusterNetworkConfig = {
  tableName: `kvts_mp_${ID}`,
  interfacePrefix: `km${ID}-`,
  podRanges: ["10.244.210.0/24"],
  clusterRanges: ["10.244.210.0/24"],
  blackholeRanges: ["10.244.210.0/24"],
  serviceRanges: ["10.244.211.0/24"],
};
let base: string;
let nodeDir: string;
let node: NodeRuntime;
const pod: PodRef = { uid: randomUUID(), namespace: "default", name: "propagation" };

function request(overrides: Partial<ContainerRequest>): ContainerRequest {
  return {
    pod,
    name: "c",
    attempt: 0,
    image: { image: "kubevirt-ts/test-guest:latest", imageID: "" },
    command: ["sleep", "600"],
    env: {},
    mounts: [],
    volumeDevices: [],
    hostMounts: [],
    devices: [],
    privileged: false,
    hostNetwork: true,
    hostPID: false,
    ...overrides,
  };
}

beforeAll(async () => {
  if (!canRun) return;
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-propagation-"));
  nodeDir = path.join(base, "node");
  const cacheDir = path.join(base, "cache");
  const guest = path.join(cacheDir, "images/test-guest");
  await mkdir(path.join(guest, "bin"), { recursive: true });
  await copyFile("/bin/busybox", path.join(guest, "bin/busybox"));
  for (const applet of ["sh", "cat", "sleep", "ls"])
    await symlink("busybox", path.join(guest, "bin", applet));
  node = await NodeRuntime.create({
    nodeName: `mp${ID}`,
    stateDir: nodeDir,
    podCidr: "10.244.210.0/24",
    cluster: CLUSTER,
    ensureClusterNetwork: false,
    images: { cacheDir, checkoutDir: path.join(base, "checkout") },
  });
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  await node?.teardownNode().catch(() => undefined);
  await rm(base, { recursive: true, force: true });
});

describe.runIf(canRun)("mountPropagation as root", () => {
  it("shows a later node mount in a HostToContainer volume, not in a None one", async () => {
    await node.runSandbox({ ...pod, hostNetwork: true, dns: { servers: [], searches: [], options: [] } });
    await node.setUpVolumes(pod, [
      { name: "disks", source: { kind: "emptyDir" } },
      { name: "plain", source: { kind: "emptyDir" } },
    ]);
    const image = await node.pullImage("kubevirt-ts/test-guest:latest");
    const container = await node.startContainer(
      request({
        image,
        mounts: [
          { volume: "disks", mountPath: "/disks", readOnly: false, propagation: "HostToContainer" },
          { volume: "plain", mountPath: "/plain", readOnly: false },
        ],
      }),
    );
    const volumes = path.join(
      nodeDir,
      "root/var/lib/kubelet/pods",
      pod.uid,
      "volumes/kubernetes.io~empty-dir",
    );
    for (const volume of ["disks", "plain"]) {
      const extra = path.join(volumes, volume, "late");
      await mkdir(extra);
      execFileSync("mount", ["-t", "tmpfs", "tmpfs", extra]);
      await writeFile(path.join(extra, "marker"), `mounted later on ${volume}\n`);
    }
    const look = (file: string) => node.exec(container.id, ["cat", file], 5_000);
    await waitFor("the late mount in the container", async () =>
      (await look("/disks/late/marker")).exitCode === 0 ? true : undefined,
    );
    expect((await look("/disks/late/marker")).output).toBe("mounted later on disks\n");
    expect((await look("/plain/late/marker")).exitCode).not.toBe(0);
    // Nothing the container mounts reaches the node: its root stays private.
    const before = mountsUnder(await readMountInfo(), nodeDir).length;
    await node.exec(container.id, ["sh", "-c", "mkdir -p /tmp/x && mount -t tmpfs t /tmp/x"], 5_000);
    expect(mountsUnder(await readMountInfo(), nodeDir).length).toBe(before);
    await node.stopContainer(container.id, 1_000);
  }, 60_000);

  it("tears down without leaving a mount behind", async () => {
    await node.removePod(pod);
    await node.teardownNode();
    expect(mountsUnder(await readMountInfo(), nodeDir)).toEqual([]);
  }, 60_000);
});
