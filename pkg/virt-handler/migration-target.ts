// virt-handler's migration target controller (upstream pkg/virt-handler/migration-target.go): for a VMI
// labelled kubevirt.io/migrationTargetNodeName=<this node> it prepares the target launcher pod (container
// disks, pod network, hostDisks, SyncMigrationTarget), opens the target proxy onto the pod's libvirt and
// migration sockets and publishes its address and ports for the source; it reports the migrated domain as
// it shows up, takes the VMI over once the migration ended with the domain running here (node name and
// labels), finalizes it in the launcher, and cleans up (listener, label; on failure what it prepared).
// The domain is read from the launcher at each sync; domain events only enqueue the VMI.
import {
  CreateMigrationTargetAnnotation,
  EvictionSourceAnnotation,
  MigrationTargetNodeNameLabel,
  MigrationTransportUnix,
} from "../util/constants.js";
import { resolveInRoot } from "../safepath/relative-root.js";
import type { VirtualMachineInstance, VirtualMachineInstanceMigrationState } from "../api/generated/v1.js";
import { WorkQueue, systemClock, type Clock, type SyncResult } from "../controller/index.js";
import { removeCondition, timestamp } from "../controller/conditions.js";
import { isBeingDeleted } from "../controller/object.js";
import { isFinal, isMigrating, VMIPhase as Phase } from "../controller/vmi-phase.js";
import { replacePVCByHostDisk } from "../host-disk/host-disk.js";
import { NodeNameLabel, OutdatedLauncherImageLabel } from "../util/constants.js";
import { errorMessage } from "../util/error-message.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import type { ContainerDiskMounter } from "./container-disk/mount.js";
import type { HostDiskSetup } from "./host-disks.js";
import type { LauncherCommands } from "./launcher-clients.js";
import {
  asError,
  POD_LIBVIRT_SOCKET,
  POD_VIRT_SHARE_DIR,
  vmiChanged,
  type MigrationControllerOptions,
} from "./migration-controller-options.js";
import type { ProxyManager } from "./migration-proxy/migration-proxy.js";
import { constructProxyKey, getMigrationPortsList, sourceUnixFile } from "../util/migration-proxy/keys.js";
import {
  domainAlive,
  domainIsActiveOnTarget,
  domainPausedFailedPostCopy,
  isBlockMigration,
  isMigrationDone,
  migrationNeedsFinalization,
  migrationProxyKey,
  VMIMigrationTargetPrepared,
} from "./migration-state.js";
import type { VMINetworkSetup } from "./network-setup.js";
import type { NotifyPipes } from "./notify-server/pipe.js";

const MigrationRequiredCondition = "MigrationRequired";

export interface MigrationTargetOptions extends MigrationControllerOptions {
  proxy: Pick<ProxyManager, "startTargetListener" | "getTargetListenerPorts" | "stopTargetListener">;
  /** The address the source handler reaches this node's target listeners at. */
  migrationIpAddress: string;
  containerDisks?: Pick<ContainerDiskMounter, "mountAndVerify" | "unmount">;
  network?: VMINetworkSetup;
  hostDisks?: HostDiskSetup;
  /** Relays the target launcher's domain events to the notify server; absent: none. */
  notifyPipes?: Pick<NotifyPipes, "ensure">;
  /** How often a migration in progress is looked at besides domain events. */
  resyncMs?: number;
}

type MigrationState = VirtualMachineInstanceMigrationState;

export class MigrationTargetController {
  private readonly queue: WorkQueue<string>;
  private readonly clock: Clock;

