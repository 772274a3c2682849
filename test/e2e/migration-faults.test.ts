// Live migration under faults: a target that cannot be scheduled, a second migration of the same VMI, and
// killing the target launcher, the target virt-handler or virt-controller while the guest moves. Whatever
// happens, the migration ends Failed or Succeeded and exactly one guest runs afterwards, where the VMI says.
// A MigrationPolicy holds these migrations to 1 MiB/s, so that they are still running when the fault hits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyObject,
  componentPods,
  conditionOf,
  containerPid,
  events,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  latestEvents,
  qemuPids,
  runningLauncher,
  virtctl,
} from "./harness.js";
import { CLUSTER_ALONE_WAIT_MS, takeTheClusterAlone } from "./cluster-lock.js";
import { SLOW_MIGRATION_LABEL, migrationsOf, slowMigrationPolicy } from "./migrations.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const MIGRATION_TIMEOUT_MS = 300_000;
const PINNED = "e2e-migrate-pinned";
const SLOW = "e2e-migrate-faults";
const POLICY = "e2e-migration-faults";
const PINNED_NODE = "node01";
const PROMPT = /root@[\w-]+:~# /;
/** The unschedulable-target timeout the pinned VM's migration asks for (upstream's annotation). */
const UNSCHEDULABLE_TIMEOUT_SECONDS = 20;

beforeAll(
  async () => {
    await applyObject(slowMigrationPolicy(POLICY, "faults"));
    await applyObject(
      testGuestVM(PINNED, {
        podNetwork: "masquerade",
        nodeSelector: { "kubernetes.io/hostname": PINNED_NODE },
      }),
    );
    await applyObject(
      testGuestVM(SLOW, { podNetwork: "masquerade", labels: { [SLOW_MIGRATION_LABEL]: "faults" } }),
    );
    await runningLauncher(PINNED, BOOT_TIMEOUT_MS);
    await runningLauncher(SLOW, BOOT_TIMEOUT_MS);
  },
  2 * BOOT_TIMEOUT_MS + 30_000,
);

