import path from "node:path";
import type { ContainerMount, MountPropagation } from "./container-mounts.js";
import type { MountEntry } from "./mountinfo.js";
import { hostFs, resolveInView } from "./path-resolver.js";
import type { FsProbe, ViewLayer } from "./path-resolver.js";

// The filesystem a container sees, planned as a list of steps to run inside its private mount namespace.
// The root is an overlay: the image directory (or the host's "/" for images that run this checkout's code)
// below, a tmpfs above, so a container's writes and the mount points made for its volumes never touch the
// image or the host. Every destination is resolved inside the planned view first, so a symlink in an image
// or a volume cannot redirect a mount to the host.

export type RootfsSource =
  /** The host's "/" with its submounts, a fresh /run: for images that run this checkout's entry points. */
  | { kind: "host"; hostMounts: readonly MountEntry[] }
  /** A directory holding the image's files, run chrooted. */
  | { kind: "directory"; path: string };

export type ExecutableFile =
  /** Absolute path inside the container, and the script (or, with a mode, the file) written there. */
  | { path: string; content: string; mode?: number }
  /** A host file copied there (a compiled binary). */
  | { path: string; source: string };

export interface DeviceNode {
  hostPath: string;
  containerPath: string;
}

export interface RootPlanInput {
  /** A host directory reserved for this container; a tmpfs is mounted on it inside the namespace. */
  scratchDir: string;
  rootfs: RootfsSource;
  privileged: boolean;
  mounts: readonly ContainerMount[];
  /** Files bind-mounted over the image's (/etc/hosts, /etc/hostname, /etc/resolv.conf). */
  etcFiles: ReadonlyArray<{ destination: string; source: string }>;
  /** Files written into the container's writable layer, e.g. the entry-point wrappers of component images. */
  executables: readonly ExecutableFile[];
  /** Extra device nodes (device plugin allocations) for containers without the host's /dev. */
  devices: readonly DeviceNode[];
  /** Block volumes' device nodes (volumeDevices): every container gets them, privileged or not. */
  volumeDevices: readonly DeviceNode[];
  workingDir: string;
}

export type MountStep =
  | { op: "tmpfs"; target: string; options: string }
  | { op: "mkdir"; target: string }
  | { op: "touch"; target: string }
  | { op: "overlay"; target: string; lower: string; upper: string; work: string }
  /** A recursive bind mount (submounts included, as container runtimes mount volumes). */
  | { op: "bind"; source: string; target: string; readOnly: boolean }
  | { op: "devpts"; target: string }
  | { op: "symlink"; target: string; linkTo: string }
  | { op: "write"; target: string; content: string; mode: number }
  | { op: "copy"; target: string; source: string; mode: number }
  /** How a mount made by an earlier bind step propagates (see container-mounts.ts). */
  | { op: "propagation"; target: string; propagation: MountPropagation }
  /** Keeps the container's root from sharing mount events with anything outside its namespace. */
  | { op: "private"; target: string };

export interface RootPlan {
  /** The host path that becomes the container's "/". */
  rootDir: string;
  /**
   * Run on the host before the namespace exists: the root's overlay, mounted where the node sees it, as
   * containerd does (virt-handler finds a container's files on the node through it).
   */
  hostSteps: MountStep[];
  /** Whether some volume asks for propagation, so the namespace must keep its mounts' peer groups. */
  propagates: boolean;
  /** The resolved working directory inside the container. */
  workingDir: string;
  steps: MountStep[];
  /** The finished view, for looking up executables the way the container will. */
  layers: ViewLayer[];
}

/** Device nodes every container gets when it does not see the host's /dev (as runc's defaults). */
const DEFAULT_DEVICES = ["null", "zero", "full", "random", "urandom", "tty"];
/** Host mounts never carried into a host-rootfs container: its /run is its own, and netns handles stay out. */
const HIDDEN_MOUNT_TYPES = new Set(["nsfs"]);

function isUnder(point: string, dir: string): boolean {
  return point === dir || point.startsWith(`${dir}/`);
}

class PlanBuilder {
  readonly steps: MountStep[] = [];
  readonly layers: ViewLayer[];

  constructor(
    readonly rootDir: string,
    lower: string,
    private readonly probe: FsProbe,
    /** Whether the namespace keeps peer groups, so every bind must say how it propagates. */
    private readonly propagates: boolean,
  ) {
    this.layers = [{ at: "/", source: lower }];
  }

  at(containerPath: string): string {
    return path.join(this.rootDir, containerPath);
  }

  /** Resolves `destination` in the view so far and makes a mount point of the right kind there. */
  async mountPoint(destination: string, kind: "directory" | "file"): Promise<string> {
    const resolved = await resolveInView(this.layers, destination, this.probe);
    if (resolved.kind === undefined && kind === "directory") {
      this.steps.push({ op: "mkdir", target: this.at(resolved.path) });
    } else if (resolved.kind === undefined) {
      this.steps.push({ op: "mkdir", target: this.at(path.posix.dirname(resolved.path)) });
      this.steps.push({ op: "touch", target: this.at(resolved.path) });
    }
    return resolved.path;
  }

  async bind(
    source: string,
    destination: string,
    kind: "directory" | "file",
    readOnly: boolean,
    propagation: MountPropagation = "None",
  ): Promise<string> {
    const resolved = await this.mountPoint(destination, kind);
    this.steps.push({ op: "bind", source, target: this.at(resolved), readOnly });
    if (this.propagates) this.steps.push({ op: "propagation", target: this.at(resolved), propagation });
    this.layers.push({ at: resolved, source });
    return resolved;
  }

