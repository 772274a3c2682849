// The per-VMI notify pipe (upstream notify-server/pipe): the launcher reports domain events to
// `<virt share dir>/domain-notify-pipe.sock` inside its own pod; virt-handler listens there — in the launcher
// pod's `public` emptyDir, opened without following any symlink the pod may have planted — and relays each
// connection to its own domain-notify.sock, so launchers never see the handler's filesystem.
import { chown, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import type { SafePath } from "../../safepath/no-follow.js";
import { activePodUID, openPodFile } from "../launcher-clients.js";

export const NOTIFY_PIPE_SOCKET = "domain-notify-pipe.sock";
/** The launcher pod's virt share dir (/var/run/kubevirt) as the node sees it. */
const SHARE_DIR_IN_POD = "volumes/kubernetes.io~empty-dir/public";

export interface NotifyPipesOptions {
  host: string;
  podsDir: string;
  /** virt-handler's own domain-notify.sock. */
  notifySocket: string;
  /** Owner of the pipe socket for non-root launchers (upstream NonRootUID); undefined keeps root. */
  ownerFor: (vmi: VirtualMachineInstance) => number | undefined;
  logger: Logger;
}

function relay(from: Socket, notifySocket: string, logger: Logger): void {
  const to = connect(notifySocket);
  to.on("error", (error) => {
    logger.error({ err: error }, "error connecting for proxy connection");
    from.destroy();
  });
  from.on("error", () => to.destroy());
  to.on("close", () => from.destroy());
  from.on("close", () => to.destroy());
  from.pipe(to).pipe(from);
}

export class NotifyPipes {
  /**
   * By launcher pod UID: one listener per launcher, as long as the handler knows its VMI. The share dir's
   * handle stays open while it listens: the socket was bound through /proc/self/fd/<fd>, and closing the
   * server unlinks that path, which must still name the same directory then.
   */
  private readonly listeners = new Map<string, { server: Server; dir: SafePath }>();

  constructor(private readonly options: NotifyPipesOptions) {}

  /** Listens in the VMI's launcher pod unless it does already; a stale socket of an earlier handler is replaced. */
  async ensure(vmi: VirtualMachineInstance): Promise<void> {
    const podUID = await activePodUID(vmi, this.options.host, this.options.podsDir);
    if (!podUID || this.listeners.has(podUID)) return;
    const dir = await openPodFile(this.options.podsDir, podUID, SHARE_DIR_IN_POD, "directory");
    if (!dir) throw new Error(`the launcher pod ${podUID} has no share dir to put ${NOTIFY_PIPE_SOCKET} in`);
    const socketPath = `${dir.procPath}/${NOTIFY_PIPE_SOCKET}`;
    const server = createServer((connection) =>
      relay(connection, this.options.notifySocket, this.options.logger),
    );
    try {
      await rm(socketPath, { force: true });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socketPath, () => resolve());
      });
      const owner = this.options.ownerFor(vmi);
      if (owner !== undefined) await chown(socketPath, owner, owner);
    } catch (error) {
      server.close();
      await dir.close();
      throw error;
    }
    this.listeners.set(podUID, { server, dir });
    this.options.logger.info({ vmi: vmi.metadata?.name, pod: podUID }, "domain notify pipe listening");
  }

  close(vmi: VirtualMachineInstance): void {
    for (const podUID of Object.keys(vmi.status?.activePods ?? {})) this.closeOne(podUID);
  }

  closeAll(): void {
    for (const podUID of [...this.listeners.keys()]) this.closeOne(podUID);
  }

  private closeOne(podUID: string): void {
    const listener = this.listeners.get(podUID);
    this.listeners.delete(podUID);
    listener?.server.close(() => void listener.dir.close());
  }
}
