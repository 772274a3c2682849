import type { Duplex, Readable, Writable } from "node:stream";

// What the Kubernetes side of the node agent needs from the pod runtime (network sandboxes, volumes,
// images, processes). The agent is written against this interface; `runtime-adapter.ts` maps it onto
// deploy/local/node-agent/runtime, and unit tests use `FakePodRuntime`.

export interface PodRef {
  uid: string;
  namespace: string;
  name: string;
}

/** The resolver configuration the runtime writes as the pod's /etc/resolv.conf (CRI's DNSConfig). */
export interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export interface SandboxRequest extends PodRef {
  hostNetwork: boolean;
  dns: DNSConfig;
}

export interface Sandbox {
  /** The pod's IPs; for hostNetwork pods the node's IP. */
  podIPs: string[];
}

/** A file of a configMap/secret/downwardAPI/projected volume, rendered by the agent. */
export interface VolumeFile {
  /** Relative to the volume's root, e.g. "ca.crt" or "nested/key". */
  path: string;
  content: Buffer;
  mode: number;
}

export type FileVolumePlugin = "configMap" | "secret" | "downwardAPI" | "projected";

export type VolumeSource =
  | { kind: "emptyDir"; medium?: string; sizeLimitBytes?: number }
  | { kind: "hostPath"; path: string; type?: string }
  /** configMap/secret/downwardAPI/projected: files kept where kubelet keeps that plugin's volumes. */
  | { kind: "files"; plugin: FileVolumePlugin; files: VolumeFile[] }
  /** A PVC's bound PersistentVolume, resolved by the agent to its node-local source. */
  | PersistentVolumeSource;

/** The volume ownership kubelet applies for pod.spec.securityContext.fsGroup. */
export interface FsGroupOwnership {
  gid: number;
  /** fsGroupChangePolicy: OnRootMismatch skips the walk when the root already fits. */
  changePolicy: "Always" | "OnRootMismatch";
}

export interface PersistentVolumeSource {
  kind: "persistentVolume";
  pvName: string;
  /** The PV's source: a hostPath PV is used in place, a local PV is bind-mounted into the pod's directory. */
  plugin: "hostPath" | "local";
  /** hostPath.path or local.path, on the node. */
  path: string;
  /** hostPath.type of a hostPath PV, checked as for a hostPath volume. */
  type?: string;
  volumeMode: "Filesystem" | "Block";
  /** The pod volume's persistentVolumeClaim.readOnly. */
  readOnly: boolean;
  /** Only where kubelet's plugin changes ownership (local, writable, Filesystem). */
  fsGroup?: FsGroupOwnership;
}

export interface VolumeRequest {
  name: string;
  source: VolumeSource;
}

/** A volumeMount's mountPropagation; absent means None. */
export type MountPropagation = "None" | "HostToContainer" | "Bidirectional";

export interface VolumeMount {
  volume: string;
  mountPath: string;
  readOnly: boolean;
  subPath?: string;
  propagation?: MountPropagation;
}

/** A container's volumeDevices entry: the Block volume's device appears at `devicePath`. */
export interface VolumeDevice {
  volume: string;
  devicePath: string;
}

/** A host path a device plugin asked to expose in the container (a mount, or a device node). */
export interface HostMount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
}

export interface DeviceNode {
  hostPath: string;
  containerPath: string;
  /** cgroup-style permissions, "rwm" and subsets. */
  permissions: string;
}

export interface ImageRef {
  /** The image as the pod spec names it. */
  image: string;
  /** What the store resolved it to, reported as the container status' imageID. */
  imageID: string;
}

export interface ContainerRequest {
  pod: PodRef;
  name: string;
  /** 0 for the first instance, then one more per restart; names the log file `<attempt>.log`. */
  attempt: number;
  image: ImageRef;
  /** As in the pod spec, after $(VAR) expansion; undefined means the image's default. */
  command?: string[];
  args?: string[];
  workingDir?: string;
  env: Record<string, string>;
  mounts: VolumeMount[];
  volumeDevices: VolumeDevice[];
  hostMounts: HostMount[];
  devices: DeviceNode[];
  privileged: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  /** securityContext.capabilities: what a non-root process keeps (ambient), as container runtimes give it. */
  capabilities?: { add: string[]; drop: string[] };
  hostNetwork: boolean;
  hostPID: boolean;
}

export interface ExitStatus {
  /** 128 + signal number when a signal ended the process, as container runtimes report it. */
  exitCode: number;
  signal?: string;
  finishedAt: Date;
}

export interface ContainerProcess {
  /** The runtime's id for this instance; statuses show it as `kvts://<id>`. */
  id: string;
  pid: number;
  startedAt: Date;
  /** Settles when the process has exited, whoever stopped it. */
  exited: Promise<ExitStatus>;
}

export interface RecoveredContainer {
  pod: PodRef;
  name: string;
  attempt: number;
  /** The runtime's id for the instance. */
  id: string;
  /** The adopted process when it still runs; undefined when it died while the agent was away. */
  process?: ContainerProcess;
  /** How it ended, when it died while the agent was away and the runtime knows. */
  exit?: ExitStatus;
}

export interface ExecResult {
  exitCode: number;
  output: string;
}

export interface TerminalSize {
  width: number;
  height: number;
}

/** The client's side of an exec (kubelet's remotecommand streams). */
export interface ExecStreams {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  resizes?: AsyncIterable<TerminalSize>;
  /** Aborted when the client went away: the process is killed, as containerd kills an abandoned exec. */
  signal?: AbortSignal;
}

/** Thrown by pullImage for images the store does not know: kubelet's ErrImagePull. */
export class ImagePullError extends Error {}

export interface PodRuntime {
  /** Creates the pod's network namespace and IP, or returns the existing one. */
  runSandbox(req: SandboxRequest): Promise<Sandbox>;
  /** Takes the pod's network down; files (volumes, logs) stay. Idempotent. */
  stopSandbox(pod: PodRef): Promise<void>;
  /** Creates or refreshes the pod's volumes; idempotent. */
  setUpVolumes(pod: PodRef, volumes: VolumeRequest[]): Promise<void>;
  /** Removes everything left of a pod: network, volumes, logs, records. Idempotent. */
  removePod(pod: PodRef): Promise<void>;
  pullImage(image: string): Promise<ImageRef>;
  /** Starts one container instance; rejects when the process cannot be started. */
  startContainer(req: ContainerRequest): Promise<ContainerProcess>;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  stopContainer(id: string, gracePeriodMs: number): Promise<void>;
  /** Runs a command in the container's namespaces (exec probes). */
  exec(id: string, command: string[], timeoutMs: number): Promise<ExecResult>;
  /** kubelet's exec: an interactive command in a running container; resolves with its exit code. */
  execStream(id: string, command: string[], io: ExecStreams): Promise<number>;
  /** kubelet's port-forward: relays `stream` to localhost:`port` in the network namespace of the container's pod. */
  portForward(id: string, port: number, stream: Duplex): Promise<void>;
  /** kubelet's CRI log path for one container instance. */
  logPath(pod: PodRef, container: string, attempt: number): string;
  /** Containers an earlier agent run started, as recorded in the state directory. */
  recoverContainers(): Promise<RecoveredContainer[]>;
  /** Pods an earlier agent run set up (sandbox or volumes), whether or not a container still runs. */
  recoverPods(): Promise<PodRef[]>;
}
