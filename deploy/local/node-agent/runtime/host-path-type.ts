import { mkdir, open, stat } from "node:fs/promises";

// kubelet's hostPath type check (hostPath volumes, and hostPath PVs) with its messages.

/** What a volume's source is on the node; a block volume becomes a device node instead of a mount. */
export type SourceKind = "directory" | "file" | "block" | "other";

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
