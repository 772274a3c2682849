import { mkdir, stat } from "node:fs/promises";
import { secureJoin } from "./path-resolver.js";
import type { MountPropagation, VolumeDevice, VolumeMount } from "../pod-runtime.js";
import type { PreparedVolume, SourceKind } from "./volumes.js";

// A container's volumeMounts turned into bind mounts: which host path goes where, read-only or not. subPath
// is resolved inside its volume (a symlink in the volume cannot point it elsewhere) and created when missing,
// as kubelet does.

export interface ContainerMount {
  /** Host path bind-mounted into the container. */
  source: string;
  /** Absolute path inside the container. */
  destination: string;
  readOnly: boolean;
  kind: SourceKind;
  /**
   * HostToContainer: mounts the node makes later below the source appear in the container (its copy is a
   * slave of the source's peer group); Bidirectional: the container's mounts there also reach the node
   * (its copy stays a peer). The node's side is shared (node-layout: the node root is a shared mount).
   */
  propagation?: MountPropagation;
}

export type { MountPropagation };

export class MountConfigError extends Error {
  override readonly name = "MountConfigError";
}

async function kindOf(target: string): Promise<SourceKind> {
  const stats = await stat(target); // rejects when missing
  return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
}

export async function resolveVolumeMounts(
  containerName: string,
  volumes: readonly PreparedVolume[],
  requests: readonly VolumeMount[],
): Promise<ContainerMount[]> {
  const mounts: ContainerMount[] = [];
  for (const request of requests) {
    const volume = volumes.find((candidate) => candidate.name === request.volume);
    if (!volume) {
      throw new MountConfigError(
        `cannot find volume "${request.volume}" to mount into container "${containerName}"`,
      );
    }
    if (volume.kind === "block") {
      throw new MountConfigError(
        `volume "${request.volume}" is a block volume: container "${containerName}" must name it in volumeDevices`,
      );
    }
    if (!request.mountPath.startsWith("/")) {
      throw new MountConfigError(`mount path ${JSON.stringify(request.mountPath)} must be absolute`);
    }
    let source = volume.source;
    let kind: SourceKind = volume.kind;
    if (request.subPath) {
      if (volume.kind !== "directory") {
        throw new MountConfigError(
          `subPath ${request.subPath} of volume "${request.volume}" needs a directory volume`,
        );
      }
      source = await secureJoin(volume.source, request.subPath);
      const existing = await kindOf(source).catch(() => undefined);
      if (existing === undefined) await mkdir(source, { recursive: true });
      kind = existing ?? "directory";
    }
    mounts.push({
      source,
      destination: request.mountPath,
      readOnly: request.readOnly || (volume.readOnly ?? false),
      kind,
      ...(request.propagation && request.propagation !== "None" ? { propagation: request.propagation } : {}),
    });
  }
  return mounts;
}

/** A container's volumeDevices: the host device of each Block volume, and where the container sees it. */
export function resolveVolumeDevices(
  containerName: string,
  volumes: readonly PreparedVolume[],
  requests: readonly VolumeDevice[],
): Array<{ hostPath: string; containerPath: string }> {
  return requests.map((request) => {
    const volume = volumes.find((candidate) => candidate.name === request.volume);
    if (!volume) {
      throw new MountConfigError(
        `cannot find volume "${request.volume}" to map into container "${containerName}"`,
      );
    }
    if (volume.kind !== "block") {
      throw new MountConfigError(
        `volume "${request.volume}" is not a block volume: container "${containerName}" must name it in volumeMounts`,
      );
    }
    if (!request.devicePath.startsWith("/")) {
      throw new MountConfigError(`device path ${JSON.stringify(request.devicePath)} must be absolute`);
    }
    return { hostPath: volume.source, containerPath: request.devicePath };
  });
}
