// virt-handler's migration proxy manager (upstream pkg/virt-handler/migration-proxy): per migration key
// (the VMI UID), the target handler opens one TCP listener per unix socket of the target launcher
// (libvirt's, and one per migration port) and publishes the ports; the source handler opens one unix
// socket per published port in the source launcher's migration proxy directory, each forwarding to the
// target's port. Starting again with the same targets changes nothing; other targets replace the proxies.
import type { Logger } from "../../controller/log.js";
import type { FileOwnership } from "../../ephemeral-disk/ownership.js";
import {
  constructProxyKey,
  isProxiedPort,
  isValidProxyKey,
  migrationPortOfSocket,
  parseTcpPort,
  sourceUnixFile,
} from "../../util/migration-proxy/keys.js";
import { MigrationProxy, targetAddress, type ProxyTarget } from "./proxy.js";
import { refusedSource, sourceClientOptions, targetServerOptions, type MigrationTLS } from "./tls.js";

export const SHUTDOWN_REFUSAL = "unable to process new migration connections during virt-handler shutdown";

/** What virt-handler's VMI and migration controllers use (upstream's ProxyManager interface). */
export interface ProxyManager {
  startTargetListener(key: string, targetUnixFiles: readonly string[]): Promise<void>;
  /** Listening TCP port (as text) → the migration port it stands for (0: libvirt), the VMI's targetDirectMigrationNodePorts. */
  getTargetListenerPorts(key: string): Record<string, number>;
  stopTargetListener(key: string): Promise<void>;
  startSourceListener(
    key: string,
    targetAddress: string,
    destSrcPortMap: Readonly<Record<string, number>>,
    baseDir: string,
  ): Promise<void>;
  getSourceListenerFiles(key: string): string[];
  stopSourceListener(key: string): Promise<void>;
  openListenerCount(): number;
  initiateGracefulShutdown(): void;
}

export interface MigrationProxyManagerOptions {
  tls: MigrationTLS;
  /** The KubeVirt CR's spec.configuration.migrations.disableTLS, read at each start. */
  disableTLS: () => boolean;
  /** Where target listeners bind; upstream binds the zero address and advertises the handler's migration IP. */
  bindAddress?: string;
  /** Who gets the source sockets (upstream hands them to QEMU's user so a non-root launcher can connect). */
  ownership?: FileOwnership;
  logger: Logger;
}

/** A started set of proxies and what they were started for, to tell a repeated start from a changed one. */
interface ProxySet {
  identity: string;
  proxies: MigrationProxy[];
}

export class MigrationProxyManager implements ProxyManager {
  private readonly sourceProxies = new Map<string, ProxySet>();
  private readonly targetProxies = new Map<string, ProxySet>();
  private shuttingDown = false;
  /** Starts and stops run one at a time, as upstream holds its manager lock across them. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: MigrationProxyManagerOptions) {}

  initiateGracefulShutdown(): void {
    this.shuttingDown = true;
  }

  /** Keys with listeners on either side: virt-handler waits for this to drop to 0 before exiting. */
  openListenerCount(): number {
    return this.sourceProxies.size + this.targetProxies.size;
  }

  startTargetListener(key: string, targetUnixFiles: readonly string[]): Promise<void> {
    return this.serialized(async () => {
      this.refuseDuringShutdown();
      const tls = this.options.disableTLS() ? undefined : targetServerOptions(this.options.tls);
      const files = [...new Set(targetUnixFiles)];
      const identity = JSON.stringify({ tls: tls !== undefined, files: [...files].sort() });
      if (this.targetProxies.get(key)?.identity === identity) return;
      await this.stopSet(
        this.targetProxies,
        key,
        "stopping proxy on target node due to new unix filepath location",
      );
      const log = { uid: key, logger: this.options.logger };
      const proxies = files.map(
        (file) =>
          new MigrationProxy(
            {
              host: this.options.bindAddress ?? "0.0.0.0",
              port: 0,
              ...(tls && { tls, refuse: (socket) => refusedSource(socket, this.options.tls) }),
            },
            { unixSocketPath: file },
            log,
          ),
      );
      await startAll(proxies);
      this.targetProxies.set(key, { identity, proxies });
      this.log(key, "Manager created proxy on target", { listeners: proxies.length });
    });
  }

