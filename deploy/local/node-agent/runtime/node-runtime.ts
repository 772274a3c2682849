import { randomBytes } from "node:crypto";
import { access, chown, mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Duplex } from "node:stream";
import { ImagePullError } from "../pod-runtime.js";
import type {
  ContainerRequest,
  ExecResult,
  ExecStreams,
  ImageRef,
  PodRef,
  PodRuntime,
  RecoveredContainer,
  Sandbox,
  SandboxRequest,
  VolumeRequest,
} from "../pod-runtime.js";
import { CgroupTree } from "./cgroup.js";
import { Cni } from "./cni.js";
import { CNI_PLUGIN_TYPES, renderNodeConflist } from "./cni-config.js";
import { MULTUS_PLUGIN_TYPE, renderMultusConflist } from "./multus-config.js";
import type { Conflist } from "./cni-config.js";
import { LOCAL_CLUSTER_NETWORK } from "./cluster-network-config.js";
import type { ClusterNetworkConfig } from "./cluster-network-config.js";
import { ClusterNetwork } from "./cluster-network.js";
import {
  ContainerStartError,
  ambientCapabilities,
  containerArgv,
  findExecutable,
  runAsIdentity,
} from "./container-command.js";
import { resolveVolumeDevices, resolveVolumeMounts } from "./container-mounts.js";
import type { ContainerMount } from "./container-mounts.js";
import { ContainerProcesses, DEBIAN_TOOLS, fromRecordedExit, rootfsDir } from "./container-process.js";
import type { ContainerHandle, HostTools } from "./container-process.js";
import { planContainerRoot } from "./container-root.js";
import { blockDeviceNodeFor, deviceNodeFor } from "./device-nodes.js";
import { listContainerStates } from "./container-state.js";
import { hostNetworkHostsFile, hostnameFile, podHostsFile, resolvConfFile } from "./etc-files.js";
import { ContainerStreamer } from "./container-exec.js";
import { runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { ensurePropagation, unmountAllUnder } from "./host-mounts.js";
import { ImageStore, LocalImagePullError, defaultCacheDir } from "./image-store.js";
import type { ImageStoreOptions, ResolvedImage } from "./image-store.js";
import { readMountInfo, topLevelMounts } from "./mountinfo.js";
import type { MountEntry } from "./mountinfo.js";
import { netnsName } from "./names.js";
import { NodeLayout } from "./node-layout.js";
import { NodeNetwork } from "./node-network.js";
import { PodRecords } from "./pod-records.js";
import { PodSandboxes, netnsFile } from "./pod-sandbox.js";
import { PodVolumes } from "./volumes.js";

// One node's pod runtime: the node agent's Kubernetes side drives it through the PodRuntime interface
// (deploy/local/node-agent/pod-runtime.ts). It owns the node bridge, pod sandboxes, volumes, the image
// store and container processes, and keeps what a restarted agent needs in the node's state directory.

export interface NodeRuntimeConfig {
  nodeName: string;
  /** This node's own state directory (one per node); it keeps <stateDir>/{root,runtime}. */
  stateDir: string;
  /** e.g. 10.244.1.0/24; the node's address is the first host address. */
  podCidr: string;
  /** The cluster network this node joins; default: the local cluster's. */
  cluster?: ClusterNetworkConfig;
  /** Whether this node ensures the host-wide guard, routes and sink (idempotent; default true). */
  ensureClusterNetwork?: boolean;
  images?: ImageStoreOptions;
  /** The CNI plugins' directory (CNI_PATH); default `${XDG_CACHE_HOME:-~/.cache}/kubevirt-ts/bin/cni`,
   * where deploy/local/build-binaries.sh builds them. */
  cniBinDir?: string;
  /** Multus's kubeconfig (its identity for reading NetworkAttachmentDefinitions and writing the pods'
   * network-status); without one, multus runs the cluster network only. */
  multusKubeconfig?: string;
  /** The deadline of each CNI plugin call (multus with its delegates); default 60 s. */
  cniTimeoutMs?: number;
  tools?: HostTools;
  run?: RunCommand;
}

/** The file containerd copies for a sandbox without DNS settings. */
const NODE_RESOLV_CONF = "/etc/resolv.conf";

const REQUIRED_TOOLS: Array<[string, string]> = [
  ["/usr/bin/nsenter", "util-linux"],
  ["/usr/bin/unshare", "util-linux"],
  ["/usr/bin/mkfifo", "coreutils"],
  ["/usr/sbin/nft", "nftables"],
  ["/usr/sbin/ip", "iproute2"],
];

export class NodeRuntime implements PodRuntime {
  readonly layout: NodeLayout;
  readonly network: NodeNetwork;
  readonly clusterNetwork: ClusterNetwork;
  readonly images: ImageStore;
  private readonly sandboxes: PodSandboxes;
  /** The node's own network (bridge + host-local + loopback), multus's clusterNetwork. */
  private readonly conflist: Conflist;
  /** What the sandboxes run: multus, delegating to `conflist` and to the pods' attachments. */
  private readonly multusConflist: Conflist;
  private readonly cniBinDir: string;
  private readonly volumes: PodVolumes;
  private readonly records: PodRecords;
  private readonly containers = new Map<string, ContainerHandle>();
  private readonly resolvedImages = new Map<string, ResolvedImage>();
  private processes!: ContainerProcesses;
  private readonly streamer: ContainerStreamer;
  private cgroups: CgroupTree | undefined;

  private constructor(private readonly config: NodeRuntimeConfig) {
    const run = config.run ?? runCommand;
    const cluster = config.cluster ?? LOCAL_CLUSTER_NETWORK;
    this.layout = new NodeLayout(config.stateDir);
    this.clusterNetwork = new ClusterNetwork(cluster, run);
    this.network = new NodeNetwork(
      { nodeName: config.nodeName, podCidr: config.podCidr, interfacePrefix: cluster.interfacePrefix },
      run,
    );
    this.conflist = renderNodeConflist({
      networkName: this.network.bridge,
      bridge: this.network.bridge,
      podCidr: this.network.podCidr,
      gateway: this.network.nodeIP,
      ipamDataDir: path.join(this.layout.cniDir, "networks"),
      guardedRanges: cluster.podRanges,
    });
    this.cniBinDir = config.cniBinDir ?? path.join(defaultCacheDir(), "bin", "cni");
    this.multusConflist = renderMultusConflist({
      clusterNetworkDir: this.clusterNetworkDir,
      clusterNetwork: this.conflist,
      ...(config.multusKubeconfig !== undefined ? { kubeconfig: config.multusKubeconfig } : {}),
      stateDir: path.join(this.layout.cniDir, "multus"),
      binDir: this.cniBinDir,
    });
    const cni = new Cni({
      binDir: this.cniBinDir,
      cacheDir: path.join(this.layout.cniDir, "cache"),
      ...(config.cniTimeoutMs !== undefined ? { timeoutMs: config.cniTimeoutMs } : {}),
    });
    this.sandboxes = new PodSandboxes(this.network, cni, this.multusConflist, cluster.interfacePrefix, run);
    this.volumes = new PodVolumes(this.layout, run);
    this.records = new PodRecords(this.layout);
    this.images = new ImageStore(config.images);
    this.streamer = new ContainerStreamer(
      path.join(this.images.cacheDir, "bin"),
      (config.tools ?? DEBIAN_TOOLS).nsenter,
    );
  }

  /** Sets the node up (idempotent: safe on every agent start) and returns its runtime. */
  static async create(config: NodeRuntimeConfig): Promise<NodeRuntime> {
    for (const [tool, pkg] of REQUIRED_TOOLS) {
      await access(tool).catch(() => {
        throw new Error(`${tool} is missing: install the Debian package ${pkg}`);
      });
    }
    const runtime = new NodeRuntime(config);
    await runtime.checkCniPlugins();
    await runtime.layout.ensure();
    await runtime.writeConflists();
    await runtime.ensureNodeMounts();
    if (config.ensureClusterNetwork ?? true) await runtime.clusterNetwork.ensure();
    await runtime.network.ensure();
    runtime.cgroups = await CgroupTree.detect();
    runtime.processes = new ContainerProcesses(
      runtime.cgroups,
      config.tools ?? DEBIAN_TOOLS,
      config.run ?? runCommand,
    );
    return runtime;
  }

  get nodeIP(): string {
    return this.network.nodeIP;
  }

  async runSandbox(request: SandboxRequest): Promise<Sandbox> {
    await this.records.remember(request);
    const sandbox = await this.sandboxes.ensure({
      podUID: request.uid,
      namespace: request.namespace,
      name: request.name,
      hostNetwork: request.hostNetwork,
    });
    const hostname = request.hostNetwork ? this.config.nodeName : request.name;
    const hosts = request.hostNetwork
      ? hostNetworkHostsFile(await readFile("/etc/hosts", "utf8").catch(() => ""))
      : podHostsFile(sandbox.podIPs, hostname);
    await this.writePodFile(this.layout.etcHostsPath(request.uid), hosts);
    await this.writePodFile(this.hostnamePath(request.uid), hostnameFile(hostname));
    // as containerd: an empty DNS config means the node's own resolv.conf
    const resolvConf =
      resolvConfFile(request.dns) || (await readFile(NODE_RESOLV_CONF, "utf8").catch(() => ""));
    await this.writePodFile(this.resolvConfPath(request.uid), resolvConf);
    return { podIPs: sandbox.podIPs };
  }

  async stopSandbox(pod: PodRef): Promise<void> {
    await this.sandboxes.teardown(pod.uid);
  }

  async setUpVolumes(pod: PodRef, volumes: VolumeRequest[]): Promise<void> {
    await this.records.remember(pod);
    await this.records.saveVolumes(pod.uid, await this.volumes.prepare(pod.uid, volumes));
  }

  async removePod(pod: PodRef): Promise<void> {
    const running = [...this.containers.values()].filter((handle) => handle.record.pod.uid === pod.uid);
    await Promise.all(running.map((handle) => handle.stop(0)));
    for (const handle of running) this.containers.delete(handle.id);
    await this.sandboxes.teardown(pod.uid);
    await this.volumes.teardown(pod.uid);
    await rm(this.layout.podLogDir(pod), { recursive: true, force: true });
    await unmountAllUnder(this.layout.runtimePodDir(pod.uid), this.run);
    await rm(this.layout.runtimePodDir(pod.uid), { recursive: true, force: true });
    if (this.cgroups) await this.cgroups.remove(this.cgroups.pathOf([this.config.nodeName, pod.uid]));
  }

  async pullImage(image: string): Promise<ImageRef> {
    try {
      const resolved = await this.images.pull(image);
      this.resolvedImages.set(image, resolved);
      return { image, imageID: resolved.imageID };
    } catch (error) {
      if (error instanceof LocalImagePullError) throw new ImagePullError(error.message);
      throw error;
    }
  }

  async startContainer(request: ContainerRequest): Promise<ContainerHandle> {
    const image =
      this.resolvedImages.get(request.image.image) ?? (await this.images.pull(request.image.image));
    const argv = containerArgv(image, request.command, request.args);
    const volumes = await this.records.volumes(request.pod.uid);
    const mounts = [
      ...(await resolveVolumeMounts(request.name, volumes, request.mounts)),
      ...(await this.hostMounts(request)),
    ];
    const stateDir = this.layout.containerStateDir(request.pod.uid, request.name);
    const volumeDevices = await Promise.all(
      resolveVolumeDevices(request.name, volumes, request.volumeDevices).map(async (device) => ({
        hostPath: await blockDeviceNodeFor(device.hostPath, path.join(stateDir, "devices")),
        containerPath: device.containerPath,
      })),
    );
    const hostMounts = image.rootfs.kind === "host" ? await this.hostMountsToCarry() : [];
    const plan = await planContainerRoot({
      scratchDir: rootfsDir(stateDir),
      rootfs: image.rootfs.kind === "host" ? { kind: "host", hostMounts } : image.rootfs,
      privileged: request.privileged,
      mounts,
      etcFiles: [
        { destination: "/etc/hosts", source: this.layout.etcHostsPath(request.pod.uid) },
        { destination: "/etc/hostname", source: this.hostnamePath(request.pod.uid) },
        { destination: "/etc/resolv.conf", source: this.resolvConfPath(request.pod.uid) },
      ],
      executables: image.executables,
      devices: await Promise.all(
        request.devices.map(async (device) => ({
          hostPath: await deviceNodeFor(
            await this.layout.hostPathSource(device.hostPath),
            path.join(stateDir, "devices"),
          ),
          containerPath: device.containerPath,
        })),
      ),
      volumeDevices,
      workingDir: request.workingDir ?? image.workingDir,
    });
    const env: Record<string, string> = {
      ...image.env,
      HOSTNAME: await this.hostname(request.pod.uid),
      ...request.env,
    };
    const executable = await findExecutable(plan.layers, argv[0] as string, {
      path: env["PATH"] ?? "",
      workingDir: plan.workingDir,
      provided: new Set(image.executables.map((file) => file.path)),
    });
    const entryPoint = image.entryPoints[executable];
    if (entryPoint) {
      await access(entryPoint.file).catch(() => {
        throw new ContainerStartError(
          `exec: "${argv[0]}": ${entryPoint.file} does not exist: ${entryPoint.missing}`,
        );
      });
    }
    const identity = await runAsIdentity(plan.layers, request.runAsUser, request.runAsGroup, image.user);
    // containerd's device_ownership_from_security_context: a non-root container owns its block devices.
    if (identity) {
      for (const device of volumeDevices) await chown(device.hostPath, identity.uid, identity.gid);
    }
    const netnsPath = request.hostNetwork
      ? undefined
      : netnsFile(netnsName(this.netnsPrefix, request.pod.uid));
    if (netnsPath) {
      await access(netnsPath).catch(() => {
        throw new ContainerStartError(
          `the pod's network namespace ${netnsPath} does not exist: run the sandbox first`,
        );
      });
    }
    const handle = await this.processes.start({
      id: randomBytes(32).toString("hex"),
      pod: request.pod,
      name: request.name,
      attempt: request.attempt,
      argv,
      env,
      plan,
      ...(identity ? { identity } : {}),
      ...(identity && identity.uid !== 0 ? { ambientCapabilities: ambientCapabilities(request) } : {}),
      ...(netnsPath ? { netnsPath, hostname: env["HOSTNAME"] ?? request.pod.name } : {}),
      stateDir,
      logPath: this.logPath(request.pod, request.name, request.attempt),
      cgroupParts: [this.config.nodeName, request.pod.uid, `${request.name}-${request.attempt}`],
    });
    this.track(handle);
    return handle;
  }

  async stopContainer(id: string, gracePeriodMs: number): Promise<void> {
    await this.containers.get(id)?.stop(gracePeriodMs);
  }

  async exec(id: string, command: string[], timeoutMs: number): Promise<ExecResult> {
    const handle = this.containers.get(id);
    if (!handle) return { exitCode: 126, output: `container ${id} is not running` };
    return this.processes.exec(handle.pid, command, timeoutMs);
  }

  /** kubelet's exec: an interactive command in a running container (see container-exec.ts). */
  async execStream(id: string, command: string[], io: ExecStreams): Promise<number> {
    return this.streamer.exec(this.runningPid(id), command, io);
  }

  /** kubelet's port-forward: `stream` to localhost:`port` in the network namespace of the container's pod. */
  async portForward(id: string, port: number, stream: Duplex): Promise<void> {
    return this.streamer.portForward(this.runningPid(id), port, stream);
  }

  private runningPid(id: string): number {
    const handle = this.containers.get(id);
    if (!handle) throw new Error(`container ${id} is not running`);
    return handle.pid;
  }

  logPath(pod: PodRef, container: string, attempt: number): string {
    return this.layout.containerLogPath(pod, container, attempt);
  }

  async recoverContainers(): Promise<RecoveredContainer[]> {
    const recovered: RecoveredContainer[] = [];
    for (const state of await listContainerStates(path.join(this.layout.runtimeDir, "pods"))) {
      const known = this.containers.get(state.id);
      const adopted = known
        ? { handle: known, state }
        : await this.processes.adopt(this.layout.containerStateDir(state.pod.uid, state.name));
      if (!adopted) continue;
      if (adopted.handle) this.track(adopted.handle);
      const base = { pod: state.pod, name: state.name, attempt: state.attempt, id: state.id };
      if (adopted.handle && !adopted.state.exit) recovered.push({ ...base, process: adopted.handle });
      else if (adopted.state.exit) recovered.push({ ...base, exit: fromRecordedExit(adopted.state.exit) });
      else recovered.push(base);
    }
    return recovered;
  }

  async recoverPods(): Promise<PodRef[]> {
    return this.records.pods();
  }

  /** Removes every pod and the node's bridge (`make down`); the host-wide network only when asked. */
  async teardownNode(options: { clusterNetwork?: boolean } = {}): Promise<void> {
    const containers = await this.recoverContainers();
    const pods = new Map(
      [...(await this.records.pods()), ...containers.map((c) => c.pod)].map((p) => [p.uid, p]),
    );
    for (const pod of pods.values()) await this.removePod(pod);
    for (const uid of await this.sandboxes.recordedPods()) await this.sandboxes.teardown(uid);
    await this.network.teardown();
    if (this.cgroups) {
      await this.cgroups.remove(this.cgroups.pathOf([this.config.nodeName]));
      await this.cgroups.pruneTree();
    }
    if (options.clusterNetwork) await this.clusterNetwork.teardown();
    await unmountAllUnder(this.layout.nodeDir, this.run);
  }

  /** The plugins the conflist names, checked up front so a missing build fails the node, not each pod. */
  private async checkCniPlugins(): Promise<void> {
    for (const plugin of [...CNI_PLUGIN_TYPES, MULTUS_PLUGIN_TYPE]) {
      const file = path.join(this.cniBinDir, plugin);
      await access(file).catch(() => {
        throw new Error(
          `the CNI plugin ${file} is missing: build it with deploy/local/build-binaries.sh cni-plugins multus`,
        );
      });
    }
  }

  /** The node's network configurations: the node conflist alone in net.d, the folder multus reads for
   * eth0 on every ADD (a second file there could be taken instead); multus's own beside it, for whoever
   * looks (00-, as its thin entrypoint names it). */
  private async writeConflists(): Promise<void> {
    for (const name of await readdir(this.clusterNetworkDir).catch((): string[] => [])) {
      if (name !== path.basename(this.conflistFile)) await rm(path.join(this.clusterNetworkDir, name));
    }
    await this.writePodFile(this.conflistFile, `${JSON.stringify(this.conflist, null, 2)}\n`);
    const multusFile = path.join(this.layout.cniDir, "00-multus.conflist");
    await this.writePodFile(multusFile, `${JSON.stringify(this.multusConflist, null, 2)}\n`);
  }

  private get clusterNetworkDir(): string {
    return path.join(this.layout.cniDir, "net.d");
  }

  private get conflistFile(): string {
    return path.join(this.clusterNetworkDir, `10-${this.conflist.name}.conflist`);
  }

  private get run(): RunCommand {
    return this.config.run ?? runCommand;
  }

  /**
   * The node root shared, so volumes can propagate mounts (mountPropagation), and the runtime dir private,
   * so the containers' root mounts made there stay where they are.
   */
  private async ensureNodeMounts(): Promise<void> {
    const shared = await ensurePropagation(this.layout.root, "shared", this.run);
    const isolated = await ensurePropagation(this.layout.runtimeDir, "private", this.run);
    if (!shared || !isolated) {
      console.warn(
        `node ${this.config.nodeName}: mounts from an earlier agent exist below ${this.layout.nodeDir}; ` +
          "mountPropagation stays None until the node is set up afresh",
      );
    }
  }

  private get netnsPrefix(): string {
    return (this.config.cluster ?? LOCAL_CLUSTER_NETWORK).interfacePrefix;
  }

  private track(handle: ContainerHandle): void {
    this.containers.set(handle.id, handle);
    void handle.exited.then(() => this.containers.delete(handle.id));
  }

  private hostnamePath(uid: string): string {
    return path.join(this.layout.runtimePodDir(uid), "hostname");
  }

  private resolvConfPath(uid: string): string {
    return path.join(this.layout.runtimePodDir(uid), "resolv.conf");
  }

  private async hostname(uid: string): Promise<string> {
    return (await readFile(this.hostnamePath(uid), "utf8").catch(() => "localhost\n")).trim();
  }

  private async writePodFile(file: string, content: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content, { mode: 0o644 });
  }

  /** The host's mounts a host-rootfs container sees again; pods' own mounts (memory emptyDirs under the
   * state directory) reach containers only through their volumes. */
  private async hostMountsToCarry(): Promise<MountEntry[]> {
    const stateDir = path.resolve(this.config.stateDir);
    return topLevelMounts(await readMountInfo()).filter(
      (mount) => mount.mountPoint !== stateDir && !mount.mountPoint.startsWith(`${stateDir}/`),
    );
  }

  private async hostMounts(request: ContainerRequest): Promise<ContainerMount[]> {
    return Promise.all(
      request.hostMounts.map(async (mount) => {
        const source = await this.layout.hostPathSource(mount.hostPath);
        const stats = await stat(source);
        return {
          source,
          destination: mount.containerPath,
          readOnly: mount.readOnly,
          kind: stats.isDirectory() ? ("directory" as const) : ("file" as const),
        };
      }),
    );
  }
}
