// Where the launcher reads a claim's data: a Block PVC is a device node the Pod's volumeDevices put at
// /dev/<volume>, a Filesystem PVC holds a raw disk.img (upstream decides the same way, by looking at /dev).
import type { LauncherLayout } from "../layout.js";
import { blockVolumeDevicePath, pvcDiskImagePath } from "../layout.js";
import { isBlockDevice } from "./converter-context.js";

/** The claim behind `volumeName`: its device when one is there, else its image. */
export async function pvcBackingFile(
  layout: LauncherLayout,
  volumeName: string,
  blockDevice: (path: string) => Promise<boolean> = (path) => Promise.resolve(isBlockDevice(path)),
): Promise<string> {
  const device = blockVolumeDevicePath(volumeName);
  return (await blockDevice(device)) ? device : pvcDiskImagePath(layout, volumeName);
}
