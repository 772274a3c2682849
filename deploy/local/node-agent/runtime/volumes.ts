import { chmod, mkdir, open, rm, stat } from "node:fs/promises";
import { writeVolumeFiles } from "./atomic-writer.js";
import { runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { mountsUnder, readMountInfo } from "./mountinfo.js";
import type { VolumeRequest, VolumeSource } from "../pod-runtime.js";
import type { NodeLayout } from "./node-layout.js";
import { preparePersistentVolume } from "./persistent-volumes.js";

// Volumes of a pod, set up on the node's side before any container starts: emptyDir directories (tmpfs for
// medium Memory) where kubelet keeps them, hostPath sources inside the node root with kubelet's type checks,
// the files of configMap/secret/downwardAPI/projected volumes, and PVCs' bound PVs (persistent-volumes.ts).
// Containers bind-mount the results; a block volume becomes a device node instead.

export type SourceKind = "directory" | "file" | "block" | "other";

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
const FILE_TYPE_NAMES: Array<[string, (s: Awaited<ReturnType<typeof stat>>) => boolean]> = [
  ["Directory", (s) => s.isDirectory()],
  ["File", (s) => s.isFile()],
  ["Socket", (s) => s.isSocket()],
  ["CharDevice", (s) => s.isCharacterDevice()],
  ["BlockDevice", (s) => s.isBlockDevice()],
];

async function fileType(target: string): Promise<string | undefined> {
  const stats = await stat(target).catch(() => undefined);
  if (!stats) return undefined;
  return FILE_TYPE_NAMES.find(([, test]) => test(stats))?.[0] ?? "Unknown";
}

function kindOf(type: string | undefined): SourceKind {
  return type === "Directory" ? "directory" : type === "File" ? "file" : "other";
}

const TYPE_CHECKS: Record<string, { expected: string; description: string; create?: "directory" | "file" }> =
  {
    DirectoryOrCreate: { expected: "Directory", description: "directory", create: "directory" },
    Directory: { expected: "Directory", description: "directory" },
    FileOrCreate: { expected: "File", description: "file", create: "file" },
    File: { expected: "File", description: "file" },
    Socket: { expected: "Socket", description: "socket file" },
    CharDevice: { expected: "CharDevice", description: "character device" },
    BlockDevice: { expected: "BlockDevice", description: "block device" },
  };

/** kubelet's hostPath type check; "" creates a missing directory, as the container runtime does. */
export async function checkHostPathType(
  target: string,
  hostPathType: string | undefined,
): Promise<SourceKind> {
  const type = hostPathType ?? "";
  const check =
    type === "" ? { expected: "", description: "", create: "directory" as const } : TYPE_CHECKS[type];
  if (!check) throw new Error(`${type} is an invalid volume type`);
  let actual = await fileType(target);
  if (actual === undefined && check.create === "directory")
    await mkdir(target, { recursive: true, mode: 0o755 });
  if (actual === undefined && check.create === "file") await (await open(target, "a", 0o644)).close();
  actual = await fileType(target);
  if (actual === undefined) throw new Error(`hostPath ${target} doesn't exist`);
  if (check.expected !== "" && actual !== check.expected) {
    throw new Error(`hostPath type check failed: ${target} is not a ${check.description}, it's a ${actual}`);
  }
  return kindOf(actual);
}

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
