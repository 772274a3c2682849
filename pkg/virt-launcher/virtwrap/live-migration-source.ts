// The source launcher's side of a live migration (upstream live-migration-source.go): MigrateVMI
// records the attempt in the migration metadata and lets libvirt migrate the domain peer to peer in
// the background, watched by the migration monitor; CancelVMIMigration aborts libvirt's job. The
// outcome reaches virt-handler through the metadata, which every domain notification carries.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { MigrationAbortStatus, MigrationMode } from "./api/domain-object.js";
import { unmarshalDomainXML } from "./api/domain-xml.js";
import type { DomainConnection } from "./domain-connection.js";
import type { MigrationOptions } from "./live-migration-params.js";
import {
  FuncTestForceLauncherMigrationFailureAnnotation,
  destinationURI,
  generateMigrationFlags,
  generateMigrationParams,
  isBlockMigration,
  migrationDataSizeGB,
  migrationUID,
} from "./live-migration-params.js";
import {
  CANCEL_MIGRATION_FAILED_NOT_MIGRATING,
  MigrationAbortInProgressError,
  initializeMigrationMetadata,
  setMigrationResult,
} from "./migration-metadata.js";
import type { Clock } from "./migration-monitor.js";
import { LIVE_MIGRATION_FAILED, MigrationMonitor, realClock } from "./migration-monitor.js";
import type { MetadataCache } from "./metadata-cache.js";
import { domainName } from "./vmi-state.js";

export interface MigrationSourceOptions {
  connection: DomainConnection;
  metadata: MetadataCache;
  virtShareDir: string;
  log: Logger;
  /** Runs work that changes the domain under the manager's lock (upstream domainModifyLock). */
  exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  /** The guest stays paused after the migration (it was paused so that the migration completes). */
  markPaused: (uid: string) => void;
  clock?: Clock;
}

export class MigrationSource {
  /** The migration running in the background, for whoever must wait for its end (tests, shutdown). */
  running: Promise<void> | undefined;

  constructor(private readonly options: MigrationSourceOptions) {}

  private get clock(): Clock {
    return this.options.clock ?? realClock;
  }

  private now(): Date {
    return new Date(this.clock.now());
  }

  /** Upstream startMigration: refuses what cannot migrate, then starts it once per migration uid. */
  start(vmi: VirtualMachineInstance, options: MigrationOptions): void {
    const backup = vmi.status?.changedBlockTracking?.backupStatus;
    if (backup) throw new Error(`cannot migrate VMI until backup ${backup.backupName} is completed`);
    if (!vmi.status?.migrationState) throw new Error("cannot migrate VMI until migrationState is ready");
    const inProgress = initializeMigrationMetadata(
      this.options.metadata,
      migrationUID(vmi),
      MigrationMode.PreCopy,
      this.now(),
    );
    if (inProgress) return;
    this.running = this.migrate(vmi, options);
  }

  private async migrate(vmi: VirtualMachineInstance, options: MigrationOptions): Promise<void> {
    const { log, metadata, connection } = this.options;
    if (vmi.metadata?.annotations?.[FuncTestForceLauncherMigrationFailureAnnotation] !== undefined) {
      log.error("Live migration failed. Failure is forced by functional tests suite.");
      this.result(true, "Failed migration to satisfy functional test condition", "");
      return;
    }
    log.info("Initiating live migration.");
    if (options.UnsafeMigration) {
      log.info("UNSAFE_MIGRATION flag is set, libvirt's migration checks will be disabled!");
    }
    const monitor = new MigrationMonitor({
      connection,
      metadata,
      vmi,
      domainName: domainName(vmi),
      options,
      acceptableCompletionTime: options.CompletionTimeoutPerGiB * migrationDataSizeGB(vmi),
      markPaused: () => this.options.markPaused(vmi.metadata?.uid ?? ""),
      log,
      clock: this.clock,
    });
    const monitoring = monitor.run();
    try {
      await this.migrateHelper(vmi, options);
      log.info("Live migration succeeded.");
    } catch (error) {
      log.error({ err: error }, LIVE_MIGRATION_FAILED);
      monitor.reportError(error instanceof Error ? error : new Error(String(error)));
    }
    await monitoring;
  }

