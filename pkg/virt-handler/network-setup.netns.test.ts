import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { silentLogger } from "../controller/index.js";
import { socketDirectoryOnHost, socketFilePathOnHost } from "../handler-launcher-com/sockets.js";
import { dhcpInterfaceCache } from "../network/cache/dhcpconfig.js";
import { podInterfaceCache } from "../network/cache/podinterface.js";
import { NsenterExec, runCommand } from "../network/driver/netns-exec.js";
import { NetConf } from "../network/setup/netconf.js";
import { netnsTestsUnavailableReason } from "../network/testing/netns-lab.js";
import { LineQueue } from "../network/testing/netns-lab.js";
import { RecordingExec, linkDetails, snapshotNetns } from "../network/testing/pod-fixture.js";
import { SocketIsolationDetector } from "./isolation/detector.js";
import { PodNetworkSetup } from "./network-setup.js";
import { runnable } from "../testutils/requirement.js";

// The real isolation detector and pod network setup against a stand-in launcher pod: a process in a
// fresh network and mount namespace (as the local node runs a pod), with a tmpfs on /run (so the image's
// /var/run -> /run symlink is followed inside the pod), the pod's `sockets` and `private` emptyDirs
// bind-mounted where the launcher has them, and a veth to a throwaway "node" namespace. Addresses are in
// 10.251.7.0/24, names start with kvn; nothing is created in this process's own namespaces.

const canRun = runnable("the virt-handler pod network namespace tests", await netnsTestsUnavailableReason());

const POD_UID = "5e1d7c3a";
const VMI_UID = "9a4f2b10-0000-4000-8000-0000000000aa";
const NODE_IP = "10.251.7.1";
const POD_IP = "10.251.7.2";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default", uid: VMI_UID },
  spec: {
    domain: { devices: { interfaces: [{ name: "default", masquerade: {} }] } },
    networks: [{ name: "default", pod: {} }],
  },
  status: { phase: "Scheduled", nodeName: "node01", activePods: { [POD_UID]: "node01" }, runtimeUser: 107 },
};

const POD_SCRIPT = `set -e
mount -t tmpfs kvn-run /run
mkdir -p /run/kubevirt/sockets /run/kubevirt-private
mount --bind "$SOCKETS_DIR" /run/kubevirt/sockets
mount --bind "$PRIVATE_DIR" /run/kubevirt-private
ip link set lo up
echo ready
exec sleep 600
`;

