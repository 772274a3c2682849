import { chmod, mkdir, rm } from "node:fs/promises";
import { writeVolumeFiles } from "./atomic-writer.js";
import { runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { mountsUnder, readMountInfo } from "./mountinfo.js";
import type { VolumeRequest, VolumeSource } from "../pod-runtime.js";
import type { NodeLayout } from "./node-layout.js";
import { preparePersistentVolume } from "./persistent-volumes.js";
import { checkHostPathType, type SourceKind } from "./host-path-type.js";

// Volumes of a pod, set up on the node's side before any container starts: emptyDir directories (tmpfs for
// medium Memory) where kubelet keeps them, hostPath sources inside the node root with kubelet's type checks,
// the files of configMap/secret/downwardAPI/projected volumes, and PVCs' bound PVs (persistent-volumes.ts).
// Containers bind-mount the results; a block volume becomes a device node instead.

export type { SourceKind };

export interface PreparedVolume {
  name: string;
  /** The host path containers bind-mount. */
  source: string;
  kind: SourceKind;
  /** A read-only claim: every container mount of it is read-only. */
  readOnly?: boolean;
}

/** A volume kubelet would refuse to mount, with kubelet's message. */
export class VolumeSetupError extends Error {
  override readonly name = "VolumeSetupError";
  constructor(
    readonly volume: string,
    detail: string,
  ) {
    super(`MountVolume.SetUp failed for volume "${volume}" : ${detail}`);
  }
}

const EMPTY_DIR_MODE = 0o777;
export class PodVolumes {
  constructor(
    private readonly layout: NodeLayout,
    private readonly run: RunCommand = runCommand,
  ) {}

  async prepare(podUID: string, requests: readonly VolumeRequest[]): Promise<PreparedVolume[]> {
    const prepared: PreparedVolume[] = [];
    for (const request of requests) {
      try {
        prepared.push({
          name: request.name,
          ...(await this.prepareOne(podUID, request.name, request.source)),
        });
      } catch (error) {
        throw new VolumeSetupError(request.name, (error as Error).message);
      }
    }
    return prepared;
  }

  /** Unmounts whatever is mounted under the pod directory and removes it, as kubelet does for a deleted pod. */
  async teardown(podUID: string): Promise<void> {
    const podDir = this.layout.podDir(podUID);
    for (const mountPoint of mountsUnder(await readMountInfo(), podDir))
      await this.run("umount", [mountPoint]);
    const left = mountsUnder(await readMountInfo(), podDir);
    // Never remove recursively through a mount: that would delete the mounted files themselves.
    if (left.length > 0) throw new Error(`mounts still present under ${podDir}: ${left.join(", ")}`);
    await rm(podDir, { recursive: true, force: true });
  }

  private async prepareOne(
    podUID: string,
    name: string,
    source: VolumeSource,
  ): Promise<Omit<PreparedVolume, "name">> {
    switch (source.kind) {
      case "emptyDir":
        return { source: await this.emptyDir(podUID, name, source), kind: "directory" };
      case "hostPath": {
        const hostPath = await this.layout.hostPathSource(source.path);
        return { source: hostPath, kind: await checkHostPathType(hostPath, source.type) };
      }
      case "persistentVolume":
        return preparePersistentVolume(this.layout, podUID, source, this.run);
      case "files": {
        const dir = this.layout.volumeDir(podUID, source.plugin, name);
        await writeVolumeFiles(dir, source.files);
        return { source: dir, kind: "directory" };
      }
    }
  }

  private async emptyDir(
    podUID: string,
    name: string,
    source: Extract<VolumeSource, { kind: "emptyDir" }>,
  ): Promise<string> {
    const dir = this.layout.volumeDir(podUID, "emptyDir", name);
    await mkdir(dir, { recursive: true });
    const medium = source.medium ?? "";
    if (medium === "Memory") {
      if (!mountsUnder(await readMountInfo(), dir).includes(dir)) {
        const size = source.sizeLimitBytes !== undefined ? `,size=${source.sizeLimitBytes}` : "";
        await this.run("mount", ["-t", "tmpfs", "-o", `mode=0777${size}`, "tmpfs", dir]);
      }
    } else if (medium !== "") {
      throw new Error(`emptyDir medium ${JSON.stringify(medium)} is not supported by the local node agent`);
    }
    await chmod(dir, EMPTY_DIR_MODE);
    return dir;
  }
}
