// virt-handler against the real apiserver and the real node agent: the heartbeat labels and annotates the
// Node, the device plugins registered with the node agent's kubelet socket show up in Node capacity, and
// a VMI scheduled to the node is synced to a stand-in launcher on a real socket and reported Running.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeStateDir } from "../../deploy/local/cluster/nodes.js";
import { topology } from "../../deploy/local/cluster/topology.js";
import { nodeRootOf } from "../../deploy/local/node-agent/runtime-adapter.js";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { KubeClient, coreGVR, silentLogger, type KubeObject } from "../../pkg/controller/index.js";
import { socketDirectoryOnHost, socketFilePathOnHost } from "../../pkg/handler-launcher-com/sockets.js";
import { virtualMachineInstancesGVR } from "../../pkg/controller/resources.js";
import { VirtHandlerApp } from "../../pkg/virt-handler/application.js";
import { FakeLauncherServer } from "../../pkg/virt-handler/testing/fake-launcher.js";
import { cluster, ensureNodes, eventually, kubeConfig, kubectl, kubectlOk } from "./harness.js";

const NODE = topology.nodes[0]?.name ?? "node01";
const NAMESPACE = `virt-handler-it-${randomBytes(3).toString("hex")}`;
const LAUNCHER_POD_UID = "5e1f0c7a-0000-4000-8000-00000000beef";
const VMI_CRD = path.join(
  cluster.repoRoot,
  "manifests/generated/crds/virtualmachineinstances.kubevirt.io.yaml",
);
const TOUCHED_LABELS = ["kubevirt.io/schedulable", "cpumanager", "kubevirt.io/cpumanager"];

