import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ContainerState } from "../../deploy/local/node-agent/runtime/container-state.js";
import { findPodProcesses } from "./pod-processes.js";
import {
  descendants,
  parseCmdline,
  parseKiBField,
  parseStat,
  sampleProcess,
  type ProcessSample,
} from "./proc.js";
import { formatReport, isQemu, shortCommand, summarize } from "./report.js";

const POD_UID = "4da728a5-3498-44b0-82da-c3e47f69b0ea";

let dir: string;
let procRoot: string;
let nodesDir: string;
let cgroupRoot: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "launcher-overhead-"));
  procRoot = path.join(dir, "proc");
  nodesDir = path.join(dir, "nodes");
  cgroupRoot = path.join(dir, "cgroup", "kubevirt-ts", "node02", POD_UID);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface FakeProcess {
  pid: number;
  ppid: number;
  comm: string;
  argv: string[];
  rssKiB?: number;
  pssKiB?: number;
  state?: string;
  startTicks?: number;
}

async function fakeProcess(p: FakeProcess): Promise<void> {
  const pdir = path.join(procRoot, String(p.pid));
  await mkdir(pdir, { recursive: true });
  const fields = [p.state ?? "S", p.ppid, ...Array.from({ length: 17 }, () => 0), p.startTicks ?? 1000, 0];
  await writeFile(path.join(pdir, "stat"), `${p.pid} (${p.comm}) ${fields.join(" ")}\n`);
  const rss = p.rssKiB === undefined ? "" : `VmRSS:\t  ${p.rssKiB} kB\n`;
  await writeFile(path.join(pdir, "status"), `Name:\t${p.comm}\nVmPeak:\t 999999 kB\n${rss}Threads:\t1\n`);
  await writeFile(path.join(pdir, "cmdline"), p.argv.map((arg) => `${arg}\0`).join(""));
  if (p.pssKiB !== undefined) {
    await writeFile(
      path.join(pdir, "smaps_rollup"),
      `00400000-7ffd659da000 ---p 00000000 00:00 0  [rollup]\nRss:  ${p.rssKiB} kB\nPss:  ${p.pssKiB} kB\nPss_Anon:  1 kB\n`,
    );
  }
}

