// Finds and dials the launcher of a VMI on this node (upstream virt-handler's launcher client cache):
// the launcher pod's `sockets` emptyDir as the handler sees it under the kubelet pods dir, one client per
// socket, dropped when the socket is gone. Every path into a pod's directory is walked without following
// any symlink the pod may have planted (openPodFile), here and for the console sockets.
import { posix } from "node:path";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { LauncherClient } from "../handler-launcher-com/cmd/v1/client.js";
import { socketFilePathOnHost } from "../handler-launcher-com/sockets.js";
import { openNoFollow, type FileKind, type SafePath } from "../safepath/no-follow.js";

export type LauncherCommands = Pick<
  LauncherClient,
  | "syncVirtualMachine"
  | "shutdownVirtualMachine"
  | "killVirtualMachine"
  | "deleteDomain"
  | "pauseVirtualMachine"
  | "unpauseVirtualMachine"
  | "freezeVirtualMachine"
  | "unfreezeVirtualMachine"
  | "softRebootVirtualMachine"
  | "resetVirtualMachine"
  | "migrateVirtualMachine"
  | "syncMigrationTarget"
  | "cancelVirtualMachineMigration"
  | "finalizeVirtualMachineMigration"
  | "signalTargetPodCleanup"
  | "getDomain"
  | "getScreenshot"
  | "getGuestInfo"
  | "getUsers"
  | "getFilesystems"
  | "close"
>;

/** Undefined when the VMI has no launcher socket on this node (yet, or any more). */
export type LauncherConnector = (vmi: VirtualMachineInstance) => Promise<LauncherCommands | undefined>;

/**
 * The VMI's launcher pod on `host`, from `status.activePods` (pod UID → node name). After migrations that
 * map names every pod the VMI ever had that still exists, finished ones included, and a node can hold
 * several (an earlier target that failed, the current one): the one whose command socket is there is the
 * one that runs (upstream FindSocketOnHost). Without any socket, the first: its callers say what is missing.
 */
export async function activePodUID(
  vmi: VirtualMachineInstance,
  host: string,
  podsDir: string,
): Promise<string | undefined> {
  const onHost = Object.entries(vmi.status?.activePods ?? {})
    .filter(([, node]) => node === host)
    .map(([uid]) => uid);
  if (onHost.length <= 1) return onHost[0];
  for (const uid of onHost) if (await safeSocketPath(podsDir, uid)) return uid;
  return onHost[0];
}

/** What a Kubernetes UID may look like; anything else never becomes a path. */
export const UID_PATTERN = /^[0-9a-f-]+$/i;

/**
 * `<podsDir>/<podUID>/<pathInPodDir>` opened with no symlink followed below `podsDir`, when it exists and is
 * a `kind`; undefined otherwise. Dial or stat it through `procPath`, then close it.
 */
export async function openPodFile(
  podsDir: string,
  podUID: string,
  pathInPodDir: string,
  kind: FileKind = "socket",
): Promise<SafePath | undefined> {
  if (!UID_PATTERN.test(podUID)) return undefined;
  try {
    return await openNoFollow(podsDir, [podUID, ...pathInPodDir.split("/")], kind);
  } catch {
    return undefined;
  }
}

/** The launcher's command socket path when it is a real socket reached without any symlink, else undefined. */
export async function safeSocketPath(podsDir: string, podUID: string): Promise<string | undefined> {
  const socketPath = socketFilePathOnHost(podUID, podsDir);
  const opened = await openPodFile(podsDir, podUID, posix.relative(posix.join(podsDir, podUID), socketPath));
  if (!opened) return undefined;
  await opened.close();
  return socketPath;
}

/**
 * A fresh connection to the VMI's launcher on this node, for the caller to close (upstream's metrics scraper
 * dials anew for each scrape, apart from the clients the controllers share); undefined without a socket.
 */
export async function dialLauncher(
  vmi: VirtualMachineInstance,
  host: string,
  podsDir: string,
): Promise<LauncherClient | undefined> {
  const podUID = await activePodUID(vmi, host, podsDir);
  const socketPath = podUID === undefined ? undefined : await safeSocketPath(podsDir, podUID);
  return socketPath === undefined ? undefined : LauncherClient.connect(socketPath);
}

export class LauncherClients {
  private readonly clients = new Map<string, Promise<LauncherCommands>>();

  constructor(
    private readonly host: string,
    private readonly podsDir: string,
    private readonly connect: (socketPath: string) => Promise<LauncherCommands> = (socketPath) =>
      LauncherClient.connect(socketPath),
  ) {}

  readonly connector: LauncherConnector = async (vmi) => {
    const podUID = await activePodUID(vmi, this.host, this.podsDir);
    if (!podUID) return undefined;
    const key = socketFilePathOnHost(podUID, this.podsDir);
    const socketPath = await safeSocketPath(this.podsDir, podUID);
    if (!socketPath) {
      this.drop(key);
      return undefined;
    }
    let client = this.clients.get(key);
    if (!client) {
      client = this.connect(socketPath);
      this.clients.set(key, client);
      // A failed dial is forgotten so the next sync dials again.
      client.catch(() => this.clients.delete(key));
    }
    return client;
  };

  closeAll(): void {
    for (const key of [...this.clients.keys()]) this.drop(key);
  }

  private drop(key: string): void {
    const client = this.clients.get(key);
    this.clients.delete(key);
    client?.then((c) => c.close()).catch(() => undefined);
  }
}

/** How long a launcher may take to bring its command socket up before its VMI counts as lost. */
export const LauncherNotInitializedTimeoutMs = 3 * 60_000;

/**
 * Upstream's LauncherClientInfo bookkeeping (IsLauncherClientUnresponsive): since when each VMI's launcher
 * socket has been looked for, and whether it was ever there. A socket that was there and is gone, or one
 * that never came within the timeout, means the launcher is lost (it crashed before or after starting).
 */
export class LauncherSocketWatch {
  private readonly seen = new Map<string, { since: number; ready: boolean }>();

  /** Whether the launcher of VMI `uid` counts as lost, given whether its socket is there now. */
  lost(uid: string, socketPresent: boolean, nowMs: number): boolean {
    const entry = this.seen.get(uid);
    if (!entry) {
      this.seen.set(uid, { since: nowMs, ready: socketPresent });
      return false;
    }
    if (socketPresent) {
      entry.ready = true;
      return false;
    }
    return entry.ready || nowMs - entry.since > LauncherNotInitializedTimeoutMs;
  }

  forget(uid: string): void {
    this.seen.delete(uid);
  }
}
