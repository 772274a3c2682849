// virt-handler's VMI controller (upstream pkg/virt-handler/vm.go), first slice: for each VMI scheduled to
// this node it hands the VMI to its launcher (SyncVirtualMachine), reads the domain back (GetDomain) and
// reports phase and interfaces; for a deleted or finished VMI it asks the launcher to shut the guest down
// and kills it once the grace period recorded by the launcher is over. Domain events (Notify) only
// enqueue the VMI; a running VMI is also looked at every resync period, so a lost event costs no state.
// Before the first sync of a starting VMI its pod network is prepared (once per VMI UID); a failed step is
// reported as upstream does (a SyncFailed event and Synchronized=False) and retried with backoff.
// The launcher gets a copy of the VMI whose Filesystem PVCs are hostDisks (upstream ReplacePVCByHostDisk);
// their images are created in the pod before a starting VMI's sync.
// Migrations are the migration controllers' (migration-source.ts, migration-target.ts): a VMI whose
// migration is under way is left alone, and one whose guest migrated away only has its local state here
// (network cache, container disk mounts, notify pipe, proxies) cleaned up.
import type { InterfaceBindingPlugin, VirtualMachineInstance } from "../api/generated/v1.js";
import {
  WorkQueue,
  keyOf,
  systemClock,
  type Clock,
  type EventRecorder,
  type Logger,
  type SyncResult,
} from "../controller/index.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import type { ContainerDiskMounter } from "./container-disk/mount.js";
import { replacePVCByHostDisk } from "../host-disk/host-disk.js";
import type { HostDiskSetup } from "./host-disks.js";
import { HotplugMountError, type HotplugVolumeMounter } from "./hotplug-disk/mount.js";
import { hotplugVolumesReady, updateVolumeStatuses, volumesToProbe } from "./volume-status.js";
import { LauncherSocketWatch, type LauncherCommands, type LauncherConnector } from "./launcher-clients.js";
import { errorMessage } from "../util/error-message.js";
import type { VMINetworkSetup } from "./network-setup.js";
import type { NotifyPipes } from "./notify-server/pipe.js";
import { decideAction, type SyncAction } from "./sync-decision.js";
import { isFinal, VMIPhase as Phase } from "../controller/vmi-phase.js";
import { isBeingDeleted } from "../controller/object.js";
import { evictionStrategyWarning } from "./migration-conditions.js";
import { agentChannelConnected, computeStatus, statusPatch, type PodInterfaceIPs } from "./vmi-status.js";
import { SupportedGuestAgentVersions } from "../virt-config/defaults.js";
import type { ProxyManager } from "./migration-proxy/migration-proxy.js";
import { domainMigrated, isMigrationInProgress } from "./migration-state.js";

export interface VMIEvents<T> {
  get(key: string): T | undefined;
  addEventHandler(handlers: { add?(obj: T): void; update?(o: T, n: T): void; delete?(obj: T): void }): void;
}

export type VMIStatusPatcher = (namespace: string, name: string, patch: object) => Promise<void>;

export interface VMControllerOptions {
  host: string;
  vmis: VMIEvents<VirtualMachineInstance>;
  launchers: LauncherConnector;
  patchStatus: VMIStatusPatcher;
  logger: Logger;
  /** The pod network step before the first sync; absent: none (tests of other paths). */
  network?: VMINetworkSetup;
  /** Mounts containerDisk images for the launcher before a starting VMI's sync; absent: none. */
  containerDisks?: ContainerDiskMounter;
  /** Hands hotplugged volumes from their attachment pods to the launcher pod; absent: none. */
  hotplugVolumes?: HotplugVolumeMounter;
  /** Creates missing DiskOrCreate hostDisk images in the launcher pod; absent: none. */
  hostDisks?: HostDiskSetup;
  /** The pod IPs the network setup cached per interface, for `status.interfaces`; absent: none. */
  podInterfaceIPs?: (vmi: VirtualMachineInstance) => Promise<PodInterfaceIPs>;
  /** Relays the launcher's domain events from inside its pod to the notify server; absent: none. */
  notifyPipes?: Pick<NotifyPipes, "ensure" | "close">;
  recorder?: Pick<EventRecorder, "event">;
  clock?: Clock;
  /** How soon a VMI waiting for its launcher or shutting down is looked at again. */
  retryMs?: number;
  /** How often a running VMI is looked at while domain events are not wired. */
  resyncMs?: number;
  /** The cluster's supportedGuestAgentVersions, read on every use; absent: upstream's defaults. */
  supportedAgentVersions?: () => readonly string[];
  /** The KubeVirt CR's network binding plugins, read on every use, for LiveMigratable. */
  bindingPlugins?: () => Readonly<Record<string, InterfaceBindingPlugin>>;
  /** The KubeVirt CR's evictionStrategy, read on every use. */
  clusterEvictionStrategy?: () => string | undefined;
  /** The node's host-model CPU as libvirt names it (the node labeller's); empty: none offered. */
  hostCpuModel?: string;
  /** Stops a forgotten VMI's migration proxies (upstream processVmCleanup); absent: none. */
  migrationProxy?: Pick<ProxyManager, "stopSourceListener" | "stopTargetListener">;
}