  async tmpfs(destination: string, options: string): Promise<string> {
    const resolved = await this.mountPoint(destination, "directory");
    this.steps.push({ op: "tmpfs", target: this.at(resolved), options });
    this.layers.push({ at: resolved, source: null });
    return resolved;
  }
}

async function addHostMounts(builder: PlanBuilder, hostMounts: readonly MountEntry[]): Promise<void> {
  const points = [
    ...new Set(hostMounts.filter((m) => !HIDDEN_MOUNT_TYPES.has(m.fsType)).map((m) => m.mountPoint)),
  ];
  for (const point of points.filter((p) => !isUnder(p, "/run")).sort()) {
    await builder.bind(point, point, "directory", false);
  }
  await builder.tmpfs("/run", "mode=0755,nosuid,nodev");
}

async function addKernelFilesystems(builder: PlanBuilder, input: RootPlanInput): Promise<void> {
  await builder.bind("/proc", "/proc", "directory", false);
  await builder.bind("/sys", "/sys", "directory", !input.privileged);
  if (input.privileged) {
    await builder.bind("/dev", "/dev", "directory", false);
    return;
  }
  await builder.tmpfs("/dev", "mode=0755,nosuid");
  for (const name of DEFAULT_DEVICES) await builder.bind(`/dev/${name}`, `/dev/${name}`, "file", false);
  const pts = await builder.mountPoint("/dev/pts", "directory");
  builder.steps.push({ op: "devpts", target: builder.at(pts) });
  await builder.tmpfs("/dev/shm", "mode=1777,nosuid,nodev");
  for (const [name, linkTo] of [
    ["ptmx", "pts/ptmx"],
    ["fd", "/proc/self/fd"],
    ["stdin", "/proc/self/fd/0"],
    ["stdout", "/proc/self/fd/1"],
    ["stderr", "/proc/self/fd/2"],
  ] as const) {
    builder.steps.push({ op: "symlink", target: builder.at(`/dev/${name}`), linkTo });
  }
}

function depth(destination: string): number {
  return destination.split("/").filter(Boolean).length;
}

export async function planContainerRoot(input: RootPlanInput, probe: FsProbe = hostFs): Promise<RootPlan> {
  const scratch = input.scratchDir;
  const lower = input.rootfs.kind === "host" ? "/" : input.rootfs.path;
  const propagates = input.mounts.some((mount) => (mount.propagation ?? "None") !== "None");
  const builder = new PlanBuilder(path.join(scratch, "root"), lower, probe, propagates);
  const hostSteps: MountStep[] = [
    { op: "tmpfs", target: scratch, options: "mode=0755" },
    { op: "private", target: scratch },
    { op: "mkdir", target: path.join(scratch, "upper") },
    { op: "mkdir", target: path.join(scratch, "work") },
    { op: "mkdir", target: builder.rootDir },
    {
      op: "overlay",
      target: builder.rootDir,
      lower,
      upper: path.join(scratch, "upper"),
      work: path.join(scratch, "work"),
    },
  ];
  if (input.rootfs.kind === "host") await addHostMounts(builder, input.rootfs.hostMounts);
  else await addKernelFilesystems(builder, input);
  // A privileged container sees the host's /dev already; everyone else gets the allocated nodes bound in.
  if (!input.privileged) {
    for (const device of input.devices)
      await builder.bind(device.hostPath, device.containerPath, "file", false);
  }
  for (const file of input.etcFiles) await builder.bind(file.source, file.destination, "file", false);
  for (const file of input.executables) {
    const dir = await builder.mountPoint(path.posix.dirname(file.path), "directory");
    const target = builder.at(path.posix.join(dir, path.posix.basename(file.path)));
    builder.steps.push(
      "source" in file
        ? { op: "copy", target, source: file.source, mode: 0o755 }
        : { op: "write", target, content: file.content, mode: file.mode ?? 0o755 },
    );
  }
  // Parents before children, as container runtimes order mounts.
  const mounts = [...input.mounts].sort((a, b) => depth(a.destination) - depth(b.destination));
  for (const mount of mounts) {
    await builder.bind(
      mount.source,
      mount.destination,
      mount.kind === "directory" ? "directory" : "file",
      mount.readOnly,
      mount.propagation,
    );
  }
  // Block volumes' devices after the mounts, as runc creates devices after mounting: a devicePath inside a
  // mounted volume (KubeVirt's hotplug attachment pod puts its claims under its emptyDir) lies in that
  // volume, where the node, too, finds it.
  for (const device of input.volumeDevices) {
    // A privileged container's /dev is the host's own here (not a copy, as runc makes it): a mount point
    // made there would land on the node.
    if (input.privileged && isUnder(path.posix.normalize(device.containerPath), "/dev")) {
      throw new Error(
        `volumeDevices path ${device.containerPath} is in /dev, which a privileged container shares with the node here`,
      );
    }
    await builder.bind(device.hostPath, device.containerPath, "file", false);
  }
  const workingDir = await builder.mountPoint(input.workingDir || "/", "directory");
  return {
    rootDir: builder.rootDir,
    workingDir,
    hostSteps,
    steps: builder.steps,
    layers: builder.layers,
    propagates,
  };
}
