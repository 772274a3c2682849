// `kubectl drain` of a node running two VMs: the virt-launcher-eviction-interceptor lets the eviction of a
// launcher whose VMI has evictionStrategy None through, the launcher is evicted, and the VM's run
// strategy (Always) starts the VM again on the node left; the eviction of a LiveMigrate VMI's launcher is
// answered by an evacuation instead (429 until its pod is gone), so that guest moves to the other node
// alive, and the drain completes after it did. Both nodes are schedulable again afterwards, so the other
// e2e files find the cluster as it was.
import { afterAll, describe, expect, it } from "vitest";
import { applyObject, events, eventually, jsonpath, kubectl, kubectlOk } from "./harness.js";
import { CLUSTER_ALONE_WAIT_MS, takeTheClusterAfterTheOthers } from "./cluster-lock.js";
import { migrationsOf } from "./migrations.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const DRAIN_TIMEOUT = "300s";
const NAME = "e2e-drain";
const LIVE = "e2e-drain-live";
const DRAINED = "node02";
const OTHER = "node01";

// Small requests: the simulated nodes are small and other pods share them.

interface RunningVMI {
  uid: string;
  node: string;
}

async function runningVMI(name = NAME): Promise<RunningVMI> {
  const out = await jsonpath("vmi", name, "{.metadata.uid} {.status.phase} {.status.nodeName}");
  const [uid = "", phase = "", node = ""] = out.split(" ");
  expect(phase).toBe("Running");
  return { uid, node };
}

const LEGACY_BUDGET = "kubevirt-disruption-budget-e2e";

/**
 * Upstream releases before 1.6 kept a PodDisruptionBudget per migratable VMI; since the eviction interceptor
 * alone protects the guest, virt-controller's disruption-budget controller deletes such a budget, which
 * would otherwise block the drain.
 */
async function removesLegacyBudget(vmi: string, uid: string): Promise<void> {
  await applyObject({
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: {
      name: LEGACY_BUDGET,
      ownerReferences: [
        { apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstance", name: vmi, uid, controller: true },
      ],
    },
    spec: { minAvailable: 1, selector: { matchLabels: { "kubevirt.io/created-by": uid } } },
  });
  await eventually(
    async () => expect((await kubectl(["get", "pdb", LEGACY_BUDGET])).code).not.toBe(0),
    60_000,
    1_000,
  );
  expect(
    await events(
      `involvedObject.kind=VirtualMachineInstance,involvedObject.name=${vmi},reason=SuccessfulDelete`,
    ),
  ).toContain(`Deleted PodDisruptionBudget ${LEGACY_BUDGET}`);
}

afterAll(async () => {
  await kubectl(["uncordon", OTHER]);
  await kubectl(["uncordon", DRAINED]);
  await kubectl(["delete", "vm", NAME, LIVE, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("kubectl drain of a node with a VM", () => {
  it(
    "evicts the launcher of an evictionStrategy None VM, which starts again on the other node, and live-migrates a LiveMigrate VM",
    async () => {
      // The drain would evict other files' VMs on the node, and the cordon below would keep their Pods and
      // migration targets off the other node: this file runs when the others have ended.
      await takeTheClusterAfterTheOthers();
      // Start the VM on the node to drain: the other one is cordoned until the VM runs.
      await kubectlOk(["cordon", OTHER]);
      await applyObject(
        testGuestVM(NAME, {
          labels: { "kubevirt.io/vm": NAME },
          evictionStrategy: "None",
          cpuRequest: "100m",
        }),
      );
      await applyObject(
        testGuestVM(LIVE, { podNetwork: "masquerade", evictionStrategy: "LiveMigrate", cpuRequest: "100m" }),
      );
      const before = await eventually(runningVMI, BOOT_TIMEOUT_MS, 1_000);
      expect(before.node).toBe(DRAINED);
      const liveBefore = await eventually(() => runningVMI(LIVE), BOOT_TIMEOUT_MS, 1_000);
      expect(liveBefore.node).toBe(DRAINED);
      await removesLegacyBudget(LIVE, liveBefore.uid);
      const launcher = (
        await kubectlOk([
          "get",
          "pods",
          "-l",
          `kubevirt.io/created-by=${before.uid}`,
          "-o",
          "jsonpath={.items[*].metadata.name}",
        ])
      ).trim();
      expect(launcher).toMatch(/^virt-launcher-e2e-drain-/);
      await kubectlOk(["uncordon", OTHER]);

      const drain = await kubectl([
        "drain",
        DRAINED,
        "--ignore-daemonsets",
        "--delete-emptydir-data",
        `--timeout=${DRAIN_TIMEOUT}`,
      ]);
      expect({ code: drain.code, stderr: drain.stderr }).toMatchObject({ code: 0 });
      expect(drain.stdout).toContain(`pod/${launcher} evicted`);
      expect(drain.stdout).toContain(`node/${DRAINED} drained`);

      // A new VMI, not the old one, running on the node left.
      const after = await eventually(
        async () => {
          const vmi = await runningVMI();
          expect(vmi.uid).not.toBe(before.uid);
          return vmi;
        },
        BOOT_TIMEOUT_MS,
        1_000,
      );
      expect(after.node).toBe(OTHER);
      expect(await kubectl(["get", "pod", launcher])).toMatchObject({ code: 1 });
      expect(await jsonpath("vm", NAME, "{.status.printableStatus}")).toBe("Running");

      // The LiveMigrate VM's guest moved: the same VMI, on the other node, by an evacuation migration.
      const liveAfter = await runningVMI(LIVE);
      expect(liveAfter).toEqual({ uid: liveBefore.uid, node: OTHER });
      expect(await jsonpath("vmi", LIVE, "{.status.migrationState.completed}")).toBe("true");
      expect(await jsonpath("vmi", LIVE, "{.status.migrationState.sourceNode}")).toBe(DRAINED);
      // One evacuation migration moved it. As upstream, the controller starts another after one that failed
      // (which a slow machine may see): every earlier one must have failed, and they say so.
      const evacuations = await eventually(
        async () => {
          const listed = await Promise.all(
            (await migrationsOf(LIVE)).map((name) =>
              jsonpath(
                "vmim",
                name,
                "{.metadata.annotations.kubevirt\\.io/evacuationMigration} {.status.phase}",
              ),
            ),
          );
          expect(listed.at(-1)).toBe(`${DRAINED} Succeeded`);
          return listed;
        },
        30_000,
        1_000,
      );
      if (evacuations.length > 1) console.log(`[e2e] drain: evacuation migrations ${evacuations.join(", ")}`);
      for (const earlier of evacuations.slice(0, -1)) expect(earlier).toBe(`${DRAINED} Failed`);
    },
    300_000 + CLUSTER_ALONE_WAIT_MS,
  );
});
