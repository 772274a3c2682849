// Live migration end to end: `virtctl migrate` creates a VirtualMachineInstanceMigration through virt-api,
// virt-controller starts a target launcher Pod on the other node, the two virt-handlers proxy libvirt's
// connection and QEMU's streams between the pods, and the guest moves without a reboot: what it keeps in
// memory is still there, its clock did not start again, and the VMI belongs to the target node afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyObject,
  conditionOf,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  runningLauncher,
  virtctl,
  vmStatusColumn,
} from "./harness.js";
import { SLOW_MIGRATION_LABEL, migrationsOf, slowMigrationPolicy } from "./migrations.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const MIGRATION_TIMEOUT_MS = 180_000;
const VM = "e2e-migrate";
const PROMPT = /root@[\w-]+:~# /;

beforeAll(async () => {
  await applyObject(testGuestVM(VM, { podNetwork: "masquerade" }));
  await runningLauncher(VM, BOOT_TIMEOUT_MS);
}, BOOT_TIMEOUT_MS + 30_000);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  await kubectl(["delete", "vmim", "-l", `kubevirt.io/vmi-name=${VM}`, "--ignore-not-found"]);
});

/** The guest's seconds since boot (/proc/uptime). */
async function guestUptime(session: ConsoleSession): Promise<number> {
  const { output, status } = await session.run("cut -d' ' -f1 /proc/uptime");
  expect(status).toBe(0);
  return Number(output);
}

describe("virtctl migrate of a running VM", () => {
  it("moves the guest to the other node without a reboot, and the VMI follows it", async () => {
    await eventually(
      async () => expect(await conditionOf("vmi", VM, "LiveMigratable")).toBe("True/"),
      60_000,
    );
    const sourceNode = await jsonpath("vmi", VM, "{.status.nodeName}");
    const sourcePod = await runningLauncher(VM, BOOT_TIMEOUT_MS);

    const session = new ConsoleSession(VM);
    await session.expect(PROMPT, 120_000, { pokeMs: 3_000 });
    // A file in the guest's RAM (tmpfs) survives a live migration and nothing else.
    const marker = `kept-${Date.now()}`;
    expect((await session.run(`mkdir -p /run/e2e && echo ${marker} > /run/e2e/marker`)).status).toBe(0);
    // A process started before, still running afterwards.
    const sleeper = await session.run("sleep 100000 >/dev/null 2>&1 & echo $!");
    expect(sleeper.output).toMatch(/^\d+$/);
    const uptimeBefore = await guestUptime(session);
    const wallBefore = Date.now() / 1000;
    await session.close();

    const migrate = await virtctl(["migrate", VM]);
    expect(migrate.stderr).toBe("");
    expect(migrate.stdout.trim()).toBe(`VM ${VM} was scheduled to migrate`);
    const [migration] = await migrationsOf(VM);
    expect(migration).toBeDefined();

    await eventually(
      async () => expect(await jsonpath("vmim", migration ?? "", "{.status.phase}")).toBe("Succeeded"),
      MIGRATION_TIMEOUT_MS,
      1_000,
    );
    const state = JSON.parse(await jsonpath("vmi", VM, "{.status.migrationState}")) as Record<
      string,
      unknown
    >;
    expect(state).toMatchObject({ completed: true, sourceNode, sourcePod });
    expect(state.failed ?? false).toBe(false);
    const targetNode = String(state.targetNode);
    expect(targetNode).not.toBe(sourceNode);
    expect(await jsonpath("vmi", VM, "{.status.nodeName}")).toBe(targetNode);
    expect(await jsonpath("vmi", VM, "{.metadata.labels.kubevirt\\.io/nodeName}")).toBe(targetNode);
    expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
    const seconds =
      (Date.parse(String(state.endTimestamp)) - Date.parse(String(state.startTimestamp))) / 1000;
    console.log(
      `[e2e] live migration ${sourceNode} -> ${targetNode} took ${seconds} s (start to end timestamps)`,
    );

    // The target Pod runs the guest now; the source Pod is done.
    const targetPod = String(state.targetPod);
    expect(await jsonpath("pod", targetPod, "{.spec.nodeName}")).toBe(targetNode);
    expect(await jsonpath("pod", targetPod, "{.status.phase}")).toBe("Running");
    await eventually(
      async () => expect(["Succeeded", ""]).toContain(await jsonpath("pod", sourcePod, "{.status.phase}")),
      120_000,
      1_000,
    );
    const kubectlGet = await kubectlOk(["get", "vmim", migration ?? ""]);
    expect(kubectlGet).toMatch(new RegExp(`${migration}\\s+Succeeded\\s+${VM}`));

    // Same guest, not a new boot: the marker is there and its clock went on.
    const after = new ConsoleSession(VM);
    await after.expect(PROMPT, 120_000, { pokeMs: 3_000 });
    expect((await after.run("cat /run/e2e/marker")).output).toBe(marker);
    expect((await after.run(`kill -0 ${sleeper.output} && echo alive`)).output).toBe("alive");
    const uptimeAfter = await guestUptime(after);
    const wallAfter = Date.now() / 1000;
    expect(uptimeAfter).toBeGreaterThan(uptimeBefore);
    // A rebooted guest would count from 0: its uptime would be below the time that passed.
    expect(uptimeAfter - uptimeBefore).toBeGreaterThan((wallAfter - wallBefore) / 2);
    // The guest's clock stands still while it is stopped for the switch-over: what it lost against the host's
    // is the downtime as the guest lived it (give or take the console's latency of both readings).
    const lost = wallAfter - wallBefore - (uptimeAfter - uptimeBefore);
    console.log(
      `[e2e] the guest's clock lost ${lost.toFixed(2)} s over the migration (its downtime, ± console latency)`,
    );
    await after.close();
  });
});

