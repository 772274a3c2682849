// The device nodes a container is allocated (device plugins' DeviceSpecs), made for that container as a
// container runtime makes them: a node with the host device's major:minor in the container's own state,
// readable and writable by everyone (what devtmpfs gives /dev/net/tun and /dev/kvm on a usual node),
// bind-mounted at the container path. The host's own node is left as it is (0600 in this sandbox).
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { runCommand, type RunCommand } from "./exec.js";

const CONTAINER_DEVICE_MODE = "0666";

export async function deviceNodeFor(
  hostPath: string,
  dir: string,
  run: RunCommand = runCommand,
): Promise<string> {
  const device = await stat(hostPath, { bigint: true });
  if (!device.isCharacterDevice() && !device.isBlockDevice()) {
    throw new Error(`${hostPath} is not a device node`);
  }
  // rdev packs major and minor as glibc's makedev does.
  const rdev = device.rdev;
  const major = ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn);
  const minor = (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn);
  const node = path.join(dir, `${path.basename(hostPath)}-${major}-${minor}`);
  await mkdir(dir, { recursive: true });
  await rm(node, { force: true });
  const type = device.isCharacterDevice() ? "c" : "b";
  await run("mknod", ["-m", CONTAINER_DEVICE_MODE, node, type, String(major), String(minor)]);
  return node;
}
