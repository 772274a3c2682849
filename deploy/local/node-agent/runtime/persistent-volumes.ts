import { mkdir, stat } from "node:fs/promises";
import type { PersistentVolumeSource } from "../pod-runtime.js";
import type { RunCommand } from "./exec.js";
import { mountsUnder, readMountInfo } from "./mountinfo.js";
import type { NodeLayout } from "./node-layout.js";
import { setVolumeOwnership } from "./volume-ownership.js";
import { checkHostPathType } from "./host-path-type.js";
import type { PreparedVolume } from "./volumes.js";

// A PVC's bound PV on the node, as kubelet's plugins set it up: a hostPath PV is used in place (with the
// hostPath type check, no ownership change); a local Filesystem PV is bind-mounted into the pod's
// directory (read-only for a read-only claim) and given to fsGroup once, when that mount is made; a Block
// PV (local) is its device, which each container gets as a device node of its own (node-runtime).

async function localDirectory(
  layout: NodeLayout,
  podUID: string,
  source: PersistentVolumeSource,
  hostPath: string,
  run: RunCommand,
): Promise<string> {
  const info = await stat(hostPath).catch(() => undefined);
  if (!info) throw new Error(`local volume path ${source.path} does not exist`);
  if (!info.isDirectory()) {
    throw new Error(
      `local volume path ${source.path} is not a directory (a Filesystem PV on a block device is not supported by the node agent)`,
    );
  }
  const dir = layout.volumeDir(podUID, "localVolume", source.pvName);
  if (mountsUnder(await readMountInfo(), dir).includes(dir)) return dir;
  await mkdir(dir, { recursive: true, mode: 0o750 });
  await run("mount", ["--bind", hostPath, dir]);
  if (source.readOnly) await run("mount", ["-o", "remount,bind,ro", dir]);
  if (source.fsGroup) await setVolumeOwnership(dir, source.fsGroup, source.readOnly);
  return dir;
}

export async function preparePersistentVolume(
  layout: NodeLayout,
  podUID: string,
  source: PersistentVolumeSource,
  run: RunCommand,
): Promise<Omit<PreparedVolume, "name">> {
  const hostPath = await layout.hostPathSource(source.path);
  const readOnly = source.readOnly ? { readOnly: true } : {};
  if (source.volumeMode === "Block") {
    const info = await stat(hostPath).catch(() => undefined);
    if (!info) throw new Error(`block volume path ${source.path} does not exist`);
    if (!info.isBlockDevice()) throw new Error(`block volume path ${source.path} is not a block device`);
    return { source: hostPath, kind: "block", ...readOnly };
  }
  if (source.plugin === "hostPath")
    return { source: hostPath, kind: await checkHostPathType(hostPath, source.type), ...readOnly };
  return {
    source: await localDirectory(layout, podUID, source, hostPath, run),
    kind: "directory",
    ...readOnly,
  };
}