describe("deleting a running migration", () => {
  const SLOW_VM = "e2e-migrate-abort";
  const POLICY = "e2e-slow-migrations";

  beforeAll(async () => {
    // A MigrationPolicy selecting the VM by its label holds the migration to 1 MiB/s: long enough to cancel.
    await applyObject(slowMigrationPolicy(POLICY, "slow"));
    await applyObject(
      testGuestVM(SLOW_VM, { podNetwork: "masquerade", labels: { [SLOW_MIGRATION_LABEL]: "slow" } }),
    );
    await runningLauncher(SLOW_VM, BOOT_TIMEOUT_MS);
  }, BOOT_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await kubectl(["delete", "vm", SLOW_VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
    await kubectl(["delete", "migrationpolicy", POLICY, "--ignore-not-found"]);
  });

  it("aborts it: the guest keeps running on the source, and the migration object goes", async () => {
    await eventually(
      async () => expect(await conditionOf("vmi", SLOW_VM, "LiveMigratable")).toBe("True/"),
      60_000,
    );
    const sourceNode = await jsonpath("vmi", SLOW_VM, "{.status.nodeName}");
    const session = new ConsoleSession(SLOW_VM);
    await session.expect(PROMPT, 120_000, { pokeMs: 3_000 });
    const marker = `stays-${Date.now()}`;
    expect((await session.run(`mkdir -p /run/e2e && echo ${marker} > /run/e2e/marker`)).status).toBe(0);
    await session.close();

    expect((await virtctl(["migrate", SLOW_VM])).code).toBe(0);
    const [migration = ""] = await migrationsOf(SLOW_VM);
    await eventually(
      async () => expect(await jsonpath("vmim", migration, "{.status.phase}")).toBe("Running"),
      MIGRATION_TIMEOUT_MS,
      1_000,
    );
    // kubectl get vm shows it, as upstream's printableStatus does.
    await eventually(async () => expect(await vmStatusColumn(SLOW_VM)).toBe("Migrating"), 30_000, 1_000);
    expect(await jsonpath("vmi", SLOW_VM, "{.status.migrationState.migrationPolicyName}")).toBe(POLICY);
    expect(
      await jsonpath("vmi", SLOW_VM, "{.status.migrationState.migrationConfiguration.bandwidthPerMigration}"),
    ).toBe("1Mi");

    await kubectlOk(["delete", "vmim", migration, "--wait=false"]);
    await eventually(
      async () =>
        expect(await jsonpath("vmi", SLOW_VM, "{.status.migrationState.abortStatus}")).toBe("Succeeded"),
      MIGRATION_TIMEOUT_MS,
      1_000,
    );
    await eventually(
      async () => expect((await kubectl(["get", "vmim", migration])).code).not.toBe(0),
      120_000,
      1_000,
    );
    expect(await jsonpath("vmi", SLOW_VM, "{.status.migrationState.failed}")).toBe("true");
    expect(await jsonpath("vmi", SLOW_VM, "{.status.nodeName}")).toBe(sourceNode);
    expect(await jsonpath("vmi", SLOW_VM, "{.status.phase}")).toBe("Running");

    const after = new ConsoleSession(SLOW_VM);
    await after.expect(PROMPT, 120_000, { pokeMs: 3_000 });
    expect((await after.run("cat /run/e2e/marker")).output).toBe(marker);
    await after.close();
  });
});
