import { mkdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeConfigTransport } from "../../../pkg/controller/rest.js";
import { Backoff } from "./backoff.js";
import { DEVICE_PLUGIN_DIR } from "./device-plugin-api.js";
import { DeviceManager } from "./device-manager.js";
import { KubeEventRecorder } from "./events.js";
import type { AgentFlags } from "./flags.js";
import { readHostFacts } from "./host-facts.js";
import { objectSource, RestKubeClient, type KubeClient } from "./kube-client.js";
import { KubeletServer } from "./kubelet-server.js";
import { LocalBlockRecycler, RECYCLER_COMPONENT } from "./local-block-recycler.js";
import { readLoopDeviceRecords } from "./loop-device-record.js";
import type { Logger } from "./logger.js";
import { HostLoopDeviceTools, type LoopDeviceTools } from "./loop-device-wipe.js";
import { NodeLease } from "./node-lease.js";
import { nodeAllocatable, type HostFacts } from "./node-object.js";
import { NodeRegistrar } from "./node-registrar.js";
import { nodePodInformer } from "./pod-source.js";
import { PodDNSConfigurer } from "./pod-dns.js";
import { PodManager } from "./pod-manager.js";
import type { PodRuntime } from "./pod-runtime.js";
import { PodStateStore } from "./pod-state-store.js";
import { makeProbeRunner } from "./probe-runner.js";
import { parseQuantity } from "./quantity.js";
import { ensureServingCert } from "./serving-cert.js";
import { ServiceAccountTokens } from "./service-account-tokens.js";
import { PodStreamingHost } from "./streaming/pod-streaming-host.js";
import { StreamingServer } from "./streaming/streaming-server.js";

// The node agent assembled: Node registration and heartbeats, the kubelet endpoints, device plugin
// registration, and the pods bound to this node. Stopping the agent leaves the pods' processes running,
// as stopping kubelet does; the next start adopts them.

export const RUNTIME_VERSION = "kubevirt-ts://0.1.0";

/** Retries a start-up step until it succeeds (like kubelet's registration loop), 1 s doubling to 10 s. */
async function untilSucceeds<T>(
  what: string,
  step: () => Promise<T>,
  log: Logger,
  signal: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (signal.aborted) throw err;
      const delay = Math.min(1000 * 2 ** attempt, 10_000);
      log.warn({ err, retryInMs: delay }, `could not ${what}; retrying`);
      await sleep(delay);
    }
  }
}

export interface AgentOptions {
  flags: AgentFlags;
  runtime: PodRuntime;
  /** The node's stand-in for "/", where kubelet's directories (device plugins) live. */
  nodeRoot: string;
  log: Logger;
  /** For tests: an apiserver client instead of one built from --kubeconfig. */
  client?: KubeClient;
  /** For tests: loop-device tools instead of the host's losetup and blkdiscard. */
  loopDevices?: LoopDeviceTools;
}

export class NodeAgent {
  private readonly abort = new AbortController();
  private server: KubeletServer | undefined;
  private devices: DeviceManager | undefined;
  private pods: PodManager | undefined;
  private port = 0;

  constructor(private readonly options: AgentOptions) {}

  private makeClient(): KubeClient {
    if (this.options.client) return this.options.client;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(this.options.flags.kubeconfig);
    return new RestKubeClient(new KubeConfigTransport(kubeConfig));
  }

