// What virt-handler's migration source and target controllers both take, and the one way they write a VMI.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { semanticallyEqual } from "../apimachinery/semantic-equal.js";
import type { Clock, EventRecorder, Logger } from "../controller/index.js";
import { DEFAULT_LAYOUT, libvirtSocket } from "../util/launcher-layout.js";
import type { LauncherConnector } from "./launcher-clients.js";
import type { VMIEvents } from "./vm.js";

/**
 * Writes the whole VMI back (PUT) at the resourceVersion it carries, as upstream's handler Updates it: the
 * VMI CRD has no status subresource and the target changes labels too; a stale copy gets a conflict.
 */
export type VMIUpdater = (vmi: VirtualMachineInstance) => Promise<void>;

/** `/proc/<pid>/root` of the VMI's launcher pod on this node (the pod in status.activePods on this host). */
export type PodRootResolver = (vmi: VirtualMachineInstance) => Promise<string>;

export interface MigrationControllerOptions {
  host: string;
  vmis: VMIEvents<VirtualMachineInstance>;
  launchers: LauncherConnector;
  updateVMI: VMIUpdater;
  podRoot: PodRootResolver;
  logger: Logger;
  recorder?: Pick<EventRecorder, "event">;
  clock?: Clock;
  /** How soon a VMI waiting for the other side (ports, launcher, listener) is looked at again. */
  retryMs?: number;
}

/**
 * The launcher's share dir (its migration proxy sockets) and libvirt socket, as paths inside its pod: join them
 * to the pod's root with resolveInRoot, since /var/run is a symlink to /run in the image, and an absolute
 * symlink met below /proc/<pid>/root resolves against virt-handler's own root.
 */
export const POD_VIRT_SHARE_DIR = DEFAULT_LAYOUT.virtShareDir;
export const POD_LIBVIRT_SOCKET = libvirtSocket(DEFAULT_LAYOUT);

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Whether the controller changed anything upstream's updateVMI would write (labels, annotations, status),
 * compared as upstream compares them (equality.Semantic.DeepEqual). */
export function vmiChanged(before: VirtualMachineInstance, after: VirtualMachineInstance): boolean {
  return (
    !semanticallyEqual(before.status, after.status) ||
    !semanticallyEqual(before.metadata?.labels, after.metadata?.labels) ||
    !semanticallyEqual(before.metadata?.annotations, after.metadata?.annotations)
  );
}