afterAll(async () => {
  await kubectl(["delete", "vm", PINNED, SLOW, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  await kubectl([
    "delete",
    "vmim",
    "-l",
    `kubevirt.io/vmi-name in (${PINNED},${SLOW})`,
    "--ignore-not-found",
  ]);
  await kubectl(["delete", "migrationpolicy", POLICY, "--ignore-not-found"]);
});

/** The migration `virtctl migrate` just created for `vmi` (the newest of its migrations). */
async function newestMigration(vmi: string): Promise<string> {
  const name = (await migrationsOf(vmi)).at(-1);
  expect(name, `no migration of ${vmi}`).toBeDefined();
  return name ?? "";
}

/** Starts a migration of SLOW and waits until the guest's memory is being copied (phase Running). */
async function startSlowMigration(): Promise<{ migration: string; sourceNode: string; targetPod: string }> {
  await eventually(
    async () => expect(await conditionOf("vmi", SLOW, "LiveMigratable")).toBe("True/"),
    60_000,
  );
  const sourceNode = await jsonpath("vmi", SLOW, "{.status.nodeName}");
  const migrate = await virtctl(["migrate", SLOW]);
  expect(migrate.stderr).toBe("");
  const migration = await newestMigration(SLOW);
  await eventually(
    async () => expect(await jsonpath("vmim", migration, "{.status.phase}")).toBe("Running"),
    MIGRATION_TIMEOUT_MS,
    1_000,
  );
  const targetPod = await jsonpath("vmi", SLOW, "{.status.migrationState.targetPod}");
  expect(targetPod).toMatch(/^virt-launcher-/);
  return { migration, sourceNode, targetPod };
}

/** The migration ended, one way or the other; answers how. */
async function finalPhase(migration: string): Promise<string> {
  let phase = "";
  await eventually(
    async () => {
      phase = await jsonpath("vmim", migration, "{.status.phase}");
      expect(["Succeeded", "Failed"]).toContain(phase);
    },
    MIGRATION_TIMEOUT_MS,
    1_000,
  );
  return phase;
}

/** The nodes of the VMI's launcher Pods whose compute container runs (upstream's test of a Pod that is up). */
async function nodesWithARunningCompute(vmi: string): Promise<string[]> {
  const uid = await jsonpath("vmi", vmi, "{.metadata.uid}");
  const pods = JSON.parse(
    await kubectlOk(["get", "pods", "-l", `kubevirt.io/created-by=${uid}`, "-o", "json"]),
  ) as {
    items: {
      spec: { nodeName: string };
      status: { containerStatuses?: { name: string; state?: { running?: object } }[] };
    }[];
  };
  return pods.items
    .filter((pod) => pod.status.containerStatuses?.some((c) => c.name === "compute" && c.state?.running))
    .map((pod) => pod.spec.nodeName);
}

/** Exactly one guest runs, in the one launcher Pod whose compute runs, on the node the VMI names; its RAM kept `marker`. */
async function oneGuestWhereTheVMISays(vmi: string, marked: MarkedGuest): Promise<string> {
  await eventually(
    async () => {
      expect(await qemuPids(vmi)).toHaveLength(1);
      expect(await nodesWithARunningCompute(vmi)).toEqual([await jsonpath("vmi", vmi, "{.status.nodeName}")]);
    },
    180_000,
    2_000,
  );
  expect(await jsonpath("vmi", vmi, "{.status.phase}")).toBe("Running");
  const session = new ConsoleSession(vmi);
  await session.expect(PROMPT, 120_000, { pokeMs: 3_000 });
  const kept = (await session.run("cat /run/e2e/marker")).output;
  await session.close();
  expect(kept, kept === marked.marker ? "" : await whatHappenedTo(vmi, marked.uid)).toBe(marked.marker);
  return await jsonpath("vmi", vmi, "{.status.nodeName}");
}

/**
 * For a failure message, in the 8 lines the failure summary repeats (CI keeps a tail of the output): whether
 * another VMI replaced the marked one, the marked VMI's last events (why it ended), newest first, then the VM's.
 */
async function whatHappenedTo(vmi: string, markedUid: string): Promise<string> {
  const eventLines = async (selector: string, count: number): Promise<string[]> =>
    (await latestEvents(selector, count)).map((line) => `  ${line.slice(0, 120)}`);
  const now = await jsonpath("vmi", vmi, "{.metadata.uid} {.metadata.creationTimestamp}");
  return [
    `the guest is not the one marked (VMI ${markedUid}); the VMI now: ${now}; the marked VMI's last events:`,
    ...(await eventLines(`involvedObject.uid=${markedUid}`, 4)),
    "the VM's:",
    ...(await eventLines(`involvedObject.kind=VirtualMachine,involvedObject.name=${vmi}`, 2)),
  ].join("\n");
}

/** A guest marked in its RAM, and the VMI it ran in. */
interface MarkedGuest {
  marker: string;
  uid: string;
}

/** Writes a marker into the guest's RAM (tmpfs): only the same guest still has it later. */
async function markGuest(vmi: string): Promise<MarkedGuest> {
  const session = new ConsoleSession(vmi);
  await session.expect(PROMPT, 120_000, { pokeMs: 3_000 });
  const marker = `kept-${Date.now()}`;
  expect((await session.run(`mkdir -p /run/e2e && echo ${marker} > /run/e2e/marker`)).status).toBe(0);
  await session.close();
  return { marker, uid: await jsonpath("vmi", vmi, "{.metadata.uid}") };
}

describe("a migration whose target Pod cannot be scheduled", () => {
  it("fails after its unschedulable timeout with the scheduler's reason, and the VMI stays", async () => {
    const uid = await jsonpath("vmi", PINNED, "{.metadata.uid}");
    const migration = `${PINNED}-nowhere`;
    await applyObject({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstanceMigration",
      metadata: {
        name: migration,
        annotations: {
          "kubevirt.io/migrationUnschedulablePodTimeoutSeconds": String(UNSCHEDULABLE_TIMEOUT_SECONDS),
        },
      },
      spec: { vmiName: PINNED },
    });
    // The target Pod must avoid the source node and keep the VM's nodeSelector: no node fits.
    await eventually(
      async () =>
        expect(await events("reason=FailedScheduling")).toMatch(
          /virt-launcher-e2e-migrate-pinned-\S+ FailedScheduling: 0\/2 nodes are available/,
        ),
      120_000,
      1_000,
    );
    await eventually(
      async () => expect(await jsonpath("vmim", migration, "{.status.phase}")).toBe("Failed"),
      UNSCHEDULABLE_TIMEOUT_SECONDS * 1000 + 120_000,
      1_000,
    );
    expect(
      await events(`involvedObject.kind=VirtualMachineInstanceMigration,involvedObject.name=${migration}`),
    ).toContain(
      `migrationTargetPodUnschedulable: Migration target pod for VMI [default/${PINNED}] is currently unschedulable.`,
    );
    // No target Pod is left; the guest runs on, where it ran.
    await eventually(
      async () =>
        expect(
          await kubectlOk([
            "get",
            "pods",
            "-l",
            `kubevirt.io/migrationJobUID,kubevirt.io/created-by=${uid}`,
            "-o",
            "name",
          ]),
        ).toBe(""),
      60_000,
      1_000,
    );
    expect(await jsonpath("vmi", PINNED, "{.status.nodeName}")).toBe(PINNED_NODE);
    expect(await jsonpath("vmi", PINNED, "{.status.phase}")).toBe("Running");
    expect(await qemuPids(PINNED)).toHaveLength(1);
  });
});

describe("killing the target launcher while the guest moves", () => {
  it("refuses a second migration meanwhile, fails the migration and leaves the guest on the source", async () => {
    const marked = await markGuest(SLOW);
    const { migration, sourceNode, targetPod } = await startSlowMigration();

    const second = await virtctl(["migrate", SLOW]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(
      /in-flight migration detected\. Active migration job \([0-9a-f-]+\) is currently already in progress for VMI e2e-migrate-faults\./,
    );

    process.kill(await containerPid(targetPod, "compute"), "SIGKILL");
    expect(await finalPhase(migration)).toBe("Failed");
    expect(await oneGuestWhereTheVMISays(SLOW, marked)).toBe(sourceNode);
    expect(await jsonpath("vmi", SLOW, "{.status.migrationState.failed}")).toBe("true");
    // As upstream, the killed target's other containers run on, its pod with them, and the next migration of
    // the VMI waits while it has more than one pod: an administrator deletes it.
    expect(
      await jsonpath(
        "pod",
        targetPod,
        "{.status.containerStatuses[?(@.name=='compute')].state.terminated.reason}",
      ),
    ).toBe("Error");
    await kubectlOk(["delete", "pod", targetPod, "--wait=true"]);
  });
});

describe("killing a KubeVirt component while the guest moves", () => {
  it(
    "the target virt-handler: the migration ends either way and one guest runs",
    async () => {
      // Other files' VMs on that node would lose their handler too.
      await takeTheClusterAlone();
      const marked = await markGuest(SLOW);
      const { migration } = await startSlowMigration();
      const targetNode = await jsonpath("vmi", SLOW, "{.status.migrationState.targetNode}");
      const handler = await componentPods("virt-handler", { node: targetNode });
      process.kill(await containerPid(handler, "virt-handler", "kubevirt"), "SIGKILL");

      const phase = await finalPhase(migration);
      const node = await oneGuestWhereTheVMISays(SLOW, marked);
      console.log(`[e2e] killing the target virt-handler mid-migration: ${phase}, the guest runs on ${node}`);
    },
    MIGRATION_TIMEOUT_MS * 2 + CLUSTER_ALONE_WAIT_MS,
  );

  it(
    "virt-controller's leader: the migration ends either way and one guest runs",
    async () => {
      await takeTheClusterAlone();
      const marked = await markGuest(SLOW);
      const { migration } = await startSlowMigration();
      const leader = await kubectlOk([
        "-n",
        "kubevirt",
        "get",
        "lease",
        "virt-controller",
        "-o",
        "jsonpath={.spec.holderIdentity}",
      ]);
      expect((await componentPods("virt-controller")).split(" ")).toContain(leader);
      process.kill(await containerPid(leader, "virt-controller", "kubevirt"), "SIGKILL");

      const phase = await finalPhase(migration);
      const node = await oneGuestWhereTheVMISays(SLOW, marked);
      console.log(
        `[e2e] killing virt-controller's leader mid-migration: ${phase}, the guest runs on ${node}`,
      );
    },
    MIGRATION_TIMEOUT_MS * 2 + CLUSTER_ALONE_WAIT_MS,
  );
});
