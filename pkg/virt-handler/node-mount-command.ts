// Runs mount/umount in the node's mount namespace, as upstream's `virt-chroot --mount /proc/1/ns/mnt`
// does: virt-handler is privileged with hostPID, so PID 1 is the node's init.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { NodeMountCommand } from "./container-disk/mount.js";

const NODE_MOUNT_NAMESPACE = "/proc/1/ns/mnt";

export function nodeMountCommand(
  namespace = NODE_MOUNT_NAMESPACE,
  nsenter = "/usr/bin/nsenter",
): NodeMountCommand {
  return async (args) => {
    try {
      await promisify(execFile)(nsenter, [`--mount=${namespace}`, "--", ...args], { env: {} });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new Error(
        `${args.join(" ")} in the node's mount namespace failed: ${stderr || (error as Error).message}`,
      );
    }
  };
}
