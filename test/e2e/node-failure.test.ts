// Node failure: a node loses its power — its node agent and every container on it die at once, so neither
// the Node's heartbeat nor virt-handler's goes on. Once the handler's heartbeat is older than the configured
// timeout (the local cluster's 60 s, deploy/local/cluster/kubevirt.ts) virt-controller marks the node
// unresponsive; once the VMI's Pod is gone — which, as upstream, takes Kubernetes' own procedure for a node shut
// down for good: the out-of-service taint — the VMI is Failed and its runStrategy Always VM runs again on the
// other node. When the node comes back, nothing runs twice.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { LOCAL_NODE_HEARTBEAT } from "../../deploy/local/cluster/kubevirt.js";
import { layout } from "../../deploy/local/cluster/layout.js";
import { powerOffNode, powerOnNodes } from "../../deploy/local/cluster/node-power.js";
import { CLUSTER_ALONE_WAIT_MS, takeTheClusterAfterTheOthers } from "./cluster-lock.js";
import {
  applyObject,
  componentPods,
  events,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  qemuPids,
  runningLauncher,
} from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const VM = "e2e-node-failure";
const BOOT_TIMEOUT_MS = 240_000;
const OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

const nodeReady = (node: string) =>
  jsonpath("node", node, '{.status.conditions[?(@.type=="Ready")].status}', "");

/** The events about the object with this UID and reason since `sinceMs` (events outlive a run), as "reason: message" lines. */
async function eventsOf(uid: string, reason: string, sinceMs: number): Promise<string> {
  const lines = await kubectlOk([
    "get",
    "events",
    "-A",
    "--field-selector",
    `involvedObject.uid=${uid},reason=${reason}`,
    "-o",
    "jsonpath={range .items[*]}{.lastTimestamp}{' '}{.reason}: {.message}{'\\n'}{end}",
  ]);
  return lines
    .split("\n")
    .filter((line) => Date.parse(line.slice(0, line.indexOf(" "))) >= Math.floor(sinceMs / 1000) * 1000)
    .map((line) => line.slice(line.indexOf(" ") + 1))
    .join("\n");
}

describe("a node that loses its power", () => {
  it(
    "fails its VMIs after the heartbeat timeout, the VM runs again on the other node, and nothing runs twice once the node is back",
    async () => {
      // Every VM on the node dies: this file runs when the others have ended.
      await takeTheClusterAfterTheOthers();
      const l = layout();
      // The node that fails is node02: KubeVirt's control plane (virt-controller, virt-api) runs only on
      // control-plane nodes, as upstream places it, and node01 is the only one. The VM starts on node02
      // while node01 is cordoned.
      const failed = "node02";
      const other = "node01";
      await kubectlOk(["cordon", other]);
      try {
        await applyObject(testGuestVM(VM, { podNetwork: "masquerade" }));
        await runningLauncher(VM, BOOT_TIMEOUT_MS);
      } finally {
        await kubectlOk(["uncordon", other]);
      }
      expect(await jsonpath("vmi", VM, "{.status.nodeName}")).toBe(failed);
      const vmiUID = await jsonpath("vmi", VM, "{.metadata.uid}");
      const nodeUID = await jsonpath("node", failed, "{.metadata.uid}", "");

      const off = Date.now();
      await powerOffNode(l, failed);
      try {
        // kube-controller-manager hears nothing from the node either.
        await eventually(async () => expect(await nodeReady(failed)).not.toBe("True"), 180_000, 2_000);
        console.log(`[e2e] ${failed} NotReady after ${((Date.now() - off) / 1000).toFixed(0)} s`);
        // virt-controller takes the node for gone once the handler's heartbeat is older than the timeout.
        await eventually(
          async () =>
            expect(await eventsOf(nodeUID, "NodeUnresponsive", off)).toContain(
              "NodeUnresponsive: virt-handler is not responsive, marking node as unresponsive",
            ),
          300_000,
          2_000,
        );
        expect(await jsonpath("node", failed, "{.metadata.labels.kubevirt\\.io/schedulable}", "")).toBe(
          "false",
        );
        console.log(
          `[e2e] ${failed} unresponsive for KubeVirt ${((Date.now() - off) / 1000).toFixed(0)} s after the power cut (heartbeat timeout ${LOCAL_NODE_HEARTBEAT.timeout})`,
        );
        // As upstream, the VMI fails only once its Pod is gone, which Kubernetes lets happen for a node that is
        // down for good when an administrator says so: the out-of-service taint. Whichever of virt-controller's
        // node controller (NodeUnresponsive) or VMI controller (its Pod gone) sees it first fails the VMI.
        await kubectlOk(["taint", "node", failed, `${OUT_OF_SERVICE}=nodeshutdown:NoExecute`]);
        await eventually(
          async () =>
            expect(
              await events(
                `involvedObject.kind=VirtualMachine,involvedObject.name=${VM},reason=SuccessfulDelete`,
              ),
            ).toContain(`Stopped the virtual machine by deleting the virtual machine instance ${vmiUID}`),
          BOOT_TIMEOUT_MS,
          2_000,
        );
        console.log(
          `[e2e] the VMI on ${failed} failed ${((Date.now() - off) / 1000).toFixed(0)} s after the power cut`,
        );

        // runStrategy Always: a new VMI, on the other node.
        await eventually(
          async () => {
            expect(await jsonpath("vmi", VM, "{.metadata.uid}")).not.toBe(vmiUID);
            expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
          },
          BOOT_TIMEOUT_MS,
          2_000,
        );
        expect(await jsonpath("vmi", VM, "{.status.nodeName}")).toBe(other);
      } finally {
        await kubectl(["taint", "node", failed, `${OUT_OF_SERVICE}-`]);
        await powerOnNodes(l, (line) => console.log(`[e2e] ${line}`));
      }

      // The node is back with its virt-handler: still one guest, on the other node.
      await eventually(async () => expect(await nodeReady(failed)).toBe("True"), 180_000, 2_000);
      await eventually(
        async () =>
          expect(
            await componentPods("virt-handler", {
              node: failed,
              path: '{.items[*].status.conditions[?(@.type=="Ready")].status}',
            }),
          ).toBe("True"),
        180_000,
        2_000,
      );
      for (let check = 0; check < 10; check++) {
        expect(await qemuPids(VM)).toHaveLength(1);
        expect(await jsonpath("vmi", VM, "{.status.nodeName}")).toBe(other);
        expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
        await sleep(3_000);
      }
      const launchersOnFailed = await kubectlOk([
        "get",
        "pods",
        "-l",
        "kubevirt.io=virt-launcher",
        "--field-selector",
        `spec.nodeName=${failed}`,
        "-o",
        "name",
      ]);
      expect(launchersOnFailed).toBe("");
      await kubectlOk(["delete", "vm", VM, "--wait=true", "--timeout=120s"]);
    },
    900_000 + CLUSTER_ALONE_WAIT_MS,
  );
});
