// The node controller against the real kube-apiserver: a Node whose virt-handler stopped beating is
// labelled unschedulable for VMs, its Running VMI without a launcher Pod fails with NodeUnresponsive, and
// a Node that beats keeps its VMI. The timeout is shortened to seconds (upstream's is 5 minutes); the
// Nodes are API objects only (no agent runs them), and a virt-handler DaemonSet that selects no node
// stands for a fully rolled out handler, so the missing handler Pod is reported as orphaning the VMIs.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../pkg/api/core/v1/pod.js";
import { KubeClient, type ResourceClient } from "../../pkg/controller/client.js";
import { coreGVR } from "../../pkg/controller/gvr.js";
import { resourceInformer } from "../../pkg/controller/informer.js";
import { silentLogger } from "../../pkg/controller/log.js";
import { virtualMachineInstancesGVR, type StoredVMI } from "../../pkg/controller/resources.js";
import { eventLog } from "../../pkg/controller/testing/controller-harness.js";
import { NodeController, type Node } from "../../pkg/virt-controller/watch/node/node.js";
import { eventually, installCRDs, kubeConfig, kubectl, kubectlOk as run } from "./harness.js";

const suffix = randomBytes(3).toString("hex");
const namespace = `node-ctl-it-${suffix}`;
const silentNode = `silent-${suffix}`;
const beatingNode = `beating-${suffix}`;
const TIMEOUT_MS = 3_000;
/** The cluster's own nodes stay out of this controller's sight. */
const TEST_LABEL = "kubevirt-ts.io/node-controller-it";

let client: KubeClient;
let vmis: ResourceClient<StoredVMI>;
const stop = new AbortController();
const { events, recorder } = eventLog();

const node = (name: string, beat: Date): Node => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: {
    name,
    labels: { "kubevirt.io/schedulable": "true", [TEST_LABEL]: suffix },
    annotations: { "kubevirt.io/heartbeat": beat.toISOString().replace(/\.\d{3}Z$/, "Z") },
  },
});

const runningVMI = (name: string, nodeName: string): StoredVMI =>
  ({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name, namespace, labels: { "kubevirt.io/nodeName": nodeName } },
    spec: { domain: { devices: {}, memory: { guest: "128Mi" } } },
    // The VMI CRD has no status subresource (as upstream): the status is stored as created.
    status: { phase: "Running", nodeName },
  }) as StoredVMI;

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(await kubeConfig());
  vmis = client.resource<StoredVMI>(virtualMachineInstancesGVR);
  await installCRDs(["virtualmachineinstances.kubevirt.io", "kubevirts.kubevirt.io"]);
  await run(["create", "namespace", namespace]);
  await run(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "virt-handler", namespace, labels: { "kubevirt.io": "virt-handler" } },
      spec: {
        selector: { matchLabels: { "kubevirt.io": "virt-handler" } },
        template: {
          metadata: { labels: { "kubevirt.io": "virt-handler" } },
          spec: {
            nodeSelector: { "kubevirt-ts.io/no-such-node": "true" },
            containers: [{ name: "virt-handler", image: "busybox" }],
          },
        },
      },
    }),
  );
  const nodes = client.resource<Node>(coreGVR.nodes);
  await nodes.create(node(silentNode, new Date(Date.now() - 60_000)));
  await nodes.create(node(beatingNode, new Date(Date.now() + 3_600_000)));
  await vmis.create(runningVMI("on-silent", silentNode));
  await vmis.create(runningVMI("on-beating", beatingNode));

  const logger = silentLogger;
  const informers = {
    nodes: resourceInformer<Node>(client, coreGVR.nodes, {
      logger,
      labelSelector: `${TEST_LABEL}=${suffix}`,
    }),
    vmis: resourceInformer<StoredVMI>(client, virtualMachineInstancesGVR, { logger, namespace }),
    pods: resourceInformer<Pod>(client, coreGVR.pods, { logger, namespace, labelSelector: "kubevirt.io" }),
  };
  const controller = new NodeController({
    client,
    ...informers,
    recorder,
    logger,
    heartbeatTimeoutMs: TIMEOUT_MS,
    recheckIntervalMs: 1_000,
  });
  const all = Object.values(informers);
  for (const informer of all) void informer.run(stop.signal);
  await Promise.all(all.map((informer) => informer.waitForSync(stop.signal)));
  void controller.run(1, stop.signal);
}, 240_000);

afterAll(async () => {
  stop.abort();
  await kubectl(["delete", "node", silentNode, beatingNode, "--wait=false"]);
  await kubectl(["delete", "namespace", namespace, "--wait=false"]);
}, 60_000);

describe("the node controller against a real apiserver", () => {
  it("fails the VMI of a node whose handler went silent, and leaves the beating node's VMI", async () => {
    const failed = await eventually(async () => {
      const vmi = await vmis.get(namespace, "on-silent");
      if (vmi.status?.phase !== "Failed") throw new Error(`phase ${vmi.status?.phase}`);
      return vmi;
    }, 30_000);
    expect(failed.status?.reason).toBe("NodeUnresponsive");
    expect((await vmis.get(namespace, "on-beating")).status?.phase).toBe("Running");
    expect(
      await run(["get", "node", silentNode, "-o", "jsonpath={.metadata.labels.kubevirt\\.io/schedulable}"]),
    ).toBe("false");
    expect(
      await run(["get", "node", beatingNode, "-o", "jsonpath={.metadata.labels.kubevirt\\.io/schedulable}"]),
    ).toBe("true");
    expect(events).toContain(
      "Warning NodeUnresponsive virt-handler is not present, there are orphaned vmis on this node. Run virt-handler on this node to migrate or remove them.",
    );
    expect(events).toContain(
      `Normal NodeUnresponsive virt-handler on node ${silentNode} is not responsive, marking VMI as failed`,
    );
  });
});
