import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { secureJoin } from "./path-resolver.js";

// Where a node keeps things. Each node has its own root directory standing in for the machine's "/": kubelet's
// directories live there at kubelet's paths, and hostPath volumes resolve inside it, so two nodes on one
// machine never share host state. Agent-private runtime state (addresses, PIDs, FIFOs) is kept beside it.

/** Host paths a hostPath volume reaches for real: kernel interfaces every node shares anyway. */
export const PASSTHROUGH_HOST_PATHS = ["/dev", "/proc", "/sys", "/lib/modules"] as const;

export const VOLUME_PLUGIN_DIRS = {
  emptyDir: "kubernetes.io~empty-dir",
  configMap: "kubernetes.io~configmap",
  secret: "kubernetes.io~secret",
  downwardAPI: "kubernetes.io~downward-api",
  projected: "kubernetes.io~projected",
  localVolume: "kubernetes.io~local-volume",
} as const;

export type VolumePlugin = keyof typeof VOLUME_PLUGIN_DIRS;

/** Throws unless `value` is usable as one path segment (no separators, not `.` or `..`). */
export function assertPathSegment(what: string, value: string): string {
  if (value === "" || value === "." || value === ".." || value.includes("/") || value.includes("\0")) {
    throw new Error(`${what} ${JSON.stringify(value)} cannot be used as a file name`);
  }
  return value;
}

export interface PodIdentity {
  uid: string;
  namespace: string;
  name: string;
}

export class NodeLayout {
  readonly nodeDir: string;
  /** The node's stand-in for "/". */
  readonly root: string;
  /** Agent-private state. */
  readonly runtimeDir: string;

  /** `nodeDir` belongs to this node alone (the agent's --state-dir, e.g. .local/nodes/node01). */
  constructor(nodeDir: string) {
    this.nodeDir = path.resolve(nodeDir);
    this.root = path.join(this.nodeDir, "root");
    this.runtimeDir = path.join(this.nodeDir, "runtime");
  }

  get kubeletDir(): string {
    return path.join(this.root, "var/lib/kubelet");
  }

  get kubeletPodsDir(): string {
    return path.join(this.kubeletDir, "pods");
  }

  /** The node's CNI state: net.d/ (its conflist), cache/ (libcni's results), networks/ (host-local). */
  get cniDir(): string {
    return path.join(this.runtimeDir, "cni");
  }

  podDir(uid: string): string {
    return path.join(this.kubeletPodsDir, assertPathSegment("pod UID", uid));
  }

  volumeDir(uid: string, plugin: VolumePlugin, volumeName: string): string {
    return path.join(
      this.podDir(uid),
      "volumes",
      VOLUME_PLUGIN_DIRS[plugin],
      assertPathSegment("volume", volumeName),
    );
  }

  /** The hosts file kubelet writes per pod and mounts at /etc/hosts. */
  etcHostsPath(uid: string): string {
    return path.join(this.podDir(uid), "etc-hosts");
  }

  podLogDir(pod: PodIdentity): string {
    const name = [pod.namespace, pod.name, pod.uid]
      .map((part) => assertPathSegment("pod log part", part))
      .join("_");
    return path.join(this.root, "var/log/pods", name);
  }

  /** kubelet's log path: /var/log/pods/<ns>_<name>_<uid>/<container>/<restartCount>.log */
  containerLogPath(pod: PodIdentity, container: string, restartCount: number): string {
    return path.join(this.podLogDir(pod), assertPathSegment("container", container), `${restartCount}.log`);
  }

  runtimePodDir(uid: string): string {
    return path.join(this.runtimeDir, "pods", assertPathSegment("pod UID", uid));
  }

  containerStateDir(uid: string, container: string): string {
    return path.join(this.runtimePodDir(uid), "containers", assertPathSegment("container", container));
  }

  /** The host path behind a hostPath volume's `path`: the real one for kernel interfaces, else inside the
   * node root, with `..` and symlinks unable to leave it. */
  async hostPathSource(volumePath: string): Promise<string> {
    const normalized = path.posix.normalize(`/${volumePath}`);
    for (const shared of PASSTHROUGH_HOST_PATHS) {
      if (normalized === shared || normalized.startsWith(`${shared}/`)) return secureJoin("/", normalized);
    }
    return secureJoin(this.root, volumePath);
  }

  /** Creates the node root skeleton (idempotent); /var/run points at /run as on a real host. */
  async ensure(): Promise<void> {
    for (const dir of [
      this.kubeletPodsDir,
      path.join(this.root, "var/log/pods"),
      path.join(this.root, "run"),
    ]) {
      await mkdir(dir, { recursive: true });
    }
    await mkdir(this.runtimeDir, { recursive: true, mode: 0o700 });
    await symlink("../run", path.join(this.root, "var/run")).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
}
