// virt-handler's wiring for the pieces built so far: the device plugins, the node heartbeat with the
// machine-type labels, the VMI controller for the VMIs on this node, and /healthz on --port.
import { accessSync, constants, existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import {
  EventRecorder,
  clientEventSink,
  coreGVR,
  resourceInformer,
  systemClock,
  type Clock,
  type Informer,
  type KubeClient,
  type Logger,
} from "../controller/index.js";
import { DEFAULT_PODS_BASE_DIR } from "../handler-launcher-com/sockets.js";
import { NetConf } from "../network/setup/netconf.js";
import { VIRT_PRIVATE_DIR } from "../network/cache/podinterface.js";
import { NodeNameLabel, NonRootUID } from "../util/constants.js";
import type { CAManager } from "../util/tls/ca-manager.js";
import { isNonRoot } from "../vmitrait/vmitrait.js";
import { virtualMachineInstancesGVR } from "../controller/resources.js";
import { HealthServer } from "../healthz/health-server.js";
import type { ClusterConfigSource } from "../virt-config/cluster-config-source.js";
import { ClusterConfig } from "../virt-config/cluster-config.js";
import { runConsoleServer, type ConsoleOptions } from "./console-app.js";
import { kubevirtCA } from "./kubevirt-ca.js";
import { MigrationProxyManager } from "./migration-proxy/migration-proxy.js";
import { fileMigrationTLS } from "./migration-proxy/tls.js";
import { ownershipFor } from "../ephemeral-disk/ownership.js";
import { DEVICE_PLUGIN_SUBDIR } from "./device-manager/deviceplugin/v1beta1/api.js";
import { DeviceController } from "./device-manager/device-controller.js";
import { DEFAULT_HEARTBEAT_INTERVAL_MS, Heartbeat, type NodeMetadataPatch } from "./heartbeat/heartbeat.js";
import { NodeContainerDiskMounter } from "./container-disk/mount.js";
import { NodeHotplugVolumeMounter } from "./hotplug-disk/mount.js";
import { SocketIsolationDetector } from "./isolation/detector.js";
import { nodeMountCommand } from "./node-mount-command.js";
import { nodeProcessPid } from "./node-process.js";
import { dialLauncher, LauncherClients } from "./launcher-clients.js";
import { MetricsEndpoint } from "../monitoring/metrics/common/endpoint.js";
import { HandlerMetrics } from "../monitoring/metrics/virt-handler/metrics.js";
import { PodNetworkSetup } from "./network-setup.js";
import { cachedPodInterfaceIPs } from "./pod-interface-ips.js";
import { NotifyPipes } from "./notify-server/pipe.js";
import { DomainNotifyServer, domainNotifySocketPath } from "./notify-server/server.js";
import type { HostCapabilities } from "./node-labeller/host-capabilities.js";
import {
  cpuLabels,
  loadHostCapabilities,
  NODE_LABELLER_VOLUME_PATH,
} from "./node-labeller/host-capabilities.js";
import { detectMachineTypes, machineTypeLabels } from "./node-labeller/machine-types.js";
import { LauncherHostDisks } from "./host-disks.js";
import { VirtualMachineController } from "./vm.js";
import { MigrationSourceController } from "./migration-source.js";
import { MigrationTargetController } from "./migration-target.js";
import { MigrationTargetNodeNameLabel } from "../util/constants.js";

/** Upstream's HostRootMount: the node's filesystem as seen by a privileged pod with hostPID. */
const HOST_ROOT_MOUNT = "/proc/1/root";

export interface VirtHandlerOptions {
  client: KubeClient;
  /** The Node this handler runs on. */
  host: string;
  kubeletRoot: string;
  maxDevices: number;
  logger: Logger;
  /** Where the node's /dev is visible; default: /proc/1/root when readable, else /. */
  deviceRoot?: string;
  heartbeatIntervalMs?: number;
  /** The kubelet pods dir as this process sees it (the DaemonSet mounts it at /pods). */
  podsDir?: string;
  /** virt-handler's own private dir (`--kubevirt-private-dir`): the pod interface caches. */
  virtPrivateDir?: string;
  vmiWorkers?: number;
  /** Where the Notify server listens (domain-notify.sock); absent: no Notify server (in-process tests). */
  virtShareDir?: string;
  enableNodeLabeller?: boolean;
  /** Where the init container left libvirt's answers (the node-labeller volume). */
  nodeLabellerDir?: string;
  clock?: Clock;
  /** Absent: no HTTP endpoints (in-process tests). */
  http?: { bindAddress: string; port: number; certFile: string; keyFile: string };
  /** The mTLS console server for virt-api; absent: none (in-process tests). */
  console?: ConsoleOptions;
  /** The live configuration (the KubeVirt CR); absent: the defaults, nothing watched (in-process tests). */
  clusterConfig?: ClusterConfigSource;
  /** Live migration between handlers; absent: none (in-process tests). Needs `console` for the CA. */
  migration?: MigrationOptions;
  /** Served on /metrics; give its restClient to the client's transport. Absent: a fresh registry. */
  metrics?: HandlerMetrics;
  /** --max-metric-requests: scrapes at a time, and collections from one launcher at a time; default 3. */
  maxMetricRequests?: number;
}

export interface MigrationOptions {
  /** Where other handlers reach this one's target listeners (upstream: the pod IP). */
  ipAddress: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** --migration-cn-types */
  commonNameTypes: readonly string[];
}

function defaultDeviceRoot(): string {
  try {
    accessSync(path.join(HOST_ROOT_MOUNT, "dev"), constants.R_OK);
    return HOST_ROOT_MOUNT;
  } catch {
    return "/";
  }
}

/** On cgroup v2, runc's device filter needs `m` too, or probing the device with access(2) fails (upstream). */
function devicePermissions(): string {
  return existsSync("/sys/fs/cgroup/cgroup.controllers") ? "rwm" : "rw";
}

type NodeParts = ReturnType<VirtHandlerApp["nodeParts"]>;

export class VirtHandlerApp {
  readonly devices: DeviceController;
  readonly metrics: HandlerMetrics;
  private readonly clock: Clock;

  constructor(private readonly options: VirtHandlerOptions) {
    this.clock = options.clock ?? systemClock;
    this.metrics = options.metrics ?? new HandlerMetrics(options.logger);
    this.devices = new DeviceController({
      pluginDir: path.join(options.kubeletRoot, DEVICE_PLUGIN_SUBDIR),
      deviceRoot: options.deviceRoot ?? defaultDeviceRoot(),
      maxDevices: options.maxDevices,
      permissions: devicePermissions(),
      logger: options.logger,
      clock: this.clock,
    });
  }

  /** Runs until the signal aborts; the node is labelled unschedulable on the way out. */
  async run(signal: AbortSignal): Promise<void> {
    const { client, host, logger, clusterConfig } = this.options;
    const health =
      this.options.http &&
      new HealthServer({
        ...this.options.http,
        transport: client.transport,
        isLeader: () => false,
        configResourceVersion: () => clusterConfig?.configResourceVersion() ?? "",
        metrics: new MetricsEndpoint(this.metrics.registry, this.maxMetricRequests),
      });
    await health?.start();
    const capabilities = await loadHostCapabilities(
      this.options.nodeLabellerDir ?? NODE_LABELLER_VOLUME_PATH,
    );
    logger.info(
      { node: host, hostCpuModel: capabilities.hostCpuModel?.name ?? "", models: capabilities.usableModels },
      "Host CPU capabilities found",
    );
    const heartbeat = await this.heartbeat(capabilities);
    logger.info({ node: host }, "Starting virt-handler");
    const vmis = resourceInformer<VirtualMachineInstance>(client, virtualMachineInstancesGVR, {
      labelSelector: `${NodeNameLabel}=${host}`,
      logger,
    });
    const launchers = new LauncherClients(host, this.options.podsDir ?? DEFAULT_PODS_BASE_DIR);
    this.metrics.collectDomainStatsFrom({
      vmis: () => vmis.list(),
      dial: (vmi) => dialLauncher(vmi, host, this.options.podsDir ?? DEFAULT_PODS_BASE_DIR),
      maxRequestsPerLauncher: this.maxMetricRequests,
    });
    // Only containerDisk mounts need it; without it they fail with the reason, the rest still works.
    const nodePid = await nodeProcessPid().catch((error: unknown) => {
      logger.warn({ err: error }, "node mount namespace not found; containerDisk mounts will fail");
      return 1;
    });
    logger.info({ nodePid }, "Acting in the node's mount namespace through this process");
    const shareDir = this.options.virtShareDir;
    const pipes =
      shareDir &&
      new NotifyPipes({
        host,
        podsDir: this.options.podsDir ?? DEFAULT_PODS_BASE_DIR,
        notifySocket: domainNotifySocketPath(shareDir),
        ownerFor: (vmi) => (isNonRoot(vmi) ? NonRootUID : undefined),
        logger,
      });
    const parts = this.nodeParts(nodePid);
    const ca =
      this.options.console &&
      kubevirtCA(client, this.options.console.namespace, this.options.console.caConfigMapName, logger);
    const watchingCA = ca?.run(signal);
    const proxies = ca && this.migrationProxies(ca.caManager);
    // The VMIs migrating to this node carry its name in another label than the ones running here (upstream's
    // target informer).
    const targetVMIs = resourceInformer<VirtualMachineInstance>(client, virtualMachineInstancesGVR, {
      labelSelector: `${MigrationTargetNodeNameLabel}=${host}`,
      logger,
    });
    const migration = this.options.migration;
    const migrations =
      proxies &&
      migration &&
      this.migrationControllers(vmis, targetVMIs, launchers, parts, proxies, migration, pipes || undefined);
    const vmController = this.vmController(vmis, launchers, parts, pipes || undefined, capabilities, proxies);
    const notify = new DomainNotifyServer({
      onDomainEvent: (key) => {
        vmController.enqueueKey(key);
        migrations?.source.enqueueKey(key);
        migrations?.target.enqueueKey(key);
      },
      logger,
    });
    if (shareDir) {
      await mkdir(shareDir, { recursive: true });
      await notify.start(domainNotifySocketPath(shareDir));
    }
    const watchingConfig = clusterConfig?.run(signal);
    const runVMIs = async () => {
      const informers = [vmis.run(signal), targetVMIs.run(signal)];
      // As upstream, VMIs are handled only once the configuration is known, never with a guess.
      const synced = await Promise.all([
        vmis.waitForSync(signal),
        targetVMIs.waitForSync(signal),
        clusterConfig?.waitForSync(signal) ?? true,
      ]);
      if (synced.every(Boolean)) {
        const workers = this.options.vmiWorkers ?? 2;
        await Promise.all([
          vmController.run(workers, signal),
          migrations?.source.run(workers, signal),
          migrations?.target.run(workers, signal),
        ]);
      }
      await Promise.all(informers);
      launchers.closeAll();
      if (pipes) pipes.closeAll();
    };
    // Ready as its servers come up (upstream: the console server), not ready once shutting down.
    this.metrics.ready.set(1);
    signal.addEventListener("abort", () => this.metrics.ready.set(0), { once: true });
    try {
      await Promise.all([
        runVMIs(),
        this.devices.run(signal),
        heartbeat.run(this.options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS, signal),
        this.options.console &&
          ca &&
          runConsoleServer(
            this.options.console,
            {
              client,
              host,
              podsDir: this.options.podsDir ?? DEFAULT_PODS_BASE_DIR,
              vmis,
              launcher: launchers.connector,
              caManager: ca.caManager,
              logger,
            },
            signal,
          ),
      ]);
    } finally {
      await proxies?.stopAll();
      await watchingCA;
      await notify.stop();
      await health?.stop();
      await watchingConfig;
    }
  }

  private get maxMetricRequests(): number {
    return this.options.maxMetricRequests ?? 3;
  }

  private migrationProxies(caManager: CAManager): MigrationProxyManager | undefined {
    const { migration, clusterConfig, logger } = this.options;
    if (!migration) return undefined;
    return new MigrationProxyManager({
      tls: fileMigrationTLS({
        caBundle: () => caManager.current(),
        serverCertFile: migration.serverCertFile,
        serverKeyFile: migration.serverKeyFile,
        clientCertFiles: [{ certFile: migration.clientCertFile, keyFile: migration.clientKeyFile }],
        clientCommonNameTypes: migration.commonNameTypes,
      }),
      disableTLS: () => clusterConfig?.current().getConfig().migrations?.disableTLS === true,
      // The source sockets are QEMU's to connect to, as upstream hands them to its user.
      ownership: ownershipFor(NonRootUID, NonRootUID),
      logger,
    });
  }

  private async heartbeat(capabilities: HostCapabilities): Promise<Heartbeat> {
    const { client, host, logger, clusterConfig } = this.options;
    const nodes = client.resource(coreGVR.nodes);
    const labelling = this.options.enableNodeLabeller !== false;
    const machines = labelling ? await detectMachineTypes() : [];
    logger.info({ node: host, machines }, "Machine types found");
    const machineLabels = machineTypeLabels(machines);
    return new Heartbeat({
      host,
      patchNode: async (name: string, patch: NodeMetadataPatch) => {
        await nodes.patch("", name, "strategic", patch);
      },
      devicesReady: () => this.devices.initialized(),
      // The obsolete CPU models are the KubeVirt CR's, read at every beat.
      labellerLabels: () => ({
        ...machineLabels,
        ...(labelling
          ? cpuLabels(capabilities, clusterConfig?.current().getConfig().obsoleteCPUModels ?? undefined)
          : {}),
      }),
      clock: this.clock,
      logger,
    });
  }

  /** What the VMI controller and the migration controllers share: one detector, recorder and set of mounters. */
  private nodeParts(nodePid: number) {
    const { host, logger, clusterConfig } = this.options;
    const podsDir = this.options.podsDir ?? DEFAULT_PODS_BASE_DIR;
    const privateDir = this.options.virtPrivateDir ?? VIRT_PRIVATE_DIR;
    const detector = new SocketIsolationDetector({ host, podsDir });
    const recorder = new EventRecorder(
      clientEventSink(this.options.client),
      { component: "virt-handler", host },
      { logger },
    );
    const nodeMounts = { detector, run: nodeMountCommand(`/proc/${nodePid}/ns/mnt`), nodePid };
    return {
      detector,
      recorder,
      privateDir,
      containerDisks: new NodeContainerDiskMounter({
        host,
        podsDir,
        recordDir: path.join(privateDir, "container-disk-mount-state"),
        ...nodeMounts,
      }),
      hotplugVolumes: new NodeHotplugVolumeMounter({
        podsDir,
        recordDir: path.join(privateDir, "hotplug-volume-mount-state"),
        ...nodeMounts,
      }),
      network: new PodNetworkSetup(detector, new NetConf({ privateDir, logger })),
      hostDisks: new LauncherHostDisks({
        detector,
        clusterConfig: () => clusterConfig?.current() ?? ClusterConfig.defaults(),
        recorder,
      }),
    };
  }

  /** virt-handler's two migration controllers (upstream's source and target controllers). */
  private migrationControllers(
    vmis: Informer<VirtualMachineInstance>,
    targetVMIs: Informer<VirtualMachineInstance>,
    launchers: LauncherClients,
    parts: NodeParts,
    proxy: MigrationProxyManager,
    migration: MigrationOptions,
    notifyPipes: NotifyPipes | undefined,
  ): { source: MigrationSourceController; target: MigrationTargetController } {
    const vmiResource = this.options.client.resource<VirtualMachineInstance>(virtualMachineInstancesGVR);
    const { clusterConfig } = this.options;
    const shared = {
      host: this.options.host,
      launchers: launchers.connector,
      updateVMI: async (vmi: VirtualMachineInstance) => {
        await vmiResource.update(vmi);
      },
      podRoot: async (vmi: VirtualMachineInstance) => (await parts.detector.detect(vmi)).rootFs,
      proxy,
      recorder: parts.recorder,
      logger: this.options.logger,
      clock: this.clock,
    };
    return {
      source: new MigrationSourceController({
        ...shared,
        vmis,
        migrationConfiguration: () => clusterConfig?.current().getConfig().migrations ?? undefined,
      }),
      target: new MigrationTargetController({
        ...shared,
        vmis: targetVMIs,
        migrationIpAddress: migration.ipAddress,
        containerDisks: parts.containerDisks,
        network: parts.network,
        hostDisks: parts.hostDisks,
        ...(notifyPipes ? { notifyPipes } : {}),
      }),
    };
  }

  private vmController(
    vmis: Informer<VirtualMachineInstance>,
    launchers: LauncherClients,
    parts: NodeParts,
    notifyPipes: NotifyPipes | undefined,
    capabilities: HostCapabilities,
    migrationProxy: MigrationProxyManager | undefined,
  ): VirtualMachineController {
    const vmiResource = this.options.client.resource<VirtualMachineInstance>(virtualMachineInstancesGVR);
    const { host } = this.options;
    const { clusterConfig } = this.options;
    return new VirtualMachineController({
      host,
      vmis,
      launchers: launchers.connector,
      hostCpuModel: capabilities.hostCpuModel?.name ?? "",
      ...(clusterConfig
        ? {
            supportedAgentVersions: () => clusterConfig.current().getSupportedAgentVersions(),
            bindingPlugins: () => clusterConfig.current().getConfig().network?.binding ?? {},
            clusterEvictionStrategy: () => clusterConfig.current().getEvictionStrategy(),
          }
        : {}),
      ...(notifyPipes ? { notifyPipes } : {}),
      ...(migrationProxy ? { migrationProxy } : {}),
      podInterfaceIPs: (vmi) => cachedPodInterfaceIPs(parts.privateDir, vmi),
      containerDisks: parts.containerDisks,
      hotplugVolumes: parts.hotplugVolumes,
      network: parts.network,
      hostDisks: parts.hostDisks,
      recorder: parts.recorder,
      // The VMI CRD has no status subresource (as upstream), and upstream grants virt-handler `update`, not
      // `patch`, on VMIs: the changed status fields go back with PUT at the resourceVersion they were
      // computed from, so a stale cache gets a conflict (and a retry) instead of overwriting.
      patchStatus: async (namespace, name, patch) => {
        const cached = vmis.get(`${namespace}/${name}`);
        if (!cached) return;
        const delta = patch as { metadata?: { resourceVersion?: string }; status?: object };
        // A null in the patch removes the field, as in a merge patch.
        const status = Object.fromEntries(
          Object.entries({ ...cached.status, ...delta.status }).filter(([, value]) => value !== null),
        );
        await vmiResource.update({
          ...cached,
          metadata: { ...cached.metadata, resourceVersion: delta.metadata?.resourceVersion },
          status,
        } as VirtualMachineInstance);
      },
      logger: this.options.logger,
      clock: this.clock,
    });
  }
}