  async start(): Promise<void> {
    const { flags, runtime, log } = this.options;
    const signal = this.abort.signal;
    await mkdir(flags.stateDir, { recursive: true });
    const client = this.makeClient();
    const size = { cpus: flags.cpus, memoryBytes: flags.memory, maxPods: flags.maxPods };
    const hostFacts = (): HostFacts => readHostFacts(flags.stateDir, size);
    const allocatable = () => {
      const list = nodeAllocatable(hostFacts());
      return {
        cpu: parseQuantity(list.cpu ?? "1"),
        memory: parseQuantity(list.memory ?? "0"),
        "ephemeral-storage": parseQuantity(list["ephemeral-storage"] ?? "0"),
      };
    };

    let statusSoon: NodeJS.Timeout | undefined;
    const devices = new DeviceManager(path.join(this.options.nodeRoot, DEVICE_PLUGIN_DIR), log, () => {
      // Coalesce bursts of device updates into one status write.
      statusSoon ??= setTimeout(() => {
        statusSoon = undefined;
        registrar.syncStatus().catch((err: unknown) => log.error({ err }, "node status update failed"));
      }, 200);
    });
    this.devices = devices;

    const registrar = new NodeRegistrar(
      client,
      {
        identity: {
          name: flags.node,
          internalIP: flags.nodeIP,
          podCIDR: flags.podCIDR,
          kubeletVersion: await untilSucceeds(
            "read the apiserver version",
            () => client.serverVersion(),
            log,
            signal,
          ),
          runtimeVersion: RUNTIME_VERSION,
        },
        hostFacts,
        extendedResources: () => devices.extendedResources(),
      },
      log,
    );
    const node = await untilSucceeds("register the node", () => registrar.register(), log, signal);
    new NodeLease(client, flags.node, () => node.metadata.uid, log).run(signal);
    registrar.run(signal);
    const recordFile = flags.loopDevices;
    if (recordFile) {
      // this node's Released local-block PVs wiped and offered again, as the local static provisioner does
      void new LocalBlockRecycler({
        node: flags.node,
        client,
        records: () => readLoopDeviceRecords(recordFile),
        devices: this.options.loopDevices ?? new HostLoopDeviceTools(),
        events: new KubeEventRecorder(client, flags.node, log, Date.now, RECYCLER_COMPONENT),
        pendingDir: path.join(flags.stateDir, "local-block-recycler"),
        log,
      }).run(signal);
    }

    const store = new PodStateStore(path.join(flags.stateDir, "pods"));
    const informer = nodePodInformer(client, flags.node, log);
    const manager = new PodManager(
      informer,
      runtime,
      store,
      {
        nodeName: flags.node,
        nodeIP: flags.nodeIP,
        client,
        runtime,
        devices,
        tokens: new ServiceAccountTokens(client),
        objects: objectSource(client),
        probeRunner: makeProbeRunner(runtime),
        dns: new PodDNSConfigurer(flags),
        events: new KubeEventRecorder(client, flags.node, log),
        store,
        allocatable,
        apiService: { host: flags.apiServiceIP, port: flags.apiServicePort },
        crashBackoff: new Backoff(),
        imageBackoff: new Backoff(),
        log,
      },
      log,
    );
    this.pods = manager;

    const serving = await ensureServingCert({
      stateDir: flags.stateDir,
      caCertPath: flags.caCert,
      caKeyPath: flags.caKey,
      nodeName: flags.node,
      nodeIP: flags.nodeIP,
    });
    this.server = new KubeletServer({
      host: flags.nodeIP,
      port: flags.kubeletPort,
      cert: serving.cert,
      key: serving.key,
      clientCA: await readFile(flags.caCert, "utf8"),
      logs: manager,
      streaming: new StreamingServer(new PodStreamingHost(manager, runtime), log),
      log,
    });
    const port = await this.server.start();
    this.port = port;
    await devices.start();

    // The informer retries a failing list itself; adoption needs the node's pods as they are now.
    void informer.run(signal);
    if (!(await informer.waitForSync(signal))) return;
    const { adopted, removed } = await manager.adopt();
    log.info({ adopted: adopted.length, removed: removed.length, kubeletPort: port }, "node agent running");
    manager.start(signal);
  }

  /** The port the kubelet endpoints listen on (useful with --kubelet-port 0). */
  get kubeletPort(): number {
    return this.port;
  }

  /** Stops serving and watching; pods keep running for the next start to adopt. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.pods?.stop();
    await this.server?.stop();
    await this.devices?.stop();
  }
}
