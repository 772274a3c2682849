// virt-launcher (upstream cmd/virt-launcher/virt-launcher.go, logic part): starts the private
// libvirtd, serves virt-handler's commands, reports domain events, watches QEMU, and on a stop
// signal shuts the guest down within the grace period. Nothing it started outlives it.
import { chmod, mkdir, rename, rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { Logger } from "../controller/log.js";
import { LauncherClient } from "../handler-launcher-com/cmd/v1/client.js";
import {
  domainNotifySocket,
  socketOnGuest,
  uninitializedSocketOnGuest,
} from "../handler-launcher-com/sockets.js";
import { LibvirtClient } from "../libvirt/client.js";
import {
  VIR_CONNECT_LIST_DOMAINS_ACTIVE,
  VIR_CONNECT_LIST_DOMAINS_INACTIVE,
} from "../libvirt/generated/libvirt-api.js";
import { startSingleClientDhcpServer } from "../network/dhcp/server.js";
import { killLeftoverQemu } from "./cleanup.js";
import type { LauncherFlags } from "./flags.js";
import { cloudInitDir, ephemeralDiskDataDir, qemuPidDir, vmiPrivateDir } from "./layout.js";
import { LibvirtDaemon } from "./libvirtd/daemon.js";
import type { QemuIdentity } from "./libvirtd/identity.js";
import { qemuIdentity } from "./libvirtd/identity.js";
import { ProcessMonitor } from "./monitor.js";
import { DomainNotifier } from "./notify-client/domain-notifier.js";
import { Notifier } from "./notify-client/notifier.js";
import { Launcher, runServer } from "./virtwrap/cmd-server/server.js";
import { LibvirtDomainManager } from "./virtwrap/manager.js";
import { MetadataCache } from "./virtwrap/metadata-cache.js";
import { watchIncomingMigration } from "./virtwrap/live-migration-target.js";
import { LauncherDomainPreparation } from "./virtwrap/prestart.js";
import { AgentPoller } from "./virtwrap/agent-poller/agent-poller.js";
import { AsyncAgentStore } from "./virtwrap/agent-poller/agent-store.js";
import { domainName } from "./virtwrap/vmi-state.js";
import { readDomainStats } from "./virtwrap/stats/libvirt-stats.js";

/** How long to wait for the final "domain deleted" notification before killing (upstream). */
const FINAL_NOTIFY_TIMEOUT_MS = 15_000;
const FINAL_NOTIFY_AFTER_KILL_TIMEOUT_MS = 30_000;
const CMD_SERVER_READY_TIMEOUT_MS = 15_000;
const STOP_NOTIFY_TIMEOUT_MS = 10_000;

export interface LauncherProcess {
  flags: LauncherFlags;
  log: Logger;
  uid: number;
  gid: number;
  /** The pod's name (the POD_NAME the pod template sets): a failed migration's target is told by it. */
  podName?: string;
}

/** The VMI as the launcher knows it before virt-handler sends it (upstream NewVMIReferenceWithUUID). */
function vmiReference(flags: LauncherFlags): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: flags.name, namespace: flags.namespace, uid: flags.uid },
    spec: { domain: { devices: {} } },
  };
}