interface NodeJson extends KubeObject {
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

describe("virt-handler on a real node", () => {
  let client: KubeClient;
  let before: NodeJson;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let podsDir: string | undefined;
  const launcher = new FakeLauncherServer();

  const getNode = () => client.resource<NodeJson>(coreGVR.nodes).get("", NODE);

  beforeAll(async () => {
    await ensureNodes();
    client = KubeClient.fromKubeConfig(await kubeConfig());
    before = await getNode();
    // The VMI CRD (server-side apply: it is too large for client-side apply's annotation).
    await kubectlOk(["apply", "--server-side", "--force-conflicts", "-f", VMI_CRD]);
    // Right after apply the CRD may have no conditions yet, which kubectl wait reports as an error.
    await eventually(
      () =>
        kubectlOk([
          "wait",
          "--for",
          "condition=Established",
          "--timeout=10s",
          "crd/virtualmachineinstances.kubevirt.io",
        ]),
      60_000,
    );
    await kubectlOk(["create", "namespace", NAMESPACE]);
    // A short dir: unix socket paths have at most 107 bytes.
    podsDir = await mkdtemp(path.join(tmpdir(), "h"));
    await mkdir(socketDirectoryOnHost(LAUNCHER_POD_UID, podsDir), { recursive: true });
    await launcher.start(socketFilePathOnHost(LAUNCHER_POD_UID, podsDir));
    const app = new VirtHandlerApp({
      client,
      host: NODE,
      kubeletRoot: path.join(
        nodeRootOf(nodeStateDir(cluster, { name: NODE, podCIDR: "" })),
        "var/lib/kubelet",
      ),
      maxDevices: 5,
      // The node's /dev is the host's on the local cluster.
      deviceRoot: "/",
      heartbeatIntervalMs: 1_000,
      podsDir,
      // What the init container leaves on a TCG node (libvirt 9.0's answer on this kind of machine).
      nodeLabellerDir: path.resolve(import.meta.dirname, "../../pkg/virt-handler/node-labeller/testdata/tcg"),
      logger: silentLogger,
    });
    running = app.run(stop.signal);
  }, 600_000);

  afterAll(async () => {
    stop.abort();
    await running;
    await launcher.stopServer();
    if (podsDir) await rm(podsDir, { recursive: true, force: true });
    await kubectl(["delete", "namespace", NAMESPACE, "--wait=false", "--ignore-not-found"]);
    // Leave the node's kubevirt labels as other tests found them.
    const labels = Object.fromEntries(
      TOUCHED_LABELS.map((key) => [key, before.metadata?.labels?.[key] ?? null]),
    );
    const heartbeat = before.metadata?.annotations?.["kubevirt.io/heartbeat"] ?? null;
    await client.resource(coreGVR.nodes).patch("", NODE, "merge", {
      metadata: { labels, annotations: { "kubevirt.io/heartbeat": heartbeat } },
    });
  });

  it("labels the node schedulable with its machine types, CPU models, host model and a fresh heartbeat", async () => {
    const startedAt = Date.now();
    const node = await eventually(async () => {
      const current = await getNode();
      const beat = Date.parse(current.metadata?.annotations?.["kubevirt.io/heartbeat"] ?? "");
      if (current.metadata?.labels?.["kubevirt.io/schedulable"] !== "true" || !(beat >= startedAt - 1_000))
        throw new Error(`no fresh schedulable heartbeat yet: ${JSON.stringify(current.metadata?.labels)}`);
      return current;
    }, 30_000);
    expect(node.metadata?.labels).toMatchObject({
      "machine-type.node.kubevirt.io/q35": "true",
      "kubevirt.io/cpumanager": "false",
      "host-model-cpu.node.kubevirt.io/EPYC": "true",
      "cpu-vendor.node.kubevirt.io/AMD": "true",
      "cpu-model.node.kubevirt.io/Penryn": "true",
      "cpu-feature.node.kubevirt.io/apic": "true",
    });
    // Upstream's default obsolete models stay unlabelled.
    expect(node.metadata?.labels?.["cpu-model.node.kubevirt.io/qemu64"]).toBeUndefined();
    expect(node.metadata?.annotations?.["kubevirt.io/heartbeat"]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
  });

  it("advertises devices.kubevirt.io/tun through the node agent's device plugin socket", async () => {
    const node = await eventually(async () => {
      const current = await getNode();
      if (current.status?.capacity?.["devices.kubevirt.io/tun"] !== "5")
        throw new Error(`tun not in capacity yet: ${JSON.stringify(current.status?.capacity)}`);
      return current;
    }, 30_000);
    expect(node.status?.allocatable?.["devices.kubevirt.io/tun"]).toBe("5");
  });

  it("syncs a VMI scheduled to the node to its launcher, reports it Running, and shuts it down on deletion", async () => {
    const vmis = client.resource<VirtualMachineInstance>(virtualMachineInstancesGVR);
    await vmis.create({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstance",
      metadata: { name: "testvmi", namespace: NAMESPACE, labels: { "kubevirt.io/nodeName": NODE } },
      spec: { domain: { devices: {} } },
    });
    // What virt-controller writes once the launcher pod is scheduled.
    await vmis.patch(NAMESPACE, "testvmi", "merge", {
      status: { phase: "Scheduled", nodeName: NODE, activePods: { [LAUNCHER_POD_UID]: NODE } },
    });
    const running = await eventually(async () => {
      const vmi = await vmis.get(NAMESPACE, "testvmi");
      if (vmi.status?.phase !== "Running") throw new Error(`phase ${vmi.status?.phase}`);
      return vmi;
    }, 30_000);
    expect(launcher.calls[0]).toBe(`SyncVirtualMachine ${NAMESPACE}/testvmi`);
    expect(running.status?.interfaces).toEqual([
      // Once the fake launcher's report of the agent's view (same MAC) is merged in, both sources are named.
      expect.objectContaining({
        name: "default",
        ipAddress: "10.0.2.2",
        infoSource: expect.stringMatching(/^domain(, guest-agent)?$/),
      }),
    ]);

    await vmis.delete(NAMESPACE, "testvmi");
    await eventually(async () => {
      if (!launcher.calls.includes("ShutdownVirtualMachine"))
        throw new Error(`calls: ${launcher.calls.join(", ")}`);
    }, 30_000);
  });

  it("labels the node unschedulable when it stops", async () => {
    stop.abort();
    await running;
    expect((await getNode()).metadata?.labels?.["kubevirt.io/schedulable"]).toBe("false");
  });
});