async function fakeContainer(
  name: string,
  supervisor: number,
  options: { cgroup?: boolean; exited?: boolean } = {},
): Promise<void> {
  const stateDir = path.join(nodesDir, "node02", "runtime", "pods", POD_UID, "containers", name);
  await mkdir(stateDir, { recursive: true });
  const cgroup = path.join(cgroupRoot, `${name}-0`);
  const state: ContainerState = {
    version: 1,
    id: `id-${name}`,
    pod: { uid: POD_UID, namespace: "default", name: "virt-launcher-demo-x" },
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

async function fakeCgroup(relative: string, pids: number[]): Promise<void> {
  const cdir = path.join(cgroupRoot, relative);
  await mkdir(cdir, { recursive: true });
  await writeFile(path.join(cdir, "cgroup.procs"), pids.map((pid) => `${pid}\n`).join(""));
}

const NODE = ["/usr/bin/node", "--import", "file:///w/node_modules/tsx/dist/loader.mjs"];

/** The compute container as the agent runs it: shell, monitor, libvirtd, and daemons reparented to init. */
async function fakeComputeProcesses(): Promise<void> {
  await fakeProcess({ pid: 1, ppid: 0, comm: "init", argv: ["/sbin/init"], rssKiB: 9000 });
  await fakeProcess({
    pid: 100,
    ppid: 1,
    comm: "sh",
    argv: ["/bin/sh", "-c", "..."],
    rssKiB: 1600,
    pssKiB: 200,
  });
  await fakeProcess({
    pid: 101,
    ppid: 100,
    comm: "node",
    argv: [...NODE, "/w/cmd/virt-launcher-monitor/main.ts", "--name", "demo"],
    rssKiB: 110_000,
    pssKiB: 70_000,
  });
  await fakeProcess({
    pid: 102,
    ppid: 101,
    comm: "libvirtd",
    argv: ["/usr/sbin/libvirtd"],
    rssKiB: 28_000,
    pssKiB: 16_000,
  });
  await fakeProcess({
    pid: 103,
    ppid: 1,
    comm: "virtlogd",
    argv: ["/usr/sbin/virtlogd"],
    rssKiB: 18_000,
    pssKiB: 6000,
  });
  await fakeProcess({
    pid: 104,
    ppid: 1,
    comm: "qemu-system-x86",
    argv: ["/usr/bin/qemu-system-x86_64", "-name", "guest=default_demo"],
    rssKiB: 230_000,
    pssKiB: 214_000,
  });
}

describe("proc parsing", () => {
  it("reads stat fields past a command name holding spaces and parentheses", () => {
    const fields = ["S", "42", ...Array.from({ length: 17 }, () => "0"), "777", "0"];
    expect(parseStat(`9 (a (b) c) ${fields.join(" ")}`)).toEqual({
      comm: "a (b) c",
      state: "S",
      ppid: 42,
      startTicks: 777,
    });
    expect(() => parseStat("garbage")).toThrow();
  });

  it("reads kB fields by exact key", () => {
    const status = "VmHWM:\t  200 kB\nVmRSS:\t  123 kB\nRssAnon:\t 100 kB\n";
    expect(parseKiBField(status, "VmRSS")).toBe(123);
    expect(parseKiBField(status, "Pss")).toBeUndefined();
    expect(parseKiBField("Pss_Anon:  5 kB\nPss:  7 kB\n", "Pss")).toBe(7);
  });

  it("splits cmdline on NULs, keeping empty arguments", () => {
    expect(parseCmdline("a\0\0b\0")).toEqual(["a", "", "b"]);
    expect(parseCmdline("")).toEqual([]);
  });

  it("samples a process, skipping zombies and gone ones", async () => {
    await fakeComputeProcesses();
    await fakeProcess({ pid: 200, ppid: 1, comm: "dead", argv: [], state: "Z" });
    expect(await sampleProcess(procRoot, 101)).toEqual({
      pid: 101,
      ppid: 100,
      comm: "node",
      argv: [...NODE, "/w/cmd/virt-launcher-monitor/main.ts", "--name", "demo"],
      rssKiB: 110_000,
      pssKiB: 70_000,
    });
    expect(await sampleProcess(procRoot, 200)).toBeUndefined();
    expect(await sampleProcess(procRoot, 999)).toBeUndefined();
    await fakeProcess({ pid: 300, ppid: 1, comm: "kthread", argv: [] });
    expect(await sampleProcess(procRoot, 300)).toMatchObject({ rssKiB: 0, pssKiB: undefined });
  });

  it("walks descendants by parent PID", async () => {
    await fakeComputeProcesses();
    expect((await descendants(procRoot, [100])).sort()).toEqual([100, 101, 102]);
  });
});

describe("finding the pod's processes", () => {
  it("reads every container cgroup of the pod, daemons reparented to init included", async () => {
    await fakeComputeProcesses();
    await fakeContainer("compute", 100);
    await fakeContainer("guest-console-log", 110);
    await fakeContainer("volumecontainerdisk-init", 120, { exited: true });
    await fakeCgroup("", []);
    await fakeCgroup("compute-0", [100, 101, 102, 103, 104]);
    await fakeCgroup("guest-console-log-0", [110, 111]);
    await fakeCgroup("stray-0", [130]);

    const found = await findPodProcesses({ nodesDir, node: "node02", podUid: POD_UID, procRoot });
    expect(found.processes).toEqual([
      { pid: 100, container: "compute", supervisor: true },
      { pid: 101, container: "compute", supervisor: false },
      { pid: 102, container: "compute", supervisor: false },
      { pid: 103, container: "compute", supervisor: false },
      { pid: 104, container: "compute", supervisor: false },
      { pid: 110, container: "guest-console-log", supervisor: true },
      { pid: 111, container: "guest-console-log", supervisor: false },
      { pid: 130, container: "stray-0", supervisor: false },
    ]);
    expect(found.warnings).toEqual([]);
    expect(found.sources).toEqual([`cgroup ${cgroupRoot} (3 container cgroups)`]);
  });

  it("falls back to the supervisor's descendants without a cgroup, and says what that misses", async () => {
    await fakeComputeProcesses();
    await fakeContainer("compute", 100, { cgroup: false });
    const found = await findPodProcesses({ nodesDir, node: "node02", podUid: POD_UID, procRoot });
    expect(found.processes.map((p) => p.pid).sort()).toEqual([100, 101, 102]);
    expect(found.warnings.join("\n")).toMatch(/daemons\) are missed/);
  });

  it("fails when the agent has no record of the pod", async () => {
    await expect(findPodProcesses({ nodesDir, node: "node02", podUid: POD_UID, procRoot })).rejects.toThrow(
      /no node agent records/,
    );
  });
});

describe("report", () => {
  const sample = (
    pid: number,
    comm: string,
    argv: string[],
    rssKiB: number,
    pssKiB?: number,
  ): ProcessSample => ({
    pid,
    ppid: 1,
    comm,
    argv,
    rssKiB,
    pssKiB,
  });

  it("names processes shortly", () => {
    expect(
      shortCommand(sample(1, "node", [...NODE, "/w/cmd/virt-launcher-monitor/main.ts", "--uid", "x"], 0)),
    ).toBe("node virt-launcher-monitor");
    expect(
      shortCommand(
        sample(
          1,
          "node",
          ["/usr/bin/node", "--enable-source-maps", "/w/dist/components/bin/virt-launcher-monitor.mjs"],
          0,
        ),
      ),
    ).toBe("node virt-launcher-monitor");
    expect(shortCommand(sample(1, "virt-tail", ["/usr/bin/virt-tail", "--logfile", "x"], 0))).toBe(
      "virt-tail",
    );
    expect(shortCommand(sample(1, "node", ["/usr/bin/node", "/x/server.js"], 0))).toBe("node server.js");
    expect(shortCommand(sample(1, "sh", ["/bin/sh", "-c", "x"], 0), true)).toBe("sh (supervisor)");
    expect(shortCommand(sample(1, "libvirtd", ["/usr/sbin/libvirtd", "--timeout", "0"], 0))).toBe("libvirtd");
    expect(shortCommand(sample(1, "kworker", [], 0))).toBe("[kworker]");
    expect(isQemu(sample(1, "qemu-system-x86", ["/usr/bin/qemu-system-x86_64"], 0))).toBe(true);
    expect(isQemu(sample(1, "qemu-system-x86", [], 0))).toBe(true);
    expect(isQemu(sample(1, "virtlogd", ["/usr/sbin/virtlogd"], 0))).toBe(false);
  });

  it("sums everything but qemu, and prints qemu and the target apart", async () => {
    await fakeComputeProcesses();
    const processes = [100, 101, 102, 103, 104].map((pid) => ({
      pid,
      container: "compute",
      supervisor: pid === 100,
    }));
    processes.push({ pid: 999, container: "compute", supervisor: false }); // exited before it was sampled
    const samples = new Map<number, ProcessSample>();
    for (const { pid } of processes) {
      const s = await sampleProcess(procRoot, pid);
      if (s) samples.set(pid, s);
    }
    const summary = summarize(processes, samples);
    expect(summary.rows.map((row) => row.command)).toEqual([
      "sh (supervisor)",
      "node virt-launcher-monitor",
      "libvirtd",
      "virtlogd",
      "qemu-system-x86_64",
    ]);
    expect(summary.withoutQemu).toEqual({
      count: 4,
      rssKiB: 1600 + 110_000 + 28_000 + 18_000,
      pssKiB: 92_200,
    });
    expect(summary.qemu).toEqual({ count: 1, rssKiB: 230_000, pssKiB: 214_000 });

    const text = formatReport(summary).join("\n");
    expect(text).toMatch(/^PID\s+CONTAINER\s+COMMAND\s+RSS MiB\s+PSS MiB$/m);
    expect(text).toMatch(/^101\s+compute\s+node virt-launcher-monitor\s+107\.4\s+68\.4$/m);
    expect(text).toMatch(/sum without qemu \(4 processes\)\s+153\.9\s+90\.0$/m);
    expect(text).toMatch(/qemu, for reference \(1\)\s+224\.6\s+209\.0$/m);
    expect(text).toMatch(/target \(sum without qemu, RSS\)\s+<= 64$/m);
  });

  it("shows PSS as n/a when some process's PSS is unreadable", () => {
    const summary = summarize(
      [
        { pid: 1, container: "compute", supervisor: false },
        { pid: 2, container: "compute", supervisor: false },
      ],
      new Map([
        [1, sample(1, "a", ["/a"], 1024, 512)],
        [2, sample(2, "b", ["/b"], 1024)],
      ]),
    );
    expect(summary.withoutQemu).toEqual({ count: 2, rssKiB: 2048, pssKiB: undefined });
    expect(formatReport(summary).join("\n")).toMatch(/sum without qemu \(2 processes\)\s+2\.0\s+n\/a$/m);
  });
});