  constructor(private readonly opts: MigrationTargetOptions) {
    this.clock = opts.clock ?? systemClock;
    this.queue = new WorkQueue<string>({ name: "virt-handler-target", logger: opts.logger });
    const enqueue = (vmi: VirtualMachineInstance) => this.queue.add(vmiKey(vmi));
    opts.vmis.addEventHandler({ add: enqueue, update: (_old, vmi) => enqueue(vmi), delete: enqueue });
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
    if (!cached) return;
    if (isFinal(cached) || isBeingDeleted(cached)) {
      await this.bestEffortCleanup(cached);
      return;
    }
    const state = cached.status?.migrationState;
    if (!state || cached.metadata?.labels?.[MigrationTargetNodeNameLabel] !== this.opts.host) return;

    const launcher = await this.opts.launchers(cached).catch(() => undefined);
    const domain = launcher ? await launcher.getDomain() : undefined;
    // A stopped domain here is the launcher's business (upstream leaves it alone too).
    if (domain && !domainAlive(domain)) return;

    const vmi = structuredClone(cached);
    const ms = migrationStateOf(vmi);
    if (ms.endTimestamp && (ms.completed || ms.failed))
      return this.finalCleanup(cached, vmi, domain, launcher);

    if (migrationNeedsFinalization(ms) && !domainIsActiveOnTarget(domain)) {
      this.opts.logger.info(
        { vmi: key },
        "migration ended but domain is not active on target, marking as failed",
      );
      ms.failed = true;
      ms.completed = true;
    }
    let syncError: Error | undefined;
    let waiting = false;
    try {
      waiting = await this.process(vmi, launcher);
    } catch (error) {
      syncError = asError(error);
      this.opts.recorder?.event(vmi, "Warning", "SyncFailed", syncError.message);
      this.opts.logger.error(
        { err: syncError, vmi: key },
        "Synchronizing the VirtualMachineInstance failed.",
      );
    }
    waiting = this.updateStatus(vmi, domain) || waiting;
    if (vmiChanged(cached, vmi)) await this.opts.updateVMI(vmi);
    if (syncError) throw syncError;
    if (waiting) return { requeueAfter: this.retryMs };
    // Looked at again while the migration runs, should a domain event be lost.
    return isMigrationDone(vmi.status?.migrationState) ? undefined : { requeueAfter: this.resyncMs };
  }

  private get resyncMs(): number {
    return this.opts.resyncMs ?? 5_000;
  }

  private get retryMs(): number {
    return this.opts.retryMs ?? 1_000;
  }

  /** Prepares the target once; true when it has to wait and look again. */
  private async process(
    vmi: VirtualMachineInstance,
    launcher: LauncherCommands | undefined,
  ): Promise<boolean> {
    const ms = migrationStateOf(vmi);
    if (migrationNeedsFinalization(ms)) {
      await this.finalizeMigration(vmi, launcher);
      return false;
    }
    if (Object.keys(this.opts.proxy.getTargetListenerPorts(migrationProxyKey(vmi))).length > 0) return false;
    // The target pod's launcher is not serving yet.
    if (!launcher) return true;
    // The target launcher's domain events (the migrated domain arriving, resuming, its end) must reach this
    // handler: without them the completion is only seen at the next resync.
    await this.opts.notifyPipes?.ensure(vmi).catch((error: unknown) => {
      this.opts.logger.warn({ err: error, vmi: vmiKey(vmi) }, "failed to start the domain notify pipe");
    });
    if (isMigrating(vmi, this.clock.now())) return false;

    await this.opts.containerDisks?.mountAndVerify(vmi);
    await this.opts.network?.setup(vmi).catch((error: unknown) => {
      throw new Error(`failed to configure vmi network for migration target: ${errorMessage(error)}`, {
        cause: error,
      });
    });
    const launcherView = structuredClone(vmi);
    replacePVCByHostDisk(launcherView);
    await this.opts.hostDisks?.create(launcherView);
    await launcher.syncMigrationTarget(launcherView).catch((error: unknown) => {
      throw new Error(`syncing migration target failed: ${errorMessage(error)}`, { cause: error });
    });
    await this.startTargetProxy(vmi).catch((error: unknown) => {
      throw new Error(`failed to handle post sync migration proxy: ${errorMessage(error)}`, { cause: error });
    });
    this.opts.recorder?.event(vmi, "Normal", "PreparingTarget", VMIMigrationTargetPrepared);
    return false;
  }

