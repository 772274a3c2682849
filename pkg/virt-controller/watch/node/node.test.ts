import { afterEach, describe, expect, it } from "vitest";
import type { Pod } from "../../../api/core/v1/pod.js";
import { KubeClient } from "../../../controller/client.js";
import { coreGVR } from "../../../controller/gvr.js";
import { resourceInformer } from "../../../controller/informer.js";
import { silentLogger } from "../../../controller/log.js";
import { virtualMachineInstancesGVR, type StoredVMI } from "../../../controller/resources.js";
import { eventLog, startInformers } from "../../../controller/testing/controller-harness.js";
import { FakeApiServer, tableOf } from "../../../controller/testing/fake-apiserver.js";
import {
  aliveLauncherPods,
  isNodeUnresponsive,
  NodeController,
  recheckIntervalFor,
  vmisWithoutAlivePods,
  type Node,
} from "./node.js";

const NOW = Date.parse("2026-12-03T12:00:00Z");
const MINUTE = 60_000;
const Tables = {
  nodes: tableOf(coreGVR.nodes),
  vmis: tableOf(virtualMachineInstancesGVR),
  pods: tableOf(coreGVR.pods),
  daemonSets: "apps/daemonsets",
};

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function node(name: string, beatMs: number | undefined, schedulable = "true"): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubevirt.io/schedulable": schedulable },
      ...(beatMs === undefined ? {} : { annotations: { "kubevirt.io/heartbeat": iso(beatMs) } }),
    },
  };
}

function vmi(name: string, nodeName: string, phase = "Running"): StoredVMI {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      labels: { "kubevirt.io/nodeName": nodeName },
    },
    spec: { domain: { devices: {} } },
    status: { phase, nodeName },
  } as StoredVMI;
}

function launcher(vmiName: string, nodeName: string, status: Pod["status"] = { phase: "Running" }): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `virt-launcher-${vmiName}`,
      namespace: "default",
      labels: { "kubevirt.io": "virt-launcher" },
      ownerReferences: [
        {
          apiVersion: "kubevirt.io/v1",
          kind: "VirtualMachineInstance",
          name: vmiName,
          uid: `uid-${vmiName}`,
          controller: true,
        },
      ],
    },
    spec: { nodeName, containers: [] },
    status,
  } as Pod;
}

describe("isNodeUnresponsive", () => {
  it("reads a beat older than the timeout, or a missing node, as unresponsive", () => {
    expect(isNodeUnresponsive(node("n", NOW - 6 * MINUTE), 5 * MINUTE, NOW)).toBe(true);
    expect(isNodeUnresponsive(node("n", NOW - 4 * MINUTE), 5 * MINUTE, NOW)).toBe(false);
    expect(isNodeUnresponsive(undefined, 5 * MINUTE, NOW)).toBe(true);
  });

  it("gives a node that never beat time, and refuses a beat that is no time", () => {
    expect(isNodeUnresponsive(node("n", undefined), 5 * MINUTE, NOW)).toBe(false);
    const broken = node("n", NOW);
    broken.metadata!.annotations!["kubevirt.io/heartbeat"] = "yesterday";
    expect(() => isNodeUnresponsive(broken, 5 * MINUTE, NOW)).toThrow(/cannot parse the heartbeat of node n/);
  });
});

describe("alive launcher Pods", () => {
  it("keeps VMI-controlled Pods that are not finished and not all terminated", () => {
    const terminated = { state: { terminated: { exitCode: 0 } } };
    const running = { state: { running: {} } };
    const pods = [
      launcher("a", "n"),
      launcher("b", "n", { phase: "Failed" }),
      launcher("c", "n", { phase: "Running", containerStatuses: [terminated, terminated] as never }),
      launcher("d", "n", { phase: "Running", containerStatuses: [terminated, running] as never }),
      { ...launcher("e", "n"), metadata: { name: "other", namespace: "default" } } as Pod,
    ];
    expect(aliveLauncherPods(pods).map((pod) => pod.metadata?.name)).toEqual([
      "virt-launcher-a",
      "virt-launcher-d",
    ]);
  });

  it("finds the VMIs none of them belongs to, by UID within the namespace", () => {
    const vmis = [
      vmi("a", "n"),
      vmi("b", "n"),
      { ...vmi("a", "n"), metadata: { ...vmi("a", "n").metadata, namespace: "other" } },
    ];
    expect(
      vmisWithoutAlivePods(vmis, [launcher("a", "n")]).map(
        (v) => `${v.metadata?.namespace}/${v.metadata?.name}`,
      ),
    ).toEqual(["default/b", "other/a"]);
  });
});

