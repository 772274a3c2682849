// Finds and dials the launcher of a VMI on this node (upstream virt-handler's launcher client cache):
// the launcher pod's `sockets` emptyDir as the handler sees it under the kubelet pods dir, one client per
// socket, dropped when the socket is gone. The socket path is checked not to leave the pods dir through
// a symlink planted by the pod.
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { LauncherClient } from "../handler-launcher-com/cmd/v1/client.js";
import { socketFilePathOnHost } from "../handler-launcher-com/sockets.js";

export type LauncherCommands = Pick<
  LauncherClient,
  "syncVirtualMachine" | "shutdownVirtualMachine" | "killVirtualMachine" | "getDomain" | "close"
>;

/** Undefined when the VMI has no launcher socket on this node (yet, or any more). */
export type LauncherConnector = (vmi: VirtualMachineInstance) => Promise<LauncherCommands | undefined>;

/** The launcher pod on `host`, from `status.activePods` (pod UID → node name). */
export function activePodUID(vmi: VirtualMachineInstance, host: string): string | undefined {
  return Object.entries(vmi.status?.activePods ?? {}).find(([, node]) => node === host)?.[0];
}

/** The socket path when it is a real socket inside `podsDir`, else undefined. */
export async function safeSocketPath(podsDir: string, podUID: string): Promise<string | undefined> {
  if (!/^[0-9a-f-]+$/i.test(podUID)) return undefined;
  const socketPath = socketFilePathOnHost(podUID, podsDir);
  try {
    const [stat, resolved, root] = await Promise.all([
      lstat(socketPath),
      realpath(socketPath),
      realpath(podsDir),
    ]);
    if (!stat.isSocket() || !resolved.startsWith(root + path.sep)) return undefined;
    return resolved;
  } catch {
    return undefined;
  }
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
    const podUID = activePodUID(vmi, this.host);
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
