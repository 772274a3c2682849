// Where the launcher's command socket and the handler's notify socket live (upstream
// virt-handler/cmd-client and notify-client). The launcher serves on the uninitialized name first
// and renames the socket once it is ready, so a handler never talks to a half-started launcher.
import { posix } from "node:path";

export const STANDARD_LAUNCHER_SOCKET_FILE_NAME = "launcher-sock";
export const STANDARD_INIT_LAUNCHER_SOCKET_FILE_NAME = "launcher-init-sock";
export const STANDARD_LAUNCHER_UNRESPONSIVE_FILE_NAME = "launcher-unresponsive";
export const DOMAIN_NOTIFY_SOCKET_FILE_NAME = "domain-notify-pipe.sock";

/** The kubevirt share dir inside the launcher pod (upstream's default `--kubevirt-share-dir`). */
export const DEFAULT_VIRT_SHARE_DIR = "/var/run/kubevirt";
/** The kubelet's pods directory as virt-handler sees it. */
export const DEFAULT_PODS_BASE_DIR = "/pods";

/** `<share dir>/sockets`: the pod's `sockets` emptyDir. */
export function socketsDirectory(virtShareDir: string = DEFAULT_VIRT_SHARE_DIR): string {
  return posix.join(virtShareDir, "sockets");
}

/** The command socket once the launcher is ready, as the launcher sees it. */
export function socketOnGuest(virtShareDir: string = DEFAULT_VIRT_SHARE_DIR): string {
  return posix.join(socketsDirectory(virtShareDir), STANDARD_LAUNCHER_SOCKET_FILE_NAME);
}

/** The command socket while the launcher starts up. */
export function uninitializedSocketOnGuest(virtShareDir: string = DEFAULT_VIRT_SHARE_DIR): string {
  return posix.join(socketsDirectory(virtShareDir), STANDARD_INIT_LAUNCHER_SOCKET_FILE_NAME);
}

/** The pod's `sockets` emptyDir as virt-handler sees it on the node. */
export function socketDirectoryOnHost(podUID: string, podsBaseDir: string = DEFAULT_PODS_BASE_DIR): string {
  return posix.join(podsBaseDir, podUID, "volumes/kubernetes.io~empty-dir/sockets");
}

export function socketFilePathOnHost(podUID: string, podsBaseDir: string = DEFAULT_PODS_BASE_DIR): string {
  return posix.join(socketDirectoryOnHost(podUID, podsBaseDir), STANDARD_LAUNCHER_SOCKET_FILE_NAME);
}

/** The socket virt-handler serves Notify on, inside the launcher's share dir. */
export function domainNotifySocket(virtShareDir: string = DEFAULT_VIRT_SHARE_DIR): string {
  return posix.join(virtShareDir, DOMAIN_NOTIFY_SOCKET_FILE_NAME);
}
