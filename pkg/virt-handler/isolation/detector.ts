// Finds a process of a VMI's launcher pod from outside the pod (upstream pkg/virt-handler/isolation), so
// virt-handler can enter the pod's network namespace and reach the launcher's root filesystem.
//
// Upstream dials the launcher's command socket and reads the peer's PID (SO_PEERCRED). Node has no
// getsockopt, so the socket's identity is used instead: the socket file the handler sees under the
// kubelet pods dir (already confined there by safeSocketPath) has a device and inode number that only
// the launcher pod's own mounts of its `sockets` emptyDir share. Among the node's processes (the handler
// runs with hostPID), the ones whose root, resolved as the process itself would resolve it, shows that
// very inode at the launcher's socket path are the pod's containers that mount the emptyDir. A symlink
// planted in some other pod is followed inside that pod's root and cannot reach another pod's emptyDir,
// so no foreign process can claim the socket. The lowest such PID is the container's first process.
import { lstat, readdir, stat } from "node:fs/promises";
import { posix } from "node:path";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { socketOnGuest } from "../../handler-launcher-com/sockets.js";
import { resolveInRoot } from "../../safepath/relative-root.js";
import { activePodUID, safeSocketPath } from "../launcher-clients.js";

export interface IsolationResult {
  pid: number;
  /** `/proc/<pid>/ns/net`: the pod's network namespace. */
  netnsPath: string;
  /** `/proc/<pid>/root`: the launcher's root filesystem; resolve paths below it with resolveInRoot. */
  rootFs: string;
}

export interface PodIsolationDetector {
  detect(vmi: VirtualMachineInstance): Promise<IsolationResult>;
}

export interface SocketIsolationDetectorOptions {
  host: string;
  /** The kubelet pods dir as virt-handler sees it. */
  podsDir: string;
  /** The node's /proc (hostPID); a fake tree in tests. */
  procDir?: string;
  /** The share dir inside the launcher pod; the command socket lives below it. */
  virtShareDir?: string;
}

interface FileIdentity {
  dev: number;
  ino: number;
}

export class SocketIsolationDetector implements PodIsolationDetector {
  private readonly procDir: string;
  private readonly socketInPod: string;

  constructor(private readonly options: SocketIsolationDetectorOptions) {
    this.procDir = options.procDir ?? "/proc";
    this.socketInPod = socketOnGuest(options.virtShareDir);
  }

  async detect(vmi: VirtualMachineInstance): Promise<IsolationResult> {
    const podUID = await activePodUID(vmi, this.options.host, this.options.podsDir);
    if (!podUID) throw new Error(`no launcher pod of the VMI is active on ${this.options.host}`);
    const socket = await safeSocketPath(this.options.podsDir, podUID);
    if (!socket) throw new Error(`the launcher socket of pod ${podUID} is missing or not a socket`);
    return this.detectForSocket(socket);
  }

  /**
   * The launcher process whose pod mounts the socket at `socketPath` (a path under the pods dir); or,
   * given `pathInPod`, the process of the container that sees the socket there (a containerDisk's).
   */
  async detectForSocket(socketPath: string, pathInPod: string = this.socketInPod): Promise<IsolationResult> {
    // lstat: the pod may swap its socket for a symlink after safeSocketPath looked; the directories above
    // it are the kubelet's, not the pod's.
    const socket = await lstat(socketPath);
    if (!socket.isSocket()) throw new Error(`${socketPath} is not a socket`);
    const pid = await this.lowestPidSeeing(socket, pathInPod);
    if (pid === undefined) throw new Error(`no process of the pod owning ${socketPath} was found`);
    const pidDir = posix.join(this.procDir, String(pid));
    return { pid, netnsPath: posix.join(pidDir, "ns/net"), rootFs: posix.join(pidDir, "root") };
  }

  private async lowestPidSeeing(socket: FileIdentity, pathInPod: string): Promise<number | undefined> {
    // Processes sharing a mount namespace and a root see the same files: look once per view.
    const seenViews = new Map<string, boolean>();
    for (const pid of await this.pids()) {
      const view = await this.viewOf(pid);
      if (view === undefined) continue;
      let sees = seenViews.get(view);
      if (sees === undefined) {
        sees = await processSeesSocket(this.procDir, pid, pathInPod, socket);
        seenViews.set(view, sees);
      }
      if (sees) return pid;
    }
    return undefined;
  }

  private async pids(): Promise<number[]> {
    const entries = await readdir(this.procDir);
    return entries
      .filter((name) => /^[1-9]\d*$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** The mount namespace and root directory of a process; undefined once it is gone. */
  private async viewOf(pid: number): Promise<string | undefined> {
    const pidDir = posix.join(this.procDir, String(pid));
    const [mountNamespace, root] = await Promise.all([
      stat(posix.join(pidDir, "ns/mnt")).catch(() => undefined),
      stat(posix.join(pidDir, "root")).catch(() => undefined),
    ]);
    if (!root) return undefined;
    // Without a readable ns/mnt (a fake tree) the root alone tells views apart.
    return `${mountNamespace ? `${mountNamespace.dev}:${mountNamespace.ino}` : `pid ${pid}`}/${root.dev}:${root.ino}`;
  }
}

/** True when `pathInPod`, resolved inside the process's root, is the file `target`. */
export async function processSeesSocket(
  procDir: string,
  pid: number | "self",
  pathInPod: string,
  target: FileIdentity,
): Promise<boolean> {
  try {
    const resolved = await resolveInRoot(posix.join(procDir, String(pid), "root"), pathInPod);
    const seen = await stat(resolved);
    return seen.isSocket() && seen.dev === target.dev && seen.ino === target.ino;
  } catch {
    // Exited, or a root this process may not look into: not the launcher.
    return false;
  }
}
