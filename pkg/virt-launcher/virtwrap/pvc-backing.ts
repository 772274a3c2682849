// Where the launcher reads a claim's data: a Block PVC is a device node the Pod's volumeDevices put at
// /dev/<volume>, a Filesystem PVC holds a raw disk.img (upstream decides the same way, by looking at /dev).
import { stat } from "node:fs/promises";
import type { LauncherLayout } from "../layout.js";
import { blockVolumeDevicePath, pvcDiskImagePath } from "../layout.js";

export async function isBlockDevice(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isBlockDevice(),
    () => false,
  );
}

/** The claim behind `volumeName`: its device when one is there, else its image. */
export async function pvcBackingFile(
  layout: LauncherLayout,
  volumeName: string,
  blockDevice: (path: string) => Promise<boolean> = isBlockDevice,
): Promise<string> {
  const device = blockVolumeDevicePath(volumeName);
  return (await blockDevice(device)) ? device : pvcDiskImagePath(layout, volumeName);
}
