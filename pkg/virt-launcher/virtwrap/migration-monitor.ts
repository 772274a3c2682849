// Watches an outgoing migration (upstream live-migration-source.go's migrationMonitor): every
// 400 ms it reads the domain's job, and aborts a migration that made no progress for
// progressTimeout seconds or ran longer than completionTimeoutPerGiB allows (or, if the workload may
// be disrupted, switches it to post-copy or pauses the guest so it can finish). It writes the
// outcome into the migration metadata when the migration call itself could not.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { LibvirtError } from "../../libvirt/errors.js";
import { VIR_DOMAIN_JOB_DATA_REMAINING } from "../../libvirt/migrate.js";
import type { LibvirtClient } from "../../libvirt/client.js";
import type { Domain as LibvirtDomain } from "../../libvirt/domain-events.js";
import { MigrationAbortStatus, MigrationMode } from "./api/domain-object.js";
import type { MigrationOptions } from "./live-migration-params.js";
import { migrationUID } from "./live-migration-params.js";
import { setMigrationResult } from "./migration-metadata.js";
import type { MetadataCache } from "./metadata-cache.js";

export const LIVE_MIGRATION_FAILED = "Live migration failed.";
const MONITOR_SLEEP_PERIOD_MS = 400;
const MONITOR_LOG_INTERVAL = 4000 / MONITOR_SLEEP_PERIOD_MS;

export type MonitorConnection = Pick<
  LibvirtClient,
  | "domainAbortJob"
  | "domainGetJobStats"
  | "domainGetState"
  | "domainLookupByName"
  | "domainMigrateStartPostCopy"
  | "domainSuspend"
>;

export interface Clock {
  /** Milliseconds. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** What to do about a running migration. */
export type InflightAction =
  | { kind: "none" }
  | { kind: "start-post-copy" }
  | { kind: "pause-guest" }
  | { kind: "abort"; message: string };

export interface InflightState {
  elapsedMs: number;
  sinceProgressMs: number;
  mode: string | undefined;
  /** Seconds; 0: no limit. */
  acceptableCompletionTime: number;
  options: MigrationOptions;
}

const shouldTriggerTimeout = (state: InflightState): boolean =>
  state.acceptableCompletionTime !== 0 && Math.floor(state.elapsedMs / 1000) > state.acceptableCompletionTime;

/** Upstream processInflightMigration's decision, in its order. */
export function decideInflight(state: InflightState): InflightAction {
  // Post-copy runs the guest on the target already: aborting now would lose it.
  if (state.mode === MigrationMode.PostCopy) return { kind: "none" };
  if (
    state.options.AllowWorkloadDisruption &&
    shouldTriggerTimeout(state) &&
    state.mode !== MigrationMode.Paused
  ) {
    return state.options.AllowPostCopy ? { kind: "start-post-copy" } : { kind: "pause-guest" };
  }
  const stuckSeconds = Math.floor(state.sinceProgressMs / 1000);
  if (state.options.ProgressTimeout !== 0 && stuckSeconds > state.options.ProgressTimeout) {
    return {
      kind: "abort",
      message: `Live migration stuck for ${stuckSeconds} seconds and has been aborted`,
    };
  }
  if (shouldTriggerTimeout(state)) {
    return {
      kind: "abort",
      message: `Live migration is not completed after ${state.acceptableCompletionTime} seconds and has been aborted`,
    };
  }
  return { kind: "none" };
}

export interface MigrationMonitorOptions {
  connection: MonitorConnection;
  metadata: MetadataCache;
  vmi: VirtualMachineInstance;
  domainName: string;
  options: MigrationOptions;
  /** Seconds the migration may take; 0: no limit. */
  acceptableCompletionTime: number;
  /** The guest was paused so that the migration completes: it stays paused on the target. */
  markPaused: () => void;
  log: Logger;
  clock?: Clock;
}

export class MigrationMonitor {
  private readonly clock: Clock;
  private start = 0;
  private lastProgressUpdate = 0;
  private progressWatermark = 0n;
  private remainingData = 0n;
  private acceptableCompletionTime: number;
  private receivedError: Error | undefined;
  private failedWithError: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: MigrationMonitorOptions) {
    this.clock = options.clock ?? realClock;
    this.acceptableCompletionTime = options.acceptableCompletionTime;
  }

  /** The migration call failed: the monitor checks the job once more, then reports the error. */
  reportError(error: Error): void {
    this.receivedError = error;
    this.wake?.();
  }

  private now = (): Date => new Date(this.clock.now());

  private result(failed: boolean, reason: string, abortStatus: string): void {
    try {
      setMigrationResult(this.options.metadata, failed, reason, abortStatus, this.now());
    } catch (error) {
      this.options.log.info({ err: error }, "migration result not recorded");
    }
  }

