// A fake /proc tree, node agent records and cgroup tree in a temporary folder, for the tests of what
// the benchmarks read about processes (proc.ts, pod-processes.ts) and of their reports.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ContainerState } from "../../../deploy/local/node-agent/runtime/container-state.js";

export interface FakeProcess {
  pid: number;
  ppid: number;
  comm: string;
  argv: string[];
  rssKiB?: number;
  pssKiB?: number;
  hwmKiB?: number;
  state?: string;
  startTicks?: number;
  utimeTicks?: number;
  stimeTicks?: number;
  /** The main thread's run-queue wait (schedstat's second field), ns. */
  waitNs?: number;
}

export class FakeHost {
  readonly procRoot: string;
  readonly nodesDir: string;

  private constructor(readonly dir: string) {
    this.procRoot = path.join(dir, "proc");
    this.nodesDir = path.join(dir, "nodes");
  }

  static async create(prefix: string): Promise<FakeHost> {
    return new FakeHost(await mkdtemp(path.join(tmpdir(), `${prefix}-`)));
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /** The pod's cgroup, as the agent lays it out: <tree>/<node>/<pod uid>. */
  podCgroup(node: string, podUid: string): string {
    return path.join(this.dir, "cgroup", "kubevirt-ts", node, podUid);
  }

  async process(p: FakeProcess): Promise<void> {
    const pdir = path.join(this.procRoot, String(p.pid));
    await mkdir(pdir, { recursive: true });
    // Fields 3 (state) to 23: utime and stime are fields 14 and 15, the start time 22.
    const fields: (string | number)[] = [p.state ?? "S", p.ppid, ...Array.from({ length: 17 }, () => 0)];
    fields[14 - 3] = p.utimeTicks ?? 0;
    fields[15 - 3] = p.stimeTicks ?? 0;
    fields.push(p.startTicks ?? 1000, 0);
    await writeFile(path.join(pdir, "stat"), `${p.pid} (${p.comm}) ${fields.join(" ")}\n`);
    const rss = p.rssKiB === undefined ? "" : `VmRSS:\t  ${p.rssKiB} kB\n`;
    const hwm = p.hwmKiB === undefined ? "" : `VmHWM:\t  ${p.hwmKiB} kB\n`;
    await writeFile(
      path.join(pdir, "status"),
      `Name:\t${p.comm}\nVmPeak:\t 999999 kB\n${hwm}${rss}Threads:\t1\n`,
    );
    await writeFile(path.join(pdir, "cmdline"), p.argv.map((arg) => `${arg}\0`).join(""));
    await writeFile(path.join(pdir, "schedstat"), `1000000 ${p.waitNs ?? 0} 10\n`);
    if (p.pssKiB !== undefined) {
      await writeFile(
        path.join(pdir, "smaps_rollup"),
        `00400000-7ffd659da000 ---p 00000000 00:00 0  [rollup]\nRss:  ${p.rssKiB} kB\nPss:  ${p.pssKiB} kB\nPss_Anon:  1 kB\n`,
      );
    }
  }

  /** The agent's record of a container instance (attempt 0) whose supervising shell is `supervisor`. */
  async container(
    node: string,
    podUid: string,
    name: string,
    supervisor: number,
    options: { cgroup?: boolean; exited?: boolean; namespace?: string; pod?: string } = {},
  ): Promise<void> {
    const stateDir = path.join(this.nodesDir, node, "runtime", "pods", podUid, "containers", name);
    await mkdir(stateDir, { recursive: true });
    const cgroup = path.join(this.podCgroup(node, podUid), `${name}-0`);
    const state: ContainerState = {
      version: 1,
      id: `id-${name}`,
      pod: {
        uid: podUid,
        namespace: options.namespace ?? "default",
        name: options.pod ?? "virt-launcher-demo-x",
      },
      name,
      attempt: 0,
      supervisor: { pid: supervisor, startTicks: 1000 },
      pid: supervisor + 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      logPath: "/dev/null",
      statusFile: "/dev/null",
      ...(options.cgroup === false ? {} : { cgroup }),
      ...(options.exited ? { exit: { exitCode: 0, finishedAt: "2026-01-01T00:00:01.000Z" } } : {}),
    };
    await writeFile(path.join(stateDir, "state.json"), JSON.stringify(state));
  }

  /** A cgroup under the pod's, `relative` "" for the pod's own, holding `pids`. */
  async cgroup(node: string, podUid: string, relative: string, pids: number[]): Promise<void> {
    const cdir = path.join(this.podCgroup(node, podUid), relative);
    await mkdir(cdir, { recursive: true });
    await writeFile(path.join(cdir, "cgroup.procs"), pids.map((pid) => `${pid}\n`).join(""));
  }
}

export const NODE = ["/usr/bin/node", "--import", "file:///w/node_modules/tsx/dist/loader.mjs"];

/** A launcher Pod's compute container as the agent runs it: shell, monitor, libvirtd, and daemons reparented to init. */
export async function fakeComputeProcesses(host: FakeHost): Promise<void> {
  await host.process({ pid: 1, ppid: 0, comm: "init", argv: ["/sbin/init"], rssKiB: 9000 });
  await host.process({
    pid: 100,
    ppid: 1,
    comm: "sh",
    argv: ["/bin/sh", "-c", "..."],
    rssKiB: 1600,
    pssKiB: 200,
  });
  await host.process({
    pid: 101,
    ppid: 100,
    comm: "node",
    argv: [...NODE, "/w/cmd/virt-launcher-monitor/main.ts", "--name", "demo"],
    rssKiB: 110_000,
    pssKiB: 70_000,
  });
  await host.process({
    pid: 102,
    ppid: 101,
    comm: "libvirtd",
    argv: ["/usr/sbin/libvirtd"],
    rssKiB: 28_000,
    pssKiB: 16_000,
  });
  await host.process({
    pid: 103,
    ppid: 1,
    comm: "virtlogd",
    argv: ["/usr/sbin/virtlogd"],
    rssKiB: 18_000,
    pssKiB: 6000,
  });
  await host.process({
    pid: 104,
    ppid: 1,
    comm: "qemu-system-x86",
    argv: ["/usr/bin/qemu-system-x86_64", "-name", "guest=default_demo"],
    rssKiB: 230_000,
    pssKiB: 214_000,
  });
}