  /** libvirt's socket and one socket per migration port, all inside the target pod. */
  private async startTargetProxy(vmi: VirtualMachineInstance): Promise<void> {
    const root = await this.opts.podRoot(vmi);
    const key = migrationProxyKey(vmi);
    const shareDir = await resolveInRoot(root, POD_VIRT_SHARE_DIR);
    const sockets = [
      await resolveInRoot(root, POD_LIBVIRT_SOCKET),
      ...getMigrationPortsList(isBlockMigration(vmi)).map((port) =>
        sourceUnixFile(shareDir, constructProxyKey(key, port)),
      ),
    ];
    await this.opts.proxy.startTargetListener(key, sockets);
  }

  private async finalizeMigration(vmi: VirtualMachineInstance, launcher: LauncherCommands | undefined) {
    try {
      if (!launcher) throw new Error("the target launcher is not reachable");
      await launcher.finalizeVirtualMachineMigration(vmi);
    } catch (error) {
      throw new Error(`failed to finalize migration: ${errorMessage(error)}`, { cause: error });
    }
    migrationStateOf(vmi).completed = true;
  }

  /** What the target saw of the migrated domain; true when its listener is not up yet. */
  private updateStatus(vmi: VirtualMachineInstance, domain: DomainObject | undefined): boolean {
    const ms = migrationStateOf(vmi);
    if (ms.failed) return false;
    if (domain && !ms.targetNodeDomainDetected) {
      this.opts.logger.info({ vmi: vmiKey(vmi) }, "The target node received the migrated domain");
      ms.targetNodeDomainDetected = true;
      if (ms.targetState) ms.targetState.domainDetected = true;
    }
    if (domainIsActiveOnTarget(domain) && !ms.targetNodeDomainReadyTimestamp) {
      ms.targetNodeDomainReadyTimestamp = timestamp(this.clock.now());
      if (ms.targetState) ms.targetState.domainReadyTimestamp = ms.targetNodeDomainReadyTimestamp;
      this.opts.logger.info({ vmi: vmiKey(vmi) }, "The target node received the running migrated domain");
      if (vmi.status) removeCondition(vmi.status, MigrationRequiredCondition);
    }
    const ended = domain?.spec.metadata?.kubeVirt.migration;
    if (domain && ended?.endTimestamp) {
      ms.startTimestamp ??= ended.startTimestamp;
      ms.endTimestamp = ended.endTimestamp;
      if (domainIsActiveOnTarget(domain)) this.ackMigrationCompletion(vmi);
      else {
        ms.failed = true;
        ms.completed = true;
      }
    }
    if (isMigrating(vmi, this.clock.now())) return false;

    const ports = this.opts.proxy.getTargetListenerPorts(migrationProxyKey(vmi));
    if (Object.keys(ports).length === 0) {
      this.opts.logger.info(
        { vmi: vmiKey(vmi) },
        "target migration listener is not up for this vmi, giving it time",
      );
      return true;
    }
    const address = this.opts.migrationIpAddress;
    if (ms.targetNodeAddress !== address) {
      this.opts.recorder?.event(
        vmi,
        "Normal",
        "PreparingTarget",
        `Migration Target is listening at ${address}, on ports: ${Object.keys(ports).join(",")}`,
      );
      ms.targetNodeAddress = address;
      ms.targetDirectMigrationNodePorts = ports;
      if (ms.targetState) {
        ms.targetState.nodeAddress = address;
        ms.targetState.directMigrationNodePorts = ports;
      }
    }
    return false;
  }

