import { describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/log.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { marshalDomainXML } from "./api/domain-xml.js";
import { convertVMIToDomain } from "./converter/converter.js";
import { defaultedVMI, testContext } from "./converter/testing.js";
import { VIR_DOMAIN_JOB_OPERATION_MIGRATION_IN } from "../../libvirt/migrate.js";
import { MigrationOptionsSchema } from "./live-migration-params.js";
import { MigrationSource } from "./live-migration-source.js";
import type { IncomingJobConnection } from "./live-migration-target.js";
import { watchIncomingMigration } from "./live-migration-target.js";
import {
  MigrationAbortInProgressError,
  initializeMigrationMetadata,
  setMigrationResult,
} from "./migration-metadata.js";
import type { Clock, InflightState } from "./migration-monitor.js";
import { decideInflight } from "./migration-monitor.js";
import { MetadataCache } from "./metadata-cache.js";
import { FakeLibvirt } from "./testing/fake-libvirt.js";

const T0 = new Date("2026-12-08T10:00:00Z");
const options = (overrides: object = {}) => MigrationOptionsSchema.parse(overrides);

/** Time that passes only when the code under test sleeps. */
function fakeClock(): Clock {
  let now = T0.getTime();
  return {
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function migratingVMI(annotations: Record<string, string> = {}): VirtualMachineInstance {
  const vmi = defaultedVMI(
    {
      domain: {
        devices: { autoattachPodInterface: false },
        resources: { requests: { memory: "64Mi" } },
      },
    },
    { name: "vm", namespace: "ns", annotations },
  );
  vmi.status = { ...vmi.status, migrationState: { migrationUid: "mig-1" } };
  return vmi;
}

function source(overrides: { clock?: Clock } = {}) {
  const fake = new FakeLibvirt();
  const metadata = new MetadataCache();
  const paused: string[] = [];
  const migration = new MigrationSource({
    connection: fake,
    metadata,
    virtShareDir: "/var/run/kubevirt",
    log: silentLogger,
    exclusive: (work) => work(),
    markPaused: (uid) => paused.push(uid),
    clock: overrides.clock ?? fakeClock(),
  });
  const vmi = migratingVMI();
  void fake.domainDefineXML(marshalDomainXML(convertVMIToDomain(vmi, testContext(vmi)).spec));
  void fake.domainCreateWithFlags({ name: "ns_vm", uuid: new Uint8Array(16), id: 1 });
  return { fake, metadata, migration, paused };
}

describe("migration metadata", () => {
  it("starts a migration once; a running one is left alone, an ended one refused", () => {
    const metadata = new MetadataCache();
    expect(initializeMigrationMetadata(metadata, "m1", "PreCopy", T0)).toBe(false);
    expect(metadata.loadMigration()).toEqual({
      uid: "m1",
      startTimestamp: "2026-12-08T10:00:00Z",
      mode: "PreCopy",
    });
    expect(initializeMigrationMetadata(metadata, "m1", "PreCopy", T0)).toBe(true);
    setMigrationResult(metadata, false, "", "", T0);
    expect(() => initializeMigrationMetadata(metadata, "m1", "PreCopy", T0)).toThrow(
      "migration job m1 already executed, finished at 2026-12-08T10:00:00Z, failed: false, abortStatus: ",
    );
    expect(initializeMigrationMetadata(metadata, "m2", "PreCopy", T0)).toBe(false);
  });

  it("holds the outcome back while an abort is in progress, and keeps the first outcome", () => {
    const metadata = new MetadataCache();
    initializeMigrationMetadata(metadata, "m1", "PreCopy", T0);
    setMigrationResult(metadata, false, "", "Aborting", T0);
    expect(() => setMigrationResult(metadata, false, "", "Aborting", T0)).toThrow(
      MigrationAbortInProgressError,
    );
    expect(() => setMigrationResult(metadata, true, "failed", "", T0)).toThrow(MigrationAbortInProgressError);
    expect(metadata.loadMigration()?.endTimestamp).toBeUndefined();
    setMigrationResult(metadata, true, "Live migration aborted ", "Succeeded", T0);
    setMigrationResult(metadata, false, "", "", new Date("2026-12-08T11:00:00Z"));
    expect(metadata.loadMigration()).toMatchObject({
      failed: true,
      failureReason: "Live migration aborted ",
      abortStatus: "Succeeded",
      endTimestamp: "2026-12-08T10:00:00Z",
    });
  });

  it("leaves a migration whose abort failed unfinished", () => {
    const metadata = new MetadataCache();
    initializeMigrationMetadata(metadata, "m1", "PreCopy", T0);
    setMigrationResult(metadata, false, "", "Aborting", T0);
    setMigrationResult(metadata, false, "", "Failed", T0);
    expect(metadata.loadMigration()).toMatchObject({ abortStatus: "Failed" });
    expect(metadata.loadMigration()?.endTimestamp).toBeUndefined();
  });
});

describe("decideInflight", () => {
  const state = (overrides: Partial<InflightState>): InflightState => ({
    elapsedMs: 0,
    sinceProgressMs: 0,
    mode: "PreCopy",
    acceptableCompletionTime: 150,
    options: options({ ProgressTimeout: 150 }),
    ...overrides,
  });

  it.each([
    ["a progressing migration", state({ elapsedMs: 10_000 }), { kind: "none" }],
    [
      "no progress for longer than progressTimeout",
      state({ sinceProgressMs: 151_000 }),
      { kind: "abort", message: "Live migration stuck for 151 seconds and has been aborted" },
    ],
    [
      "longer than the completion time",
      state({ elapsedMs: 151_000 }),
      { kind: "abort", message: "Live migration is not completed after 150 seconds and has been aborted" },
    ],
    [
      "post-copy, whatever the time",
      state({ mode: "PostCopy", elapsedMs: 1e9, sinceProgressMs: 1e9 }),
      { kind: "none" },
    ],
    [
      "too long, workload disruption allowed, post-copy allowed",
      state({ elapsedMs: 151_000, options: options({ AllowWorkloadDisruption: true, AllowPostCopy: true }) }),
      { kind: "start-post-copy" },
    ],
    [
      "too long, workload disruption allowed, no post-copy",
      state({ elapsedMs: 151_000, options: options({ AllowWorkloadDisruption: true }) }),
      { kind: "pause-guest" },
    ],
    [
      "too long again once paused",
      state({ elapsedMs: 301_000, mode: "Paused", options: options({ AllowWorkloadDisruption: true }) }),
      { kind: "abort", message: "Live migration is not completed after 150 seconds and has been aborted" },
    ],
    [
      "no limits at all",
      state({ elapsedMs: 1e9, sinceProgressMs: 1e9, acceptableCompletionTime: 0, options: options() }),
      { kind: "none" },
    ],
  ])("%s", (_name, input, action) => expect(decideInflight(input)).toEqual(action));
});

describe("MigrationSource", () => {
  it("migrates peer to peer to the proxy socket and records success", async () => {
    const { fake, metadata, migration } = source();
    migration.start(migratingVMI(), options());
    await expect.poll(() => fake.migrations.length).toBe(1);
    expect(fake.migrations[0]).toMatchObject({
      domain: "ns_vm",
      dconnuri: `qemu+unix:///session?socket=/var/run/kubevirt/migrationproxy/${migratingVMI().metadata?.uid}-source.sock`,
    });
    // A second call for the same migration (virt-handler resyncs) starts nothing new.
    migration.start(migratingVMI(), options());
    fake.finishMigration();
    await migration.running;
    expect(fake.migrations).toHaveLength(1);
    expect(metadata.loadMigration()).toMatchObject({ uid: "mig-1", endTimestamp: expect.any(String) });
    expect(metadata.loadMigration()?.failed).toBeUndefined();
  });

  it("records libvirt's error when the migration fails", async () => {
    const { fake, metadata, migration } = source();
    migration.start(migratingVMI(), options());
    await expect.poll(() => fake.migrations.length).toBe(1);
    fake.failMigration("Unable to connect to the destination");
    await migration.running;
    expect(metadata.loadMigration()).toMatchObject({
      failed: true,
      failureReason: "Unable to connect to the destination",
      abortStatus: "",
    });
  });

  it("refuses a VMI without migration state, and fails on the functional tests' annotation", async () => {
    const { metadata, migration } = source();
    const notReady = migratingVMI();
    delete notReady.status?.migrationState;
    expect(() => migration.start(notReady, options())).toThrow(
      "cannot migrate VMI until migrationState is ready",
    );
    migration.start(
      migratingVMI({ "kubevirt.io/func-test-force-launcher-migration-failure": "" }),
      options(),
    );
    await migration.running;
    expect(metadata.loadMigration()).toMatchObject({
      failed: true,
      failureReason: "Failed migration to satisfy functional test condition",
    });
  });

  it("cancels: the job is aborted and the migration ends as aborted; a second cancel is a no-op", async () => {
    const { fake, metadata, migration } = source();
    expect(() => migration.cancel(migratingVMI())).toThrow(
      "failed to cancel migration - vmi is not migrating",
    );
    migration.start(migratingVMI(), options());
    await expect.poll(() => fake.migrations.length).toBe(1);
    migration.cancel(migratingVMI());
    migration.cancel(migratingVMI());
    await migration.running;
    expect(fake.calls.filter((call) => call.startsWith("abortJob"))).toEqual(["abortJob ns_vm"]);
    expect(metadata.loadMigration()).toMatchObject({
      failed: true,
      failureReason: "Live migration aborted ",
      abortStatus: "Succeeded",
      endTimestamp: expect.any(String),
    });
    expect((await fake.domainGetState({ name: "ns_vm", uuid: new Uint8Array(16), id: 1 })).state).toBe(
      libvirt.VIR_DOMAIN_RUNNING,
    );
  });

  it("aborts a migration that makes no progress for progressTimeout seconds", async () => {
    const { fake, metadata, migration } = source();
    migration.start(migratingVMI(), options({ ProgressTimeout: 5 }));
    await migration.running;
    expect(fake.calls).toContain("abortJob ns_vm");
    expect(metadata.loadMigration()).toMatchObject({
      failed: true,
      failureReason: "Live migration stuck for 6 seconds and has been aborted",
      abortStatus: "Succeeded",
    });
  });

  it("pauses the guest of a migration that takes too long when the workload may be disrupted", async () => {
    const { fake, metadata, migration, paused } = source();
    // 64Mi of memory is 1 GB by upstream's rounding: 2 seconds allowed.
    migration.start(migratingVMI(), options({ CompletionTimeoutPerGiB: 2, AllowWorkloadDisruption: true }));
    await expect.poll(() => metadata.loadMigration()?.mode).toBe("Paused");
    expect(fake.calls).toContain("suspend ns_vm");
    expect(paused).toEqual([migratingVMI().metadata?.uid]);
    fake.finishMigration();
    await migration.running;
    expect(metadata.loadMigration()?.endTimestamp).toEqual(expect.any(String));
  });
});

describe("watchIncomingMigration", () => {
  it("records the end once no incoming migration job remains", async () => {
    const fake = new FakeLibvirt();
    await fake.domainDefineXML("<domain><name>ns_vm</name></domain>");
    const metadata = new MetadataCache();
    initializeMigrationMetadata(metadata, "m1", "PreCopy", T0);
    let reads = 0;
    const connection: IncomingJobConnection = {
      domainLookupByName: (name: string) => fake.domainLookupByName(name),
      // The incoming job runs for three reads, then is gone.
      domainGetJobStats: () => {
        const running = ++reads <= 3;
        return Promise.resolve({
          type: running ? libvirt.VIR_DOMAIN_JOB_UNBOUNDED : libvirt.VIR_DOMAIN_JOB_NONE,
          params: running
            ? { operation: VIR_DOMAIN_JOB_OPERATION_MIGRATION_IN }
            : ({} as Record<string, number>),
        });
      },
    };
    await watchIncomingMigration(connection, "ns_vm", metadata, silentLogger, fakeClock());
    expect(reads).toBe(4);
    expect(metadata.loadMigration()).toMatchObject({ uid: "m1", endTimestamp: "2026-12-08T10:00:00Z" });
  });

  it("records the end anyway when the job never ends", async () => {
    const fake = new FakeLibvirt();
    await fake.domainDefineXML("<domain><name>ns_vm</name></domain>");
    const metadata = new MetadataCache();
    fake.job = { type: libvirt.VIR_DOMAIN_JOB_UNBOUNDED, params: { operation: 2 } };
    await watchIncomingMigration(fake, "ns_vm", metadata, silentLogger, fakeClock());
    expect(metadata.loadMigration()).toEqual({ endTimestamp: expect.any(String) });
  });
});