describe("NodeController", () => {
  let stop = new AbortController();
  afterEach(() => stop.abort());

  async function start(server: FakeApiServer, heartbeatTimeoutMs?: number) {
    stop = new AbortController();
    const client = new KubeClient(server);
    const logger = silentLogger;
    const nodes = resourceInformer<Node>(client, coreGVR.nodes, { logger });
    const vmis = resourceInformer<StoredVMI>(client, virtualMachineInstancesGVR, { logger });
    const pods = resourceInformer<Pod>(client, coreGVR.pods, { logger });
    const { events, recorder } = eventLog();
    const controller = new NodeController({
      client,
      nodes,
      vmis,
      pods,
      recorder,
      clock: { now: () => NOW },
      logger,
      heartbeatTimeoutMs,
    });
    await startInformers(server, [nodes, vmis, pods], [Tables.nodes, Tables.vmis, Tables.pods], stop.signal);
    return { controller, events };
  }

  const handlerDaemonSet = (ready: number) => ({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "virt-handler", namespace: "kubevirt", labels: { "kubevirt.io": "virt-handler" } },
    status: { desiredNumberScheduled: 2, currentNumberScheduled: ready, numberReady: ready },
  });

  it("marks a silent node unschedulable and fails its VMIs whose launcher is gone, keeping the others", async () => {
    const server = new FakeApiServer();
    server.seed(Tables.nodes, node("node01", NOW - 6 * MINUTE));
    server.seed(Tables.vmis, vmi("gone", "node01"));
    server.seed(Tables.vmis, vmi("alive", "node01"));
    server.seed(Tables.vmis, vmi("scheduling", "node01", "Scheduling"));
    server.seed(Tables.pods, launcher("alive", "node01"));
    server.seed(Tables.daemonSets, handlerDaemonSet(2));
    const { controller, events } = await start(server);

    expect(await controller.execute("node01")).toEqual({ requeueAfter: MINUTE });

    const labels = server.get<Node>(Tables.nodes, "", "node01")?.metadata?.labels;
    expect(labels?.["kubevirt.io/schedulable"]).toBe("false");
    expect(server.get<StoredVMI>(Tables.vmis, "default", "gone")?.status).toMatchObject({
      phase: "Failed",
      reason: "NodeUnresponsive",
    });
    expect(server.get<StoredVMI>(Tables.vmis, "default", "alive")?.status?.phase).toBe("Running");
    expect(server.get<StoredVMI>(Tables.vmis, "default", "scheduling")?.status?.phase).toBe("Scheduling");
    expect(events).toEqual([
      "Normal NodeUnresponsive virt-handler is not responsive, marking node as unresponsive",
      "Warning NodeUnresponsive virt-handler is not present, there are orphaned vmis on this node. Run virt-handler on this node to migrate or remove them.",
      "Normal NodeUnresponsive virt-handler on node node01 is not responsive, marking VMI as failed",
    ]);
  });

  it("leaves a node that beats, and everything on it, as it is", async () => {
    const server = new FakeApiServer();
    server.seed(Tables.nodes, node("node01", NOW - MINUTE));
    server.seed(Tables.vmis, vmi("gone", "node01"));
    const { controller, events } = await start(server);
    expect(await controller.execute("node01")).toEqual({ requeueAfter: MINUTE });
    expect(server.get<StoredVMI>(Tables.vmis, "default", "gone")?.status?.phase).toBe("Running");
    expect(server.get<Node>(Tables.nodes, "", "node01")?.metadata?.labels?.["kubevirt.io/schedulable"]).toBe(
      "true",
    );
    expect(events).toEqual([]);
  });

  it("fails the VMIs of a deleted node without rechecking it, and reports no orphans for it", async () => {
    const server = new FakeApiServer();
    server.seed(Tables.vmis, vmi("gone", "node02"));
    const { controller, events } = await start(server);
    expect(await controller.execute("node02")).toBeUndefined();
    expect(server.get<StoredVMI>(Tables.vmis, "default", "gone")?.status?.phase).toBe("Failed");
    expect(events).toEqual([
      "Normal NodeUnresponsive virt-handler on node node02 is not responsive, marking VMI as failed",
    ]);
  });

  it("does not report orphans while a handler Pod runs there or the DaemonSet still rolls out", async () => {
    const server = new FakeApiServer();
    server.seed(Tables.nodes, node("node01", NOW - 6 * MINUTE, "false"));
    server.seed(Tables.vmis, vmi("gone", "node01"));
    server.seed(Tables.daemonSets, handlerDaemonSet(0));
    const { controller, events } = await start(server);
    await controller.execute("node01");
    expect(events).toEqual([
      "Normal NodeUnresponsive virt-handler on node node01 is not responsive, marking VMI as failed",
    ]);
  });

  it.each([
    [5 * MINUTE, MINUTE],
    [10 * MINUTE, MINUTE],
    [MINUTE, 12_000],
    [10_000, 2_000],
  ])("rechecks a node with a heartbeat timeout of %d ms every %d ms", (timeoutMs, recheckMs) => {
    expect(recheckIntervalFor(timeoutMs)).toBe(recheckMs);
  });

  it("declares a node silent after a shorter timeout, and rechecks it sooner", async () => {
    const server = new FakeApiServer();
    server.seed(Tables.nodes, node("node01", NOW - 90_000));
    server.seed(Tables.nodes, node("node02", NOW - 30_000));
    const { controller } = await start(server, MINUTE);
    expect(await controller.execute("node01")).toEqual({ requeueAfter: 12_000 });
    expect(await controller.execute("node02")).toEqual({ requeueAfter: 12_000 });
    const schedulable = (name: string) =>
      server.get<Node>(Tables.nodes, "", name)?.metadata?.labels?.["kubevirt.io/schedulable"];
    expect(schedulable("node01")).toBe("false");
    expect(schedulable("node02")).toBe("true");
  });

  it("is woken by the node and by the VMIs on it", async () => {
    const server = new FakeApiServer();
    server.seed(Tables.nodes, node("node01", NOW));
    server.seed(Tables.vmis, vmi("a", "node02"));
    const { controller } = await start(server);
    await server.settle();
    const keys: string[] = [];
    while (controller.queue.len() > 0) {
      const key = await controller.queue.get();
      if (key === undefined) break;
      keys.push(key);
      controller.queue.done(key);
    }
    expect(keys.sort()).toEqual(["node01", "node02"]);
  });
});