  /** The guest runs here now: this node owns the VMI (upstream ackMigrationCompletion). */
  private ackMigrationCompletion(vmi: VirtualMachineInstance): void {
    const { host } = this.opts;
    const metadata = (vmi.metadata ??= {});
    metadata.labels = { ...metadata.labels, [NodeNameLabel]: host };
    delete metadata.labels[OutdatedLauncherImageLabel];
    if (metadata.annotations) delete metadata.annotations[EvictionSourceAnnotation];
    const status = (vmi.status ??= {});
    delete status.launcherContainerImageVersion;
    delete status.evacuationNodeName;
    status.nodeName = host;
    status.migrationTransport = MigrationTransportUnix;
    const overhead = status.migrationState?.targetMemoryOverhead;
    if (overhead !== undefined) status.memory = { ...status.memory, memoryOverhead: overhead };
    this.opts.recorder?.event(
      vmi,
      "Normal",
      "Migrated",
      `The VirtualMachineInstance migrated to node ${host}.`,
    );
    this.opts.logger.info({ vmi: vmiKey(vmi) }, "The target node detected that the migration has completed");
  }

  /** The migration has an outcome: conclude it here and let go of the VMI (upstream finalCleanup). */
  private async finalCleanup(
    cached: VirtualMachineInstance,
    vmi: VirtualMachineInstance,
    domain: DomainObject | undefined,
    launcher: LauncherCommands | undefined,
  ): Promise<SyncResult> {
    if (domainPausedFailedPostCopy(domain)) {
      if (vmi.status?.phase === Phase.Running) return { requeueAfter: this.retryMs };
      if (vmi.status?.phase === Phase.Succeeded) vmi.status.phase = Phase.Failed;
    }
    const ms = migrationStateOf(vmi);
    try {
      if (ms.failed) {
        // The target launcher waits for a domain that will not come: it is told to exit (its pod completes).
        await launcher?.signalTargetPodCleanup(vmi).catch((error: unknown) => {
          this.opts.logger.warn(
            { err: error, vmi: vmiKey(vmi) },
            "Failed to signal target pod cleanup, ignoring.",
          );
        });
        await this.tearDownPrepared(vmi);
        this.opts.logger.info(
          { vmi: vmiKey(vmi) },
          "Cleaned up the target pod's preparations for a failed migration",
        );
      } else {
        if (!launcher)
          throw new Error("unable to create virt-launcher client connection: launcher not reachable");
        await launcher.finalizeVirtualMachineMigration(vmi);
      }
    } finally {
      await this.opts.proxy.stopTargetListener(migrationProxyKey(vmi));
    }
    const metadata = (vmi.metadata ??= {});
    if (metadata.labels) delete metadata.labels[MigrationTargetNodeNameLabel];
    if (!ms.failed && metadata.annotations) delete metadata.annotations[CreateMigrationTargetAnnotation];
    if (vmiChanged(cached, vmi)) await this.opts.updateVMI(vmi);
    return undefined;
  }

  /** Container disk mounts and the pod network cache made for the target pod. */
  private async tearDownPrepared(vmi: VirtualMachineInstance): Promise<void> {
    await this.opts.containerDisks?.unmount(vmi);
    await this.opts.network?.teardown(vmi).catch((error: unknown) => {
      throw new Error(`failed to delete VMI Network cache files: ${errorMessage(error)}`, { cause: error });
    });
  }

  /** A VMI that is gone or final: undo what may have been prepared here, errors only logged. */
  private async bestEffortCleanup(vmi: VirtualMachineInstance): Promise<void> {
    if (vmi.metadata?.labels?.[MigrationTargetNodeNameLabel] !== this.opts.host) return;
    await this.tearDownPrepared(vmi).catch((error: unknown) => {
      this.opts.logger.warn(
        { err: error, vmi: vmiKey(vmi) },
        "best-effort cleanup of the migration target failed",
      );
    });
    await this.opts.proxy.stopTargetListener(migrationProxyKey(vmi)).catch(() => undefined);
  }
}

function migrationStateOf(vmi: VirtualMachineInstance): MigrationState {
  const status = (vmi.status ??= {});
  return (status.migrationState ??= {});
}

function vmiKey(vmi: VirtualMachineInstance): string {
  return `${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.name ?? ""}`;
}