  getTargetListenerPorts(key: string): Record<string, number> {
    const ports: Record<string, number> = {};
    for (const proxy of this.targetProxies.get(key)?.proxies ?? []) {
      ports[String(proxy.port)] = migrationPortOfSocket(key, proxy.targetAddress);
    }
    return ports;
  }

  stopTargetListener(key: string): Promise<void> {
    return this.serialized(() =>
      this.stopSet(this.targetProxies, key, "Manager stopping proxy on target node"),
    );
  }

  startSourceListener(
    key: string,
    targetHost: string,
    destSrcPortMap: Readonly<Record<string, number>>,
    baseDir: string,
  ): Promise<void> {
    return this.serialized(async () => {
      this.refuseDuringShutdown();
      if (!isValidProxyKey(key)) throw new Error(`invalid migration proxy key ${JSON.stringify(key)}`);
      const tls = this.options.disableTLS() ? undefined : sourceClientOptions(this.options.tls);
      const routes = Object.entries(destSrcPortMap).map(([destPort, srcPort]) => {
        const port = parseTcpPort(destPort);
        if (port === undefined) throw new Error(`invalid target migration port ${JSON.stringify(destPort)}`);
        if (!isProxiedPort(srcPort)) throw new Error(`invalid source migration port ${srcPort}`);
        const target: ProxyTarget = { host: targetHost, port, ...(tls && { tls }) };
        return { file: sourceUnixFile(baseDir, constructProxyKey(key, srcPort)), target };
      });
      const identity = JSON.stringify({
        tls: tls !== undefined,
        routes: routes.map(({ file, target }) => `${file} ${targetAddress(target)}`).sort(),
      });
      if (this.sourceProxies.get(key)?.identity === identity) return;
      await this.stopSet(
        this.sourceProxies,
        key,
        "Manager is stopping proxy on source node due to new target location",
      );
      const log = { uid: key, logger: this.options.logger };
      const proxies = routes.map(
        ({ file, target }) =>
          new MigrationProxy({ unixSocketPath: file, ownership: this.options.ownership }, target, log),
      );
      await startAll(proxies);
      this.sourceProxies.set(key, { identity, proxies });
      this.log(key, "Manager created proxy on source node", { listeners: proxies.length });
    });
  }

  getSourceListenerFiles(key: string): string[] {
    return (this.sourceProxies.get(key)?.proxies ?? []).flatMap((proxy) => proxy.unixSocketPath ?? []);
  }

  stopSourceListener(key: string): Promise<void> {
    return this.serialized(() =>
      this.stopSet(this.sourceProxies, key, "Manager stopping proxy on source node"),
    );
  }

  /** Every listener of every key, e.g. once the graceful shutdown period is over. */
  stopAll(): Promise<void> {
    return this.serialized(async () => {
      for (const key of [...this.targetProxies.keys()])
        await this.stopSet(this.targetProxies, key, "Manager stopping proxy on target node");
      for (const key of [...this.sourceProxies.keys()])
        await this.stopSet(this.sourceProxies, key, "Manager stopping proxy on source node");
    });
  }

  private refuseDuringShutdown(): void {
    if (this.shuttingDown) throw new Error(SHUTDOWN_REFUSAL);
  }

  private async stopSet(sets: Map<string, ProxySet>, key: string, message: string): Promise<void> {
    const set = sets.get(key);
    if (!set) return;
    sets.delete(key);
    this.log(key, message);
    await Promise.all(set.proxies.map((proxy) => proxy.stop()));
  }

  private log(key: string, message: string, fields: object = {}): void {
    this.options.logger.info({ uid: key, ...fields }, message);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Starts every proxy or none: on a failure the ones already listening are stopped again. */
async function startAll(proxies: readonly MigrationProxy[]): Promise<void> {
  const results = await Promise.allSettled(proxies.map((proxy) => proxy.start()));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (!failure) return;
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  throw failure.reason;
}
