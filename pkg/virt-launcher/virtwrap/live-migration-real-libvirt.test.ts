// Live migration between two real session-mode libvirtds (Debian's packages, installed if missing),
// as two launcher pods on two nodes would do it: the source launcher's domain manager migrates its
// small TCG domain peer to peer, libvirt reaching the target's daemon through a unix socket proxy
// where virt-handler's migration proxy would listen (qemu+unix:///session?socket=...). The
// target's QEMU listens for the memory stream on the unix path the source names in migrate_uri
// and the source's QEMU connects to it directly: on one machine both pods' share dirs are one
// filesystem, so the handler's second proxy has no place of its own here.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/log.js";
import { LibvirtClient } from "../../libvirt/client.js";
import type { DomainEvent } from "../../libvirt/client.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { startSessionDaemon } from "../../libvirt/testdata/session-daemon.js";
import type { SessionDaemon } from "../../libvirt/testdata/session-daemon.js";
import { runnable, unlessRoot } from "../../testutils/requirement.js";
import { isMigratedInEvent as isMigratedInLifecycle } from "../notify-client/domain-notifier.js";
import type { LauncherLayout } from "../layout.js";
import { layoutUnder } from "../layout.js";
import { defaultedVMI } from "./converter/testing.js";
import { MigrationOptionsSchema } from "./live-migration-params.js";
import { watchIncomingMigration } from "./live-migration-target.js";
import { LibvirtDomainManager } from "./manager.js";
import { MetadataCache } from "./metadata-cache.js";
import { MIGRATION_PROXY_DIR, sourceUnixFile } from "../../util/migration-proxy/keys.js";
import { SessionDaemonPreparation } from "./testing/session-preparation.js";

const installScript = fileURLToPath(new URL("../../libvirt/testdata/install-libvirt.sh", import.meta.url));
// starting private libvirtds as another uid needs root
const isRoot = runnable("the live migration tests with real libvirtds", unlessRoot());
// Both daemons run as QEMU's user of a launcher pod, as upstream's non-root pods do.
const DAEMON_UID = 61806;
const DOMAIN = "mig_vm";

const isMigratedInEvent = (event: DomainEvent): boolean =>
  event.kind === "lifecycle" && isMigratedInLifecycle(event);

function vmi(migrationUid: string): VirtualMachineInstance {
  const result = defaultedVMI(
    {
      domain: {
        devices: {
          autoattachPodInterface: false,
          autoattachGraphicsDevice: false,
          // The console socket's path would be the same in both daemons' domains on one machine.
          autoattachSerialConsole: false,
        },
        resources: { requests: { memory: "64Mi" } },
      },
    },
    { name: "vm", namespace: "mig" },
  );
  result.status = { ...result.status, migrationTransport: "Unix", migrationState: { migrationUid } };
  return result;
}

interface Side {
  daemon: SessionDaemon;
  client: LibvirtClient;
  layout: LauncherLayout;
  metadata: MetadataCache;
  manager: LibvirtDomainManager;
}

async function startSide(): Promise<Side> {
  const daemon = await startSessionDaemon({ uid: DAEMON_UID });
  const client = await LibvirtClient.connect(daemon.socketPath);
  await client.connectOpen("qemu:///session");
  const base = mkdtempSync(join(tmpdir(), "kvts-migration-"));
  chmodSync(base, 0o755); // QEMU, as the daemon's uid, walks into it
  const layout = layoutUnder(base);
  const metadata = new MetadataCache();
  const manager = new LibvirtDomainManager({
    connection: client,
    preparation: new SessionDaemonPreparation(layout, DAEMON_UID),
    metadata,
    layout,
    log: silentLogger,
    setFileOwnership: (path) => Promise.resolve(chownSync(path, DAEMON_UID, DAEMON_UID)),
  });
  return { daemon, client, layout, metadata, manager };
}