describe.runIf(canRun)("virt-handler pod network setup in a launcher-like pod", () => {
  const id = randomBytes(3).toString("hex");
  const nodeNetns = `kvn-node${id}`;
  let base: string;
  let podsDir: string;
  let podPrivateDir: string;
  let handlerPrivateDir: string;
  let launcherSocket: Server;
  let pod: ChildProcess;
  let podPid: number;

  beforeAll(async () => {
    base = await mkdtemp("/tmp/kvn-");
    podsDir = join(base, "p");
    handlerPrivateDir = join(base, "handler-private");
    podPrivateDir = join(podsDir, POD_UID, "volumes/kubernetes.io~empty-dir/private");
    await mkdir(socketDirectoryOnHost(POD_UID, podsDir), { recursive: true });
    await mkdir(podPrivateDir, { recursive: true });
    launcherSocket = createServer();
    await new Promise<void>((resolve) =>
      launcherSocket.listen(socketFilePathOnHost(POD_UID, podsDir), resolve),
    );

    pod = spawn("unshare", ["--net", "--mount", "--propagation", "private", "--", "sh", "-c", POD_SCRIPT], {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        SOCKETS_DIR: socketDirectoryOnHost(POD_UID, podsDir),
        PRIVATE_DIR: podPrivateDir,
      },
    });
    expect(await new LineQueue(pod).next()).toBe("ready");
    podPid = pod.pid as number;

    // The node side of the pod's veth, as CNI leaves it.
    await runCommand("ip", ["netns", "add", nodeNetns]);
    const inNode = (args: string[]) => runCommand("ip", ["-n", nodeNetns, ...args]);
    const inPod = (args: string[]) =>
      runCommand("nsenter", [`--net=/proc/${podPid}/ns/net`, "--", "ip", ...args]);
    await inNode([
      "link",
      "add",
      `kvnv${id}`,
      "type",
      "veth",
      "peer",
      "name",
      "eth0",
      "netns",
      String(podPid),
    ]);
    await inNode(["addr", "add", `${NODE_IP}/24`, "dev", `kvnv${id}`]);
    await inNode(["link", "set", `kvnv${id}`, "up"]);
    await inPod(["addr", "add", `${POD_IP}/24`, "dev", "eth0"]);
    await inPod(["link", "set", "eth0", "up"]);
    await inPod(["route", "add", "default", "via", NODE_IP]);
  }, 30_000);

  afterAll(async () => {
    if (pod?.pid !== undefined && pod.exitCode === null) process.kill(pod.pid, "SIGKILL");
    await runCommand("ip", ["netns", "del", nodeNetns]).catch(() => undefined);
    launcherSocket?.close();
    if (base) await rm(base, { recursive: true, force: true });
    const links = await runCommand("ip", ["-o", "link", "show"]);
    expect(links).not.toContain(id);
  });

  const networkSetup = (exec?: (netnsPath: string) => RecordingExec) =>
    new PodNetworkSetup(
      new SocketIsolationDetector({ host: "node01", podsDir }),
      new NetConf({ privateDir: handlerPrivateDir, logger: silentLogger, ...(exec ? { exec } : {}) }),
    );

  it("finds the pod's process by its launcher socket", async () => {
    const found = await new SocketIsolationDetector({ host: "node01", podsDir }).detect(vmi);
    expect(found).toEqual({
      pid: podPid,
      netnsPath: `/proc/${podPid}/ns/net`,
      rootFs: `/proc/${podPid}/root`,
    });
  });

  it("creates the bridge and the launcher-owned tap in the pod, and the masquerade NAT", async () => {
    await networkSetup().setup(vmi);
    const exec = new NsenterExec(`/proc/${podPid}/ns/net`);
    expect(await linkDetails(exec, "k6t-eth0")).toMatchObject({ linkinfo: { info_kind: "bridge" } });
    expect(await linkDetails(exec, "tap0")).toMatchObject({
      master: "k6t-eth0",
      linkinfo: { info_kind: "tun", info_data: { type: "tap", user: 107, group: 107 } },
    });
    expect(await exec.query("nft", ["list", "table", "ip", "nat"])).toContain("masquerade");
  }, 30_000);

  it("writes the launcher's interface cache into its private emptyDir, owned by the launcher's user", async () => {
    const cachePath = join(podPrivateDir, "vif-cache-eth0.json");
    expect(await stat(cachePath)).toMatchObject({ uid: 107, gid: 107 });
    expect(await dhcpInterfaceCache(podPrivateDir, "eth0", undefined, "/").read()).toMatchObject({
      ip: "10.0.2.2/24",
      gateway: "10.0.2.1",
      tapName: "tap0",
      bridgeName: "k6t-eth0",
    });
    expect(await podInterfaceCache(handlerPrivateDir, VMI_UID, "default").read()).toMatchObject({
      podIP: POD_IP,
      networkState: 2,
    });
  });

  it("changes nothing when a restarted handler sets the same pod up again", async () => {
    const exec = new NsenterExec(`/proc/${podPid}/ns/net`);
    const before = await snapshotNetns(exec);
    let recording: RecordingExec | undefined;
    await networkSetup((netnsPath) => (recording = new RecordingExec(new NsenterExec(netnsPath)))).setup(vmi);
    expect(recording?.changes).toEqual([]);
    expect(await snapshotNetns(exec)).toEqual(before);
  }, 30_000);
});
