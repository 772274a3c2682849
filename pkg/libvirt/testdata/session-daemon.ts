// Test helper: a private, unprivileged session-mode libvirtd, the way virt-launcher runs one.
// It gets its own HOME/XDG directories under a temp folder and runs as `uid` inside a private
// mount namespace where that uid has a passwd entry (bind-mounted copies; the host files are not
// touched). Needs root and the packages of install-libvirt.sh.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface SessionDaemonOptions {
  /** Unprivileged uid (and gid) the daemon runs as. */
  uid: number;
  /** Extra lines for libvirtd.conf (e.g. keepalive settings). */
  libvirtdConf?: string[];
}

export interface SessionDaemon {
  root: string;
  pid: number;
  socketPath: string;
  /** Everything libvirtd wrote to stdout/stderr so far. */
  log(): string;
  /** Kills QEMU processes the daemon left, then the daemon (by PID), and removes the folder. */
  stop(): Promise<void>;
}

const SUBDIRS = ["run", "config/libvirt", "cache", "home", "data", "etc"] as const;

function prepareRoot(uid: number, libvirtdConf: readonly string[]): string {
  const root = mkdtempSync(join(tmpdir(), "kvts-libvirt-"));
  chmodSync(root, 0o755); // the daemon's uid must be able to walk into it
  for (const dir of SUBDIRS) mkdirSync(join(root, dir), { recursive: true });
  const user = `kvtslibvirt${uid}`;
  copyFileSync("/etc/passwd", join(root, "etc/passwd"));
  copyFileSync("/etc/group", join(root, "etc/group"));
  appendFileSync(
    join(root, "etc/passwd"),
    `${user}:x:${uid}:${uid}:kubevirt-ts libvirt test:${root}/home:/bin/sh\n`,
  );
  appendFileSync(join(root, "etc/group"), `${user}:x:${uid}:\n`);
  writeFileSync(
    join(root, "config/libvirt/libvirtd.conf"),
    ['log_outputs="3:stderr"', ...libvirtdConf, ""].join("\n"),
  );
  // QEMU's output to a file instead of a per-user virtlogd daemon.
  writeFileSync(join(root, "config/libvirt/qemu.conf"), 'stdio_handler = "file"\n');
  for (const dir of ["run", "config", "config/libvirt", "cache", "home", "data"])
    chownSync(join(root, dir), uid, uid);
  for (const file of ["libvirtd.conf", "qemu.conf"]) chownSync(join(root, "config/libvirt", file), uid, uid);
  chmodSync(join(root, "run"), 0o700);
  return root;
}

function launch(root: string, uid: number): ChildProcess {
  const environment = [
    "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
    `HOME=${root}/home`,
    `XDG_RUNTIME_DIR=${root}/run`,
    `XDG_CONFIG_HOME=${root}/config`,
    `XDG_CACHE_HOME=${root}/cache`,
    `XDG_DATA_HOME=${root}/data`,
  ].join(" ");
  const script =
    `mount --bind ${root}/etc/passwd /etc/passwd && mount --bind ${root}/etc/group /etc/group && ` +
    `exec setpriv --reuid=${uid} --regid=${uid} --clear-groups --inh-caps=-all ` +
    `env -i ${environment} /usr/sbin/libvirtd --timeout 0`;
  const log = openSync(join(root, "libvirtd.log"), "a");
  // unshare, sh, setpriv and env all exec: the child's PID ends up being libvirtd's.
  const child = spawn("unshare", ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", script], {
    cwd: root,
    stdio: ["ignore", log, log],
  });
  closeSync(log); // the child has its own copy
  return child;
}

function qemuPids(root: string): number[] {
  const dir = join(root, "run/libvirt/qemu/run");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".pid"))
    .map((name) => Number(readFileSync(join(dir, name), "utf8").trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function terminate(pid: number): Promise<void> {
  if (!isRunning(pid)) return;
  process.kill(pid, "SIGTERM");
  for (let waited = 0; waited < 5000 && isRunning(pid); waited += 50) await sleep(50);
  if (isRunning(pid)) process.kill(pid, "SIGKILL");
}

export async function startSessionDaemon(options: SessionDaemonOptions): Promise<SessionDaemon> {
  const root = prepareRoot(options.uid, options.libvirtdConf ?? []);
  const child = launch(root, options.uid);
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not start libvirtd (unshare missing?)");
  let exited = false;
  child.once("exit", () => (exited = true));
  const socketPath = join(root, "run/libvirt/libvirt-sock");
  const log = (): string => readFileSync(join(root, "libvirtd.log"), "utf8");
  const stop = async (): Promise<void> => {
    for (const qemu of qemuPids(root)) await terminate(qemu);
    if (!exited) await terminate(pid);
    rmSync(root, { recursive: true, force: true });
  };
  for (let waited = 0; !existsSync(socketPath); waited += 100) {
    if (exited || waited > 15_000) {
      const output = log();
      await stop();
      throw new Error(`libvirtd did not create ${socketPath}:\n${output}`);
    }
    await sleep(100);
  }
  return { root, pid, socketPath, log, stop };
}