  private sleepOrError(): Promise<void> {
    if (this.receivedError && !this.failedWithError) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      void this.clock.sleep(MONITOR_SLEEP_PERIOD_MS).then(resolve);
    }).then(() => {
      this.wake = undefined;
    });
  }

  /** Runs until the migration's outcome is in the metadata. */
  async run(): Promise<void> {
    const { connection, metadata, domainName, log } = this.options;
    this.start = this.clock.now();
    this.lastProgressUpdate = this.start;
    let dom: LibvirtDomain;
    try {
      dom = await connection.domainLookupByName(domainName);
    } catch (error) {
      log.error({ err: error }, LIVE_MIGRATION_FAILED);
      this.result(true, String((error as Error).message), "");
      return;
    }
    let completedJob: { type: number } | undefined;
    let logInterval = 0;
    // Upstream loops for the launcher's lifetime; here the loop ends once the outcome is recorded.
    while (metadata.loadMigration()?.endTimestamp === undefined) {
      await this.sleepOrError();
      const error = this.receivedError;
      if (error && !this.failedWithError) {
        log.error({ err: error }, "Received a live migration error. Will check the latest migration status.");
        this.failedWithError = error;
      } else if (this.failedWithError) {
        this.reportFailure(this.failedWithError);
        return;
      }
      let job = completedJob;
      if (!job) {
        try {
          const stats = await connection.domainGetJobStats(dom, 0);
          const remaining = stats.params[VIR_DOMAIN_JOB_DATA_REMAINING];
          if (typeof remaining === "bigint") this.remainingData = remaining;
          job = stats;
        } catch (failure) {
          log.warn({ err: failure }, "failed to get domain job info, will retry");
          continue;
        }
      }
      switch (job.type) {
        case libvirt.VIR_DOMAIN_JOB_UNBOUNDED: {
          const aborted = await this.processInflight(dom);
          if (aborted) {
            log.error(`Live migration abort detected with reason: ${aborted}`);
            this.result(true, aborted, MigrationAbortStatus.Succeeded);
            return;
          }
          if (++logInterval % MONITOR_LOG_INTERVAL === 0) {
            log.info(
              { migration: migrationUID(this.options.vmi), remaining: String(this.remainingData) },
              "Migration info",
            );
          }
          break;
        }
        case libvirt.VIR_DOMAIN_JOB_NONE:
          completedJob = await this.determineNonRunningStatus(dom);
          break;
        case libvirt.VIR_DOMAIN_JOB_CANCELLED:
          log.info("Migration was canceled");
          this.result(true, "Live migration aborted ", MigrationAbortStatus.Succeeded);
          return;
      }
    }
  }

  private reportFailure(error: Error): void {
    const { log, vmi } = this.options;
    log.info("Didn't manage to get a job status. Post the received error and finalize.");
    log.error({ err: error }, LIVE_MIGRATION_FAILED);
    const abortStatus = error.message.includes("canceled by client") ? MigrationAbortStatus.Succeeded : "";
    if (
      (vmi.status?.migratedVolumes?.length ?? 0) > 0 &&
      error.message.includes("has to be smaller or equal to the actual size of the containing file")
    ) {
      this.result(
        true,
        `Volume migration cannot be performed because the destination volume is smaller then the source volume: ${error.message}`,
        abortStatus,
      );
      return;
    }
    this.result(true, `Live migration failed ${error.message}`, abortStatus);
  }

  /** Upstream determineNonRunningMigrationStatus: a job that ended before its outcome was seen. */
  private async determineNonRunningStatus(dom: LibvirtDomain): Promise<{ type: number } | undefined> {
    const { connection, metadata, log } = this.options;
    if (this.lastProgressUpdate > this.start) {
      log.info(
        "Migration job has probably completed before we could capture the status. Getting latest status.",
      );
      if (metadata.loadMigration()?.abortStatus === MigrationAbortStatus.InProgress) {
        log.info("Migration job was canceled");
        return { type: libvirt.VIR_DOMAIN_JOB_CANCELLED };
      }
      try {
        const { state } = await connection.domainGetState(dom);
        if (state === libvirt.VIR_DOMAIN_RUNNING) {
          log.info("Migration job failed");
          return { type: libvirt.VIR_DOMAIN_JOB_FAILED };
        }
      } catch (error) {
        const gone =
          error instanceof LibvirtError &&
          (error.code === libvirt.VIR_ERR_NO_DOMAIN || error.code === libvirt.VIR_ERR_OPERATION_INVALID);
        if (gone) {
          log.info("domain is not running on this node");
          return undefined;
        }
        log.error({ err: error }, "failed to get domain state");
      }
    }
    log.info("Migration job didn't start yet");
    return undefined;
  }

  /** Acts on a running migration; the abort's message when it was aborted. */
  private async processInflight(dom: LibvirtDomain): Promise<string | undefined> {
    const { connection, metadata, log, options } = this.options;
    const now = this.clock.now();
    if (this.progressWatermark === 0n || this.remainingData < this.progressWatermark) {
      this.lastProgressUpdate = now;
    }
    this.progressWatermark = this.remainingData;
    const action = decideInflight({
      elapsedMs: now - this.start,
      sinceProgressMs: now - this.lastProgressUpdate,
      mode: metadata.loadMigration()?.mode,
      acceptableCompletionTime: this.acceptableCompletionTime,
      options,
    });
    try {
      switch (action.kind) {
        case "none":
          return undefined;
        case "start-post-copy":
          log.info("Starting post copy mode for migration");
          await connection.domainMigrateStartPostCopy(dom, 0);
          this.setMode(MigrationMode.PostCopy);
          return undefined;
        case "pause-guest":
          log.info("Pausing the guest to allow migration to complete");
          await connection.domainSuspend(dom);
          // Pausing buys time: the limit doubles so that the paused migration is not aborted at once.
          this.acceptableCompletionTime *= 2;
          this.options.markPaused();
          this.setMode(MigrationMode.Paused);
          return undefined;
        case "abort":
          if (action.message.includes("stuck")) log.warn(action.message);
          await connection.domainAbortJob(dom);
          return action.message;
      }
    } catch (error) {
      log.error({ err: error }, `failed to ${action.kind} for the migration`);
      return undefined;
    }
  }

  private setMode(mode: string): void {
    this.options.metadata.updateMigration((migration) => ({ ...migration, mode }));
  }
}