/** What virt-handler's proxy does for the libvirt connection: the source's socket reaches the target's daemon. */
async function proxyTo(socketPath: string, targetSocket: string): Promise<Server> {
  const server = createServer((incoming) => {
    const outgoing = connect(targetSocket);
    incoming.pipe(outgoing).pipe(incoming);
    incoming.on("error", () => outgoing.destroy());
    outgoing.on("error", () => incoming.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  chmodSync(socketPath, 0o777);
  return server;
}

describe.runIf(isRoot)("live migration between two real libvirtds", () => {
  let source: Side;
  let target: Side;
  let proxy: Server;
  const targetEvents: DomainEvent[] = [];

  beforeAll(async () => {
    execFileSync(installScript, { stdio: "pipe" });
    source = await startSide();
    target = await startSide();
    await target.client.subscribeDomainEvents(libvirt.VIR_DOMAIN_EVENT_ID_LIFECYCLE, null, (event) => {
      targetEvents.push(event);
      // The target launcher's notifier starts the incoming-migration watch on this event.
      if (isMigratedInEvent(event)) {
        void watchIncomingMigration(target.client, DOMAIN, target.metadata, silentLogger);
      }
    });
    // virt-handler makes the source's proxy sockets; the target's launcher makes its own dir.
    const dir = join(source.layout.virtShareDir, MIGRATION_PROXY_DIR);
    mkdirSync(dir, { recursive: true });
    chownSync(dir, DAEMON_UID, DAEMON_UID);
    const uid = vmi("").metadata?.uid ?? "";
    proxy = await proxyTo(sourceUnixFile(source.layout.virtShareDir, uid), target.daemon.socketPath);
    await source.manager.syncVMI(vmi(""), true, null);
  }, 300_000);

  afterAll(async () => {
    proxy?.close();
    for (const side of [source, target]) {
      if (!side) continue;
      await side.client.close();
      await side.daemon.stop();
      rmSync(join(side.layout.virtShareDir, ".."), { recursive: true, force: true });
    }
  }, 60_000);

  it("cancels a running migration: the job is aborted and the guest stays on the source", async () => {
    const migrating = vmi("mig-cancelled");
    await target.manager.prepareMigrationTarget(migrating, true, null);
    // 1 MiB/s: the 64 MiB guest takes about a minute, time enough to cancel it.
    const options = MigrationOptionsSchema.parse({ Bandwidth: "1Mi" });
    await source.manager.migrateVMI(migrating, options);
    const dom = await source.client.domainLookupByName(DOMAIN);
    await expect
      .poll(async () => (await source.client.domainGetJobInfo(dom)).type, { timeout: 30_000, interval: 200 })
      .toBe(libvirt.VIR_DOMAIN_JOB_UNBOUNDED);
    await source.manager.cancelVMIMigration(migrating);
    await source.manager.migrationSource.running;
    expect(source.metadata.loadMigration()).toMatchObject({
      uid: "mig-cancelled",
      failed: true,
      abortStatus: "Succeeded",
      endTimestamp: expect.any(String),
    });
    expect((await source.client.domainGetState(dom)).state).toBe(libvirt.VIR_DOMAIN_RUNNING);
    await expect(target.client.domainLookupByName(DOMAIN)).rejects.toThrow(/Domain not found/);
  }, 120_000);

  it("migrates the running domain to the target, where it runs, and records the end on both sides", async () => {
    const migrating = vmi("mig-done");
    await target.manager.prepareMigrationTarget(migrating, true, null);
    expect(target.metadata.loadMigration()).toMatchObject({ uid: "mig-done", mode: "PreCopy" });
    const options = MigrationOptionsSchema.parse({ ProgressTimeout: 150, CompletionTimeoutPerGiB: 150 });
    const started = Date.now();
    await source.manager.migrateVMI(migrating, options);
    await source.manager.migrationSource.running;
    const took = Date.now() - started;
    const sourceDomain = await source.client.domainLookupByName(DOMAIN);
    // libvirt keeps the finished job's statistics on the source: the guest's downtime among them.
    const { params } = await source.client.domainGetJobStats(
      sourceDomain,
      libvirt.VIR_DOMAIN_JOB_STATS_COMPLETED,
    );
    console.log(
      `live migration of the 64 MiB TCG guest: ${took} ms through the manager, ` +
        `libvirt's job ${String(params["time_elapsed"])} ms, downtime ${String(params["downtime"])} ms`,
    );

    const migration = source.metadata.loadMigration();
    expect(migration).toMatchObject({ uid: "mig-done", mode: "PreCopy", endTimestamp: expect.any(String) });
    expect(migration?.failed).toBeUndefined();
    // Gone from the source: shut off because it migrated (still defined, as upstream's flags leave it).
    expect(await source.client.domainGetState(sourceDomain)).toEqual({
      state: libvirt.VIR_DOMAIN_SHUTOFF,
      reason: libvirt.VIR_DOMAIN_SHUTOFF_MIGRATED,
    });
    const [reported] = await source.manager.listAllDomains();
    expect(reported?.status).toEqual({ status: "Shutoff", reason: "Migrated" });
    expect(reported?.spec.metadata?.kubeVirt.migration?.endTimestamp).toBe(migration?.endTimestamp);

    // Running on the target, persistently defined there, and its launcher recorded the end too.
    const targetDom = await target.client.domainLookupByName(DOMAIN);
    expect(await target.client.domainGetState(targetDom)).toEqual({
      state: libvirt.VIR_DOMAIN_RUNNING,
      reason: libvirt.VIR_DOMAIN_RUNNING_MIGRATED,
    });
    const persistent = await target.client.rpc.remote("REMOTE_PROC_DOMAIN_IS_PERSISTENT", { dom: targetDom });
    expect(persistent.persistent).toBe(1);
    await expect
      .poll(() => target.metadata.loadMigration()?.endTimestamp, { timeout: 20_000 })
      .toEqual(expect.any(String));
    const [arrived] = await target.manager.listAllDomains();
    // Upstream reports no reason for a running domain (libvirt's RUNNING_MIGRATED reads as Unknown).
    expect(arrived?.status).toEqual({ status: "Running", reason: "Unknown" });
    expect(arrived?.spec.metadata?.kubeVirt).toMatchObject({ uid: migrating.metadata?.uid });
    expect(targetEvents.filter(isMigratedInEvent)).toHaveLength(1);
  }, 120_000);
});
