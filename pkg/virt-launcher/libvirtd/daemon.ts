// The launcher's own libvirtd (upstream LibvirtWrapper.SetupLibvirt + StartVirtqemud): session
// mode, one per VMI, as QEMU's unprivileged user, its config and sockets inside the pod's dirs.
// It dies with the launcher (parent-death signal) and is stopped by its recorded PID.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../controller/log.js";
import type { LauncherLayout } from "../layout.js";
import { libvirtHomeDir, libvirtRuntimeDir, libvirtSocket } from "../layout.js";
import type { LibvirtConfigOptions } from "./config.js";
import { libvirtConfigDir, libvirtdConf, libvirtdEnvironment, qemuConf } from "./config.js";
import type { QemuIdentity } from "./identity.js";
import { hasPasswdEntry, withGroupEntry, withPasswdEntry } from "./identity.js";

const LIBVIRTD = "/usr/sbin/libvirtd";
const SOCKET_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

export interface LibvirtDaemonOptions extends LibvirtConfigOptions {
  layout: LauncherLayout;
  identity: QemuIdentity;
  log: Logger;
}

export interface DaemonExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Prepares the dirs and config the daemon needs, owned by its user. */
async function prepare(options: LibvirtDaemonOptions): Promise<void> {
  const { layout, identity } = options;
  const home = libvirtHomeDir(layout);
  const runtime = libvirtRuntimeDir(layout);
  const config = libvirtConfigDir(layout);
  await mkdir(config, { recursive: true });
  await writeFile(join(config, "libvirtd.conf"), libvirtdConf(options));
  await writeFile(join(config, "qemu.conf"), qemuConf());
  await mkdir(runtime, { recursive: true });
  // In a pod the runtime dir is an emptyDir the node made (world-writable, not ours to chmod); the
  // daemon keeps its sockets private inside it. Outside a pod, as in tests, it is ours: close it.
  const runtimeOwned = (await stat(runtime)).uid === process.getuid?.();
  if (runtimeOwned) await chmod(runtime, 0o700);
  for (const path of [
    home,
    config,
    join(config, "libvirtd.conf"),
    join(config, "qemu.conf"),
    ...(runtimeOwned ? [runtime] : []),
  ]) {
    await identity.ownership.setFileOwnership(path);
  }
}

/** Copies of passwd and group with an entry for QEMU's user, to bind-mount in the daemon's namespace. */
async function identityFiles(options: LibvirtDaemonOptions): Promise<{ passwd: string; group: string }> {
  const { layout, identity } = options;
  const dir = join(libvirtHomeDir(layout), "etc");
  await mkdir(dir, { recursive: true });
  const passwd = join(dir, "passwd");
  const group = join(dir, "group");
  await writeFile(
    passwd,
    withPasswdEntry(
      await readFile("/etc/passwd", "utf8"),
      identity.uid,
      identity.gid,
      libvirtHomeDir(layout),
    ),
  );
  await writeFile(group, withGroupEntry(await readFile("/etc/group", "utf8"), identity.gid));
  await chmod(passwd, 0o644);
  await chmod(group, 0o644);
  return { passwd, group };
}

/** A tun node QEMU's user may open, bound over /dev/net/tun for the daemon (root launchers only). */
async function tunDevice(options: LibvirtDaemonOptions): Promise<string> {
  if (!existsSync("/dev/net/tun")) return "";
  const node = join(libvirtHomeDir(options.layout), "etc/tun");
  if (!existsSync(node)) {
    const made = await run("mknod", ["-m", "0666", node, "c", "10", "200"]);
    if (!made) return "";
  }
  await chown(node, 0, 0);
  return node;
}

function run(command: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    spawn(command, args, { stdio: "ignore" })
      .on("error", () => resolve(false))
      .on("exit", (code) => resolve(code === 0));
  });
}

/** The command line: setpriv kills the daemon when the launcher dies; a root launcher also switches user. */
async function commandLine(options: LibvirtDaemonOptions): Promise<[string, string[]]> {
  const { identity, layout } = options;
  const environment = Object.entries(libvirtdEnvironment(layout)).map(([key, value]) => `${key}=${value}`);
  const daemon = ["env", "-i", ...environment, LIBVIRTD, "--timeout", "0"];
  if (!identity.switchUser) {
    const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
    if (!hasPasswdEntry(passwd, identity.uid)) {
      throw new Error(
        `uid ${identity.uid} has no entry in /etc/passwd; libvirtd needs one (upstream's launcher image has user qemu, uid 107)`,
      );
    }
    return ["setpriv", ["--pdeathsig", "KILL", ...daemon]];
  }
  const { passwd, group } = await identityFiles(options);
  const tun = await tunDevice(options);
  const user = [
    "--reuid",
    String(identity.uid),
    "--regid",
    String(identity.gid),
    "--clear-groups",
    "--inh-caps=-all",
  ];
  // The passwd entry exists only inside the daemon's own mount namespace; the pod's files stay as they are.
  const script =
    'mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/group && ' +
    '{ [ -z "$3" ] || mount --bind "$3" /dev/net/tun; } && shift 3 && exec "$@"';
  return [
    "unshare",
    [
      "--mount",
      "--propagation",
      "private",
      "--",
      "/bin/sh",
      "-c",
      script,
      "sh",
      passwd,
      group,
      tun,
      "setpriv",
      "--pdeathsig",
      "KILL",
      ...user,
      ...daemon,
    ],
  ];
}

function forwardLog(child: ChildProcess, log: Logger): void {
  if (!child.stderr) return;
  createInterface({ input: child.stderr }).on("line", (line) => {
    // libvirt's own format: "<time>: <thread>: <level> : <message>".
    const level = / (error|warning) : /.exec(line)?.[1];
    const entry = { subcomponent: "libvirtd", msg: line };
    if (level === "error") log.error(entry);
    else if (level === "warning") log.warn(entry);
    else log.info(entry);
  });
}

export class LibvirtDaemon {
  private exitInfo: DaemonExit | undefined;
  /** Settles when the daemon process ends, for whatever reason. */
  readonly exited: Promise<DaemonExit>;

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly socketPath: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
  }

  /** Starts the daemon and waits for its socket. */
  static async start(options: LibvirtDaemonOptions): Promise<LibvirtDaemon> {
    await prepare(options);
    const [command, args] = await commandLine(options);
    const child = spawn(command, args, {
      stdio: ["ignore", "ignore", "pipe"],
      cwd: libvirtHomeDir(options.layout),
    });
    if (child.pid === undefined) {
      const failure = await new Promise<Error>((resolve) => child.once("error", resolve));
      throw new Error(`failed to start libvirtd: ${failure.message}`);
    }
    forwardLog(child, options.log);
    const daemon = new LibvirtDaemon(child, child.pid, libvirtSocket(options.layout));
    await daemon.waitForSocket();
    options.log.info({ pid: daemon.pid, socket: daemon.socketPath }, "libvirtd started");
    return daemon;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  private async waitForSocket(): Promise<void> {
    for (let waited = 0; !existsSync(this.socketPath); waited += 100) {
      if (!this.running || waited >= SOCKET_TIMEOUT_MS) {
        await this.stop();
        throw new Error(`libvirtd did not create ${this.socketPath} (exit ${JSON.stringify(this.exitInfo)})`);
      }
      await sleep(100);
    }
  }

  /** SIGTERM, then SIGKILL if it is still there after a while. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill("SIGTERM");
    const stopped = await Promise.race([
      this.exited.then(() => true),
      sleep(STOP_TIMEOUT_MS).then(() => false),
    ]);
    if (!stopped) {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}