interface Observed {
  launcher: LauncherCommands | undefined;
  domain: DomainObject | undefined;
  unresponsive: boolean;
  /** A starting VMI waits for its hotplug volumes, or a hotplug volume for its mount or attach. */
  waitingForVolumes?: boolean;
}

export class VirtualMachineController {
  private readonly queue: WorkQueue<string>;
  /** The last state of deleted VMIs, still needed to stop their domains. */
  private readonly deleted = new Map<string, VirtualMachineInstance>();
  private readonly clock: Clock;
  /** UIDs of the VMIs whose pod network is prepared (upstream's network state cache). */
  private readonly networkReady = new Set<string>();
  private readonly sockets = new LauncherSocketWatch();

  constructor(private readonly opts: VMControllerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.queue = new WorkQueue<string>({ name: "virt-handler-vm", logger: opts.logger });
    opts.vmis.addEventHandler({
      add: (vmi) => this.enqueue(vmi),
      update: (_old, vmi) => this.enqueue(vmi),
      delete: (vmi) => {
        this.deleted.set(keyOf(vmi), vmi);
        this.enqueue(vmi);
      },
    });
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    return this.queue.run(workers, (key) => this.sync(key), signal);
  }

  /** A domain event from a launcher: look at that VMI now rather than at the next resync. */
  enqueueKey(key: string): void {
    this.queue.add(key);
  }

  private enqueue(vmi: VirtualMachineInstance): void {
    this.queue.add(keyOf(vmi));
  }

  async sync(key: string): Promise<SyncResult> {
    const cached = this.opts.vmis.get(key);
    if (cached) this.deleted.delete(key);
    const vmi = cached ?? this.deleted.get(key);
    if (!vmi) return;
    if (vmi.status?.nodeName !== this.opts.host) {
      // It left this node's cache because it migrated away: only this node's leftovers remain.
      if (!cached) await this.cleanUpMigratedAway(key, vmi);
      return;
    }

    const observed = await this.observe(vmi);
    // The guest moved to the target: clean up here without touching the VMI (upstream's orphan case).
    if (domainMigrated(observed.domain)) {
      await this.cleanUpMigratedAway(key, vmi);
      return;
    }
    // The migration controllers own a VMI while its guest is on the move.
    if (!isBeingDeleted(vmi) && isMigrationInProgress(vmi, observed.domain)) {
      return { requeueAfter: this.opts.resyncMs ?? 5_000 };
    }
    // Without the pipe the VMI is still looked at every resync period, only later: worth a warning, no more.
    if (cached && observed.launcher) {
      await this.opts.notifyPipes?.ensure(cached).catch((error: unknown) => {
        this.opts.logger.warn({ err: error, vmi: key }, "failed to start the domain notify pipe");
      });
    }
    const action = decideAction({
      vmi: cached,
      domain: observed.domain,
      launcherReachable: observed.launcher !== undefined && !observed.unresponsive,
      nowMs: this.clock.now(),
    });
    let syncError: Error | undefined;
    if (observed.launcher) syncError = await this.act(action, vmi, observed).then(() => undefined, asError);

    if (cached && !cached.metadata?.deletionTimestamp) await this.report(cached, observed, syncError);
    if (!cached && action.kind === "none") await this.forget(key, vmi);
    if (syncError) {
      if (cached && !isFinal(cached))
        this.opts.recorder?.event(cached, "Warning", "SyncFailed", syncError.message);
      // Thrown, so the queue retries the VMI with backoff.
      throw syncError;
    }
    if (observed.waitingForVolumes) return { requeueAfter: this.opts.retryMs ?? 1_000 };
    return this.requeue(action, cached);
  }

