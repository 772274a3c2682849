// virt-handler's migration source controller (upstream pkg/virt-handler/migration-source.go): for a VMI on
// this node whose migrationState names this node as the source, once the target published its ports it
// opens the source proxy in the launcher pod's share dir and asks the launcher to migrate, with the
// migration's resolved configuration or the cluster's; it cancels on abortRequested, copies the launcher's
// migration progress (start, end, failure, abort, mode) into migrationState, and fails the VMI when the
// target never reports the domain within 60 s after the end. The source listener stops once the migration
// is done or the VMI left this node.
import { resolveInRoot } from "../safepath/relative-root.js";
import type { MigrationConfiguration, VirtualMachineInstance } from "../api/generated/v1.js";
import { WorkQueue, keyOf, systemClock, type Clock, type SyncResult } from "../controller/index.js";
import { timestamp } from "../controller/conditions.js";
import { isBeingDeleted } from "../controller/object.js";
import { isFinal, VMIPhase as Phase } from "../controller/vmi-phase.js";
import { replacePVCByHostDisk } from "../host-disk/host-disk.js";
import { errorMessage } from "../util/error-message.js";
import { MigrationAbortStatus, type DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import type { LauncherCommands } from "./launcher-clients.js";
import {
  asError,
  POD_VIRT_SHARE_DIR,
  vmiChanged,
  type MigrationControllerOptions,
} from "./migration-controller-options.js";
import type { ProxyManager } from "./migration-proxy/migration-proxy.js";
import {
  domainAlive,
  isMigrationDone,
  isMigrationInProgress,
  migrationOptions,
  migrationProxyKey,
  VMIAbortingMigration,
  VMIMigrating,
} from "./migration-state.js";

/** How long the source waits after the migration's end for the target to report the running domain. */
export const MigrationTargetDelayTimeoutSeconds = 60;

export interface MigrationSourceOptions extends MigrationControllerOptions {
  proxy: Pick<ProxyManager, "startSourceListener" | "stopSourceListener">;
  /** The KubeVirt CR's spec.configuration.migrations, read at each migration; absent: upstream's defaults. */
  migrationConfiguration?: () => MigrationConfiguration | undefined;
  /** How often a migration in progress is looked at besides the launcher's domain events. */
  resyncMs?: number;
}

export class MigrationSourceController {
  private readonly queue: WorkQueue<string>;
  private readonly clock: Clock;
  /** UIDs of VMIs that left the cache (migrated away or deleted): their source listener goes. */
  private readonly gone = new Map<string, string>();

  constructor(private readonly opts: MigrationSourceOptions) {
    this.clock = opts.clock ?? systemClock;
    this.queue = new WorkQueue<string>({ name: "virt-handler-source", logger: opts.logger });
    opts.vmis.addEventHandler({
      add: (vmi) => this.queue.add(keyOf(vmi)),
      update: (_old, vmi) => this.queue.add(keyOf(vmi)),
      delete: (vmi) => {
        this.gone.set(keyOf(vmi), migrationProxyKey(vmi));
        this.queue.add(keyOf(vmi));
      },
    });
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    return this.queue.run(workers, (key) => this.sync(key), signal);
  }

  /** A domain event from a launcher. */
  enqueueKey(key: string): void {
    this.queue.add(key);
  }

  async sync(key: string): Promise<SyncResult> {
    const cached = this.opts.vmis.get(key);
    const goneUID = this.gone.get(key);
    this.gone.delete(key);
    if (!cached) {
      if (goneUID) await this.opts.proxy.stopSourceListener(goneUID);
      return;
    }
    if (isFinal(cached) || isBeingDeleted(cached)) return;
    const state = cached.status?.migrationState;
    if (!state) return;
    if (isMigrationDone(state)) {
      await this.opts.proxy.stopSourceListener(migrationProxyKey(cached));
      return;
    }
    if (!this.isMigrationSource(cached)) return;

    const launcher = await this.opts.launchers(cached).catch(() => undefined);
    const domain = launcher ? await launcher.getDomain() : undefined;
    const domainUID = domain?.spec.metadata?.kubeVirt.uid;
    // A domain of an older VMI of the same name still awaits its cleanup.
    if (domainUID && domainUID !== cached.metadata?.uid) return;

    const vmi = structuredClone(cached);
    let syncError: Error | undefined;
    let waiting = false;
    try {
      waiting = await this.process(vmi, domain, launcher);
    } catch (error) {
      syncError = asError(error);
      this.opts.recorder?.event(vmi, "Warning", "SyncFailed", syncError.message);
      this.opts.logger.error(
        { err: syncError, vmi: key },
        "Synchronizing the VirtualMachineInstance failed.",
      );
    }
    const timeoutCheckMs = this.updateStatus(vmi, domain);
    if (vmiChanged(cached, vmi)) await this.opts.updateVMI(vmi);
    if (syncError) throw syncError;
    const retries = [
      waiting ? (this.opts.retryMs ?? 1_000) : undefined,
      timeoutCheckMs,
      // Until the end is known; after it only the target's report (or the timeout) is awaited.
      vmi.status?.migrationState?.endTimestamp ? undefined : (this.opts.resyncMs ?? 5_000),
    ].filter((ms): ms is number => ms !== undefined);
    return retries.length > 0 ? { requeueAfter: Math.min(...retries) } : undefined;
  }

  private isMigrationSource(vmi: VirtualMachineInstance): boolean {
    const { host } = this.opts;
    return vmi.status?.nodeName === host && vmi.status.migrationState?.sourceNode === host;
  }

  /** Starts (or aborts) the migration; true when it waits for the launcher or the target's ports. */
  private async process(
    vmi: VirtualMachineInstance,
    domain: DomainObject | undefined,
    launcher: LauncherCommands | undefined,
  ): Promise<boolean> {
    if (!domainAlive(domain)) return false;
    if (!launcher) return true;
    const ms = vmi.status?.migrationState ?? {};
    if (ms.abortRequested) {
      await this.handleMigrationAbort(vmi, launcher);
      return false;
    }
    if (isMigrationInProgress(vmi, domain)) return false;
    if (!ms.targetDirectMigrationNodePorts) {
      this.opts.logger.debug({ vmi: keyOf(vmi) }, "waiting for target node to publish migration ports");
      return true;
    }
    try {
      const root = await this.opts.podRoot(vmi);
      await this.opts.proxy.startSourceListener(
        migrationProxyKey(vmi),
        ms.targetNodeAddress ?? "",
        ms.targetDirectMigrationNodePorts,
        await resolveInRoot(root, POD_VIRT_SHARE_DIR),
      );
    } catch (error) {
      throw new Error(`failed to handle migration proxy: ${errorMessage(error)}`, { cause: error });
    }
    const options = migrationOptions(vmi, this.opts.migrationConfiguration?.());
    this.opts.logger.info(
      { vmi: keyOf(vmi), options },
      `migration options matched for vmi ${vmi.metadata?.name ?? ""}`,
    );
    const launcherView = structuredClone(vmi);
    replacePVCByHostDisk(launcherView);
    await launcher.migrateVirtualMachine(launcherView, options);
    this.opts.recorder?.event(vmi, "Normal", "Migrating", VMIMigrating);
    return false;
  }

  private async handleMigrationAbort(vmi: VirtualMachineInstance, launcher: LauncherCommands): Promise<void> {
    const status = vmi.status?.migrationState?.abortStatus;
    if (status === MigrationAbortStatus.InProgress || status === MigrationAbortStatus.Succeeded) return;
    await launcher.cancelVirtualMachineMigration(vmi);
    this.opts.recorder?.event(vmi, "Normal", "Migrating", VMIAbortingMigration);
  }

  /** Upstream setMigrationProgressStatus: the launcher's account of this migration, into migrationState. */
  private setMigrationProgressStatus(vmi: VirtualMachineInstance, domain: DomainObject | undefined): void {
    const metadata = domain?.spec.metadata?.kubeVirt.migration;
    const ms = vmi.status?.migrationState;
    if (!metadata || !ms || metadata.uid !== ms.migrationUid) return;
    if (metadata.startTimestamp) ms.startTimestamp = metadata.startTimestamp;
    ms.failed = metadata.failed ?? false;
    if (metadata.failed) {
      ms.endTimestamp = metadata.endTimestamp;
      ms.failureReason = metadata.failureReason;
      this.opts.recorder?.event(
        vmi,
        "Warning",
        "Migrated",
        `VirtualMachineInstance migration uid ${metadata.uid ?? ""} failed. reason:${metadata.failureReason ?? ""}`,
      );
    }
    ms.abortStatus = metadata.abortStatus ?? "";
    if (metadata.abortStatus === MigrationAbortStatus.Succeeded) ms.endTimestamp = metadata.endTimestamp;
    ms.mode = metadata.mode;
  }

  /** Progress, then the verdicts upstream's updateStatus gives; the ms until the timeout is checked again. */
  private updateStatus(vmi: VirtualMachineInstance, domain: DomainObject | undefined): number | undefined {
    this.setMigrationProgressStatus(vmi, domain);
    const ms = vmi.status?.migrationState;
    if (!vmi.status || !ms) return undefined;
    const { detected, secondsLeft } = this.targetDetectedReadyDomain(vmi);
    const fail = (message: string, log: string) => {
      vmi.status!.phase = Phase.Failed;
      ms.completed = true;
      ms.failed = true;
      ms.endTimestamp ??= timestamp(this.clock.now());
      this.opts.logger.warn({ vmi: keyOf(vmi) }, log);
      this.opts.recorder?.event(vmi, "Warning", "Migrated", message);
    };
    if (!ms.targetNode) {
      fail("The VirtualMachineInstance migrated to unknown host.", "the vmi migrated to an unknown host");
      return undefined;
    }
    if (detected || secondsLeft === undefined) return undefined;
    if (secondsLeft <= 0) {
      fail(
        "The VirtualMachineInstance's domain was never observed on the target after the migration completed within the timeout period.",
        "the domain was never observed on the target after the migration completed within the timeout period",
      );
      return undefined;
    }
    return Math.max(secondsLeft, 5) * 1000;
  }

  /**
   * Upstream hasTargetDetectedReadyDomain: whether the target reported the running domain, else the seconds
   * left (undefined while the migration has not ended). The targetState mirrors or the flat fields count.
   */
  private targetDetectedReadyDomain(vmi: VirtualMachineInstance): {
    detected: boolean;
    secondsLeft?: number;
  } {
    const ms = vmi.status?.migrationState;
    if (!ms?.endTimestamp) return { detected: false };
    const detected = ms.targetState?.domainDetected ?? ms.targetNodeDomainDetected;
    const ready = ms.targetState?.domainReadyTimestamp ?? ms.targetNodeDomainReadyTimestamp;
    if (detected && ready) return { detected: true };
    const elapsed = Math.floor(this.clock.now() / 1000) - Math.floor(Date.parse(ms.endTimestamp) / 1000);
    return { detected: false, secondsLeft: Math.max(MigrationTargetDelayTimeoutSeconds - elapsed, 0) };
  }
}
