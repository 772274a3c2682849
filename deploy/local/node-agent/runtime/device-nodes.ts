// The device nodes a container is given, made for that container as a container runtime makes them: a
// node with the host device's major:minor in the container's own state, bind-mounted at the container
// path. Device plugins' DeviceSpecs get nodes readable and writable by everyone (what devtmpfs gives
// /dev/net/tun and /dev/kvm on a usual node); the host's own node is left as it is (0600 in this sandbox).
// A Block volume's device keeps the host node's permission bits and, for a container that runs as a
// non-root user, belongs to that user and group: containerd's device_ownership_from_security_context,
// which KubeVirt's documentation requires for non-root VMs on block volumes.
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { runCommand, type RunCommand } from "./exec.js";

const CONTAINER_DEVICE_MODE = 0o666;

interface HostDevice {
  type: "b" | "c";
  major: bigint;
  minor: bigint;
  mode: number;
}

async function hostDevice(hostPath: string): Promise<HostDevice> {
  const device = await stat(hostPath, { bigint: true });
  if (!device.isCharacterDevice() && !device.isBlockDevice()) {
    throw new Error(`${hostPath} is not a device node`);
  }
  // rdev packs major and minor as glibc's makedev does.
  const rdev = device.rdev;
  return {
    type: device.isCharacterDevice() ? "c" : "b",
    major: ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn),
    minor: (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn),
    mode: Number(device.mode & 0o777n),
  };
}

async function makeNode(
  hostPath: string,
  device: HostDevice,
  dir: string,
  mode: number,
  run: RunCommand,
): Promise<string> {
  const node = path.join(dir, `${path.basename(hostPath)}-${device.major}-${device.minor}`);
  await mkdir(dir, { recursive: true });
  await rm(node, { force: true });
  const args = ["-m", mode.toString(8).padStart(4, "0"), node, device.type];
  await run("mknod", [...args, String(device.major), String(device.minor)]);
  return node;
}

export async function deviceNodeFor(
  hostPath: string,
  dir: string,
  run: RunCommand = runCommand,
): Promise<string> {
  return makeNode(hostPath, await hostDevice(hostPath), dir, CONTAINER_DEVICE_MODE, run);
}

/**
 * A Block volume's device for one container, with the host node's permission bits; the runtime gives it
 * to the container's user afterwards (`chown`), once it knows who that is.
 */
export async function blockDeviceNodeFor(
  hostPath: string,
  dir: string,
  run: RunCommand = runCommand,
): Promise<string> {
  const device = await hostDevice(hostPath);
  if (device.type !== "b") throw new Error(`${hostPath} is not a block device`);
  return makeNode(hostPath, device, path.join(dir, "volumes"), device.mode, run);
}