  private async observe(vmi: VirtualMachineInstance): Promise<Observed> {
    const launcher = await this.opts.launchers(vmi).catch(() => undefined);
    const socketLost = this.sockets.lost(vmi.metadata?.uid ?? "", launcher !== undefined, this.clock.now());
    // A Running VMI whose launcher socket vanished has lost its launcher; so has one whose launcher
    // died before its socket came up (the VMI would wait in Scheduled for ever).
    const lost = !launcher && (vmi.status?.phase === Phase.Running || socketLost);
    if (!launcher) return { launcher, domain: undefined, unresponsive: lost };
    try {
      return { launcher, domain: await launcher.getDomain(), unresponsive: false };
    } catch (error) {
      this.opts.logger.warn({ err: error, vmi: keyOf(vmi) }, "launcher did not answer GetDomain");
      return { launcher, domain: undefined, unresponsive: true };
    }
  }

  private async act(action: SyncAction, vmi: VirtualMachineInstance, observed: Observed): Promise<void> {
    const launcher = observed.launcher;
    if (!launcher) return;
    const target = vmi.metadata?.name ?? "";
    switch (action.kind) {
      case "sync": {
        // The cached VMI is shared with the informer: the launcher's view is a copy.
        const launcherView = structuredClone(vmi);
        replacePVCByHostDisk(launcherView);
        const running = vmi.status?.phase === Phase.Running;
        // Starting VMIs only (each step is idempotent); a running one already has its disks.
        if (!running) {
          await this.opts.containerDisks?.mountAndVerify(vmi);
          await this.mountHotplugVolumes(vmi);
          if (!hotplugVolumesReady(vmi)) {
            observed.waitingForVolumes = true;
            return;
          }
          await this.prepareNetwork(vmi);
          await this.opts.hostDisks?.create(launcherView);
        } else {
          await this.mountHotplugVolumes(vmi);
        }
        await launcher.syncVirtualMachine(launcherView);
        observed.domain = await launcher.getDomain();
        // Volumes that left the spec are detached by now: take them out of the pod.
        if (running) await this.opts.hotplugVolumes?.unmount(vmi);
        return;
      }
      case "shutdown":
        this.opts.logger.info({ vmi: target }, "Signaled graceful shutdown");
        await launcher.shutdownVirtualMachine(vmi);
        return;
      case "kill":
        this.opts.logger.info(
          { vmi: target },
          "Grace period expired, killing deleted VirtualMachineInstance",
        );
        await launcher.killVirtualMachine(vmi);
        return;
      default:
        return;
    }
  }

  /** A claim without its disk image is a HotplugFailed event, as upstream; other failures fail the sync. */
  private async mountHotplugVolumes(vmi: VirtualMachineInstance): Promise<void> {
    try {
      await this.opts.hotplugVolumes?.mount(vmi);
    } catch (error) {
      if (!(error instanceof HotplugMountError) || !error.imageMissing) throw error;
      this.opts.recorder?.event(vmi, "Warning", "HotplugFailed", error.message);
    }
  }

  /** Targets from the domain and hotplug phases from the pod; undefined while no domain is known. */
  private async volumeStatus(vmi: VirtualMachineInstance, observed: Observed) {
    if (!observed.domain) return undefined;
    const mounted = new Map<string, boolean>();
    for (const name of volumesToProbe(vmi, observed.domain)) {
      const answer = await this.opts.hotplugVolumes?.isMounted(vmi, name).catch((error: unknown) => {
        this.opts.logger.error(
          { err: error, vmi: keyOf(vmi), volume: name },
          "error occurred while checking if volume is mounted",
        );
        return false;
      });
      mounted.set(name, answer ?? false);
    }
    const update = updateVolumeStatuses(vmi, observed.domain, mounted);
    if (update.needsRefresh) observed.waitingForVolumes = true;
    return update;
  }

  /** Starting VMIs only: a running one was prepared before it ran, even by an earlier handler. */
  private async prepareNetwork(vmi: VirtualMachineInstance): Promise<void> {
    const uid = vmi.metadata?.uid ?? "";
    const network = this.opts.network;
    if (!network || vmi.status?.phase === Phase.Running || this.networkReady.has(uid)) return;
    try {
      await network.setup(vmi);
    } catch (error) {
      throw new Error(`failed to configure vmi network: ${errorMessage(error)}`, { cause: error });
    }
    this.networkReady.add(uid);
  }