/** Resolves true once `promise` settled, false after `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    sleep(ms, false, { signal: timer.signal }).catch(() => false),
  ]);
  timer.abort();
  return settled;
}

export class VirtLauncher {
  private readonly cleanups: (() => Promise<void>)[] = [];
  private readonly vmi: VirtualMachineInstance;
  private readonly identity: QemuIdentity;
  private daemon: LibvirtDaemon | undefined;
  private manager: LibvirtDomainManager | undefined;
  private domainNotifier: DomainNotifier | undefined;
  private libvirt: LibvirtClient | undefined;
  /** Aborted by SignalTargetPodCleanup when this pod was the target of a migration that failed. */
  private readonly targetPodExit = new AbortController();

  constructor(private readonly process: LauncherProcess) {
    this.vmi = vmiReference(process.flags);
    this.identity = qemuIdentity(process.uid, process.gid, process.flags.libvirtUid);
  }

  /** Brings everything up and marks the launcher ready (the command socket gets its final name). */
  async start(): Promise<void> {
    const { flags, log } = this.process;
    const { layout } = flags;
    await this.initializeDirectories();
    if (flags.simulateCrash) throw new Error("Simulated virt-launcher crash");

    const daemon = await LibvirtDaemon.start({
      layout,
      identity: this.identity,
      log,
      logFilters: flags.libvirtLogFilters,
    });
    this.daemon = daemon;
    this.cleanups.push(() => daemon.stop());
    this.cleanups.push(() => killLeftoverQemu(qemuPidDir(layout), domainName(this.vmi), log));

    const client = await LibvirtClient.connect(daemon.socketPath);
    await client.connectOpen("qemu:///session");
    this.libvirt = client;
    this.cleanups.push(() => client.close());

    const metadata = new MetadataCache();
    const notifier = new Notifier(domainNotifySocket(layout.virtShareDir), log);
    this.cleanups.push(() => Promise.resolve(notifier.close()));
    const preparation = new LauncherDomainPreparation({
      layout,
      identity: this.identity,
      log,
      startDhcpServer: (config) => startSingleClientDhcpServer(config, log),
    });
    this.cleanups.push(() => preparation.close());
    const agentStore = new AsyncAgentStore();
    const manager = new LibvirtDomainManager({
      connection: client,
      preparation,
      metadata,
      layout,
      log,
      agentStore,
      setFileOwnership: (path) => this.identity.ownership.setFileOwnership(path),
    });
    this.manager = manager;

    // Started and stopped by the agent's lifecycle events the notifier receives.
    const poller = new AgentPoller({
      connection: client,
      domainName: domainName(this.vmi),
      store: agentStore,
      intervals: flags.agentPollIntervals,
      log,
    });
    const domainNotifier = new DomainNotifier({
      events: client,
      connection: client,
      metadata,
      notifier,
      domainName: domainName(this.vmi),
      log,
      agent: { store: agentStore, poller },
      onMigratedIn: () => void watchIncomingMigration(client, domainName(this.vmi), metadata, log),
    });
    await domainNotifier.start();
    this.domainNotifier = domainNotifier;
    this.cleanups.push(() => domainNotifier.stop());

    const launcher = new Launcher({
      manager,
      allowEmulation: flags.allowEmulation,
      log,
      targetPodExit: { podName: this.process.podName, signal: this.targetPodExit },
      domainStats: () => readDomainStats(client),
    });
    const initSocket = uninitializedSocketOnGuest(layout.virtShareDir);
    const server = await runServer(initSocket, launcher);
    this.cleanups.push(() => server.stop());
    await this.waitForCmdServer(initSocket);
    const readySocket = socketOnGuest(layout.virtShareDir);
    await rename(initSocket, readySocket);
    this.cleanups.push(() => rm(readySocket, { force: true }));
    log.info("Marked as ready");
  }

  private async initializeDirectories(): Promise<void> {
    const { layout, uid } = this.process.flags;
    for (const dir of [layout.privateDir, cloudInitDir(layout), ephemeralDiskDataDir(layout)]) {
      await mkdir(dir, { recursive: true });
    }
    // The VMI's own private dir holds the console sockets virt-handler walks to (upstream makes it 0755).
    // The private dir above it is the pod's emptyDir, owned by the node, not by the launcher's user.
    const vmiDir = vmiPrivateDir(layout, uid);
    await mkdir(vmiDir, { recursive: true });
    await chmod(vmiDir, 0o755);
  }

  private async waitForCmdServer(socketPath: string): Promise<void> {
    const deadline = Date.now() + CMD_SERVER_READY_TIMEOUT_MS;
    for (;;) {
      try {
        const client = await LauncherClient.connect(socketPath);
        try {
          await client.ping();
          return;
        } finally {
          client.close();
        }
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`failed to connect to cmd server: ${String(error)}`);
        await sleep(1_000);
      }
    }
  }

  /**
   * Waits for virt-handler to define the domain, then watches QEMU until it is gone. `stop` is the
   * pod's termination signal. Resolves with the exit code.
   */
  async run(stop: AbortSignal): Promise<number> {
    const { flags, log } = this.process;
    const manager = this.required(this.manager);
    const daemonGone = new AbortController();
    void this.required(this.daemon).exited.then((exit) => {
      log.error({ exit }, "libvirtd exited");
      daemonGone.abort();
    });
    const stopOrDaemon = AbortSignal.any([stop, daemonGone.signal]);
    const defined = await this.waitForDomain(flags.qemuTimeoutMs, stopOrDaemon);
    if (defined) {
      const monitor = new ProcessMonitor({
        domainName: domainName(this.vmi),
        pidDir: qemuPidDir(flags.layout),
        gracePeriodSeconds: flags.gracePeriodSeconds,
        gracefulShutdown: async () => {
          manager.markGracefulShutdownVMI();
          // Upstream leaves the ACPI shutdown to virt-handler; pressing the button here as well
          // shuts the guest down even when no handler is around to ask for it.
          await manager.signalShutdownVMI(this.vmi);
        },
        finalShutdown: (pid) =>
          manager.killVMI(this.vmi).catch((error: unknown) => {
            log.warn({ err: error, pid }, "Unable to stop qemu with libvirt, falling back to SIGTERM");
            process.kill(pid, "SIGTERM");
          }),
        log,
        earlyExit: this.targetPodExit.signal,
      });
      await monitor.run(flags.qemuTimeoutMs, stopOrDaemon);
      if (daemonGone.signal.aborted) return 1;
      await this.waitForFinalNotify(stop.aborted);
    }
    return daemonGone.signal.aborted ? 1 : 0;
  }

  /** Whether a domain got defined before the timeout (false when stopped first). */
  private async waitForDomain(timeoutMs: number, stop: AbortSignal): Promise<boolean> {
    const client = this.required(this.libvirt);
    const flags = VIR_CONNECT_LIST_DOMAINS_ACTIVE | VIR_CONNECT_LIST_DOMAINS_INACTIVE;
    const deadline = Date.now() + timeoutMs;
    const stopOrExit = AbortSignal.any([stop, this.targetPodExit.signal]);
    while (!stop.aborted) {
      if (this.targetPodExit.signal.aborted) throw new Error("received early exit signal");
      if ((await client.connectListAllDomains(flags)).length > 0) return true;
      if (Date.now() > deadline) throw new Error("timed out waiting for domain to be defined");
      await sleep(1_000, undefined, { signal: stopOrExit }).catch(() => undefined);
    }
    return false;
  }

  /**
   * QEMU is gone; virt-handler must hear why before the pod goes. On a stop signal the launcher
   * undefines the domain itself (the pod is going away), which produces the final notification.
   */
  private async waitForFinalNotify(stopped: boolean): Promise<void> {
    const { log } = this.process;
    const manager = this.required(this.manager);
    const notifier = this.required(this.domainNotifier);
    log.info("Waiting on final notifications to be sent to virt-handler.");
    if (stopped) {
      // virt-handler learns why the guest stopped (shut down, destroyed, crashed) from the stop
      // event, which reads the domain's state: let it go out before the domain disappears.
      await within(notifier.stopNotificationSent, STOP_NOTIFY_TIMEOUT_MS);
      await manager
        .deleteVMI(this.vmi)
        .catch((error: unknown) => log.error({ err: error }, "undefine failed"));
    }
    if (await within(notifier.deleteNotificationSent, FINAL_NOTIFY_TIMEOUT_MS)) {
      log.info("Final Delete notification sent");
      return;
    }
    log.info("Timed out waiting for final delete notification. Attempting to kill domain");
    await manager.killVMI(this.vmi).catch(() => undefined);
    if (!(await within(notifier.deleteNotificationSent, FINAL_NOTIFY_AFTER_KILL_TIMEOUT_MS))) {
      log.info("Timed out waiting for final delete notification after calling kill.");
    }
  }

  /** Stops everything started, newest first; QEMU and libvirtd are stopped by PID. */
  async shutdown(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) =>
        this.process.log.error({ err: error }, "cleanup step failed"),
      );
    }
    this.process.log.info("Exiting...");
  }

  private required<T>(value: T | undefined): T {
    if (value === undefined) throw new Error("virt-launcher was not started");
    return value;
  }
}