  /** Upstream migrateHelper: the parameters under the domain lock, then the migration itself. */
  private async migrateHelper(vmi: VirtualMachineInstance, options: MigrationOptions): Promise<void> {
    const { connection, virtShareDir, log } = this.options;
    const dom = await connection.domainLookupByName(domainName(vmi));
    let migratePaused: boolean;
    try {
      migratePaused = (await connection.domainGetState(dom)).state === libvirt.VIR_DOMAIN_PAUSED;
    } catch {
      throw new Error("failed to retrive domain state");
    }
    const flags = generateMigrationFlags(isBlockMigration(vmi), migratePaused, options);
    // Host devices would be unplugged here (upstream prepareDomainForMigration); this port has none.
    const params = await this.options.exclusive(async () => {
      const disks = unmarshalDomainXML(await connection.domainGetXMLDesc(dom, 0)).devices.disks ?? [];
      const xml = await connection.domainGetXMLDesc(dom, libvirt.VIR_DOMAIN_XML_MIGRATABLE);
      return generateMigrationParams(vmi, options, virtShareDir, xml, disks);
    });
    const uri = destinationURI(vmi, virtShareDir);
    try {
      await connection.domainMigrateToURI3(dom, uri, params, flags);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.result(true, message, "");
      log.error(`migration failed with error: ${message}`);
      throw new Error(`error encountered during MigrateToURI3 libvirt api call: ${message}`, {
        cause: error,
      });
    }
    log.info("migration completed successfully");
    this.result(false, "", "");
  }

  private result(failed: boolean, reason: string, abortStatus: string): void {
    try {
      setMigrationResult(this.options.metadata, failed, reason, abortStatus, this.now());
    } catch (error) {
      if (!(error instanceof MigrationAbortInProgressError)) throw error;
    }
  }

  /** Upstream cancelMigration: marks the abort in progress and aborts libvirt's job in the background. */
  cancel(vmi: VirtualMachineInstance): void {
    const { metadata } = this.options;
    const migration = metadata.loadMigration();
    if (
      migration?.endTimestamp !== undefined ||
      migration?.failed === true ||
      migration?.startTimestamp === undefined
    ) {
      throw new Error(CANCEL_MIGRATION_FAILED_NOT_MIGRATING);
    }
    try {
      setMigrationResult(metadata, false, "", MigrationAbortStatus.InProgress, this.now());
    } catch (error) {
      if (error instanceof MigrationAbortInProgressError) return;
      throw error;
    }
    void this.abort(vmi);
  }

  /** Upstream asyncMigrationAbort. */
  private async abort(vmi: VirtualMachineInstance): Promise<void> {
    const { connection, metadata, log } = this.options;
    let dom;
    try {
      dom = await connection.domainLookupByName(domainName(vmi));
    } catch (error) {
      log.warn({ err: error }, "failed to cancel migration, domain not found ");
      return;
    }
    let jobType: number;
    try {
      jobType = (await connection.domainGetJobInfo(dom)).type;
    } catch (error) {
      log.error({ err: error }, "failed to get domain job info");
      return;
    }
    if (jobType !== libvirt.VIR_DOMAIN_JOB_UNBOUNDED) return;
    try {
      await connection.domainAbortJob(dom);
    } catch (error) {
      log.error({ err: error }, "failed to cancel migration");
      setMigrationResult(metadata, false, "", MigrationAbortStatus.Failed, this.now());
      return;
    }
    this.result(true, "Live migration aborted ", MigrationAbortStatus.Succeeded);
    log.info("Live migration abort succeeded");
  }
}