  /**
   * The guest runs on another node now: the source domain is undefined (upstream processVmDelete), which
   * sends the launcher its final notification so that it exits and its pod completes; then the node's
   * leftovers go.
   */
  private async cleanUpMigratedAway(key: string, vmi: VirtualMachineInstance): Promise<void> {
    const launcher = await this.opts.launchers(vmi).catch(() => undefined);
    if (launcher) {
      this.opts.recorder?.event(vmi, "Normal", "Deleted", "Signaled Deletion");
      await launcher.deleteDomain(vmi).catch((error: unknown) => {
        this.opts.logger.warn({ err: error, vmi: key }, "failed to delete the migrated domain");
      });
    }
    await this.forget(key, vmi);
  }

  private async forget(key: string, vmi: VirtualMachineInstance): Promise<void> {
    this.deleted.delete(key);
    this.networkReady.delete(vmi.metadata?.uid ?? "");
    this.sockets.forget(vmi.metadata?.uid ?? "");
    this.opts.notifyPipes?.close(vmi);
    const uid = vmi.metadata?.uid ?? "";
    await this.opts.migrationProxy?.stopTargetListener(uid).catch(() => undefined);
    await this.opts.migrationProxy?.stopSourceListener(uid).catch(() => undefined);
    await this.opts.network?.teardown(vmi).catch((error: unknown) => {
      this.opts.logger.error({ err: error, vmi: key }, "failed to delete VMI Network cache files");
    });
    await this.opts.containerDisks?.unmount(vmi).catch((error: unknown) => {
      this.opts.logger.error({ err: error, vmi: key }, "failed to unmount container disks");
    });
    await this.opts.hotplugVolumes?.unmountAll(vmi).catch((error: unknown) => {
      this.opts.logger.error({ err: error, vmi: key }, "failed to unmount hotplug volumes");
    });
  }

  private async report(
    vmi: VirtualMachineInstance,
    observed: Observed,
    syncError: Error | undefined,
  ): Promise<void> {
    const failure = syncError && { message: syncError.message, nowMs: this.clock.now() };
    const podIPs = (await this.opts.podInterfaceIPs?.(vmi).catch(() => undefined)) ?? new Map();
    // Upstream asks whether the agent is supported while it is connected; a failed ask fails the status update.
    const guestAgent =
      observed.launcher && agentChannelConnected(observed.domain)
        ? {
            info: await observed.launcher.getGuestInfo(),
            supportedVersions: this.opts.supportedAgentVersions?.() ?? SupportedGuestAgentVersions,
          }
        : undefined;
    const volumes = await this.volumeStatus(vmi, observed);
    const desired = computeStatus(
      vmi,
      observed.domain,
      observed.unresponsive,
      failure,
      podIPs,
      this.clock.now(),
      guestAgent,
      { bindingPlugins: this.opts.bindingPlugins?.() ?? {}, hostCpuModel: this.opts.hostCpuModel ?? "" },
    );
    // The migration conditions are computed only while a domain exists; so is the warning about them.
    const evictionWarning =
      observed.domain &&
      evictionStrategyWarning(vmi, desired.conditions ?? [], this.opts.clusterEvictionStrategy?.());
    if (evictionWarning) this.opts.recorder?.event(vmi, "Warning", "Migrated", evictionWarning);
    if (volumes) desired.volumeStatus = volumes.volumeStatus;
    const patch = statusPatch(vmi, desired);
    for (const { reason, message } of volumes?.events ?? []) {
      this.opts.recorder?.event(vmi, "Normal", reason, message);
    }
    if (!patch) return;
    await this.opts.patchStatus(vmi.metadata?.namespace ?? "", vmi.metadata?.name ?? "", patch);
  }

  private requeue(action: SyncAction, vmi: VirtualMachineInstance | undefined): SyncResult {
    const retryMs = this.opts.retryMs ?? 1_000;
    if (action.kind === "wait-for-launcher" || action.kind === "shutdown" || action.kind === "kill") {
      return { requeueAfter: retryMs };
    }
    if (action.kind === "sync" || vmi?.status?.phase === Phase.Running) {
      return { requeueAfter: this.opts.resyncMs ?? 5_000 };
    }
    return undefined;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
