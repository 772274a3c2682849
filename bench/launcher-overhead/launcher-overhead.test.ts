import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleProcess, type ProcessSample } from "../common/proc.js";
import { FakeHost, NODE, fakeComputeProcesses } from "../common/testing/fake-proc.js";
import { formatReport, isQemu, shortCommand, summarize } from "./report.js";

let host: FakeHost;

beforeEach(async () => {
  host = await FakeHost.create("launcher-overhead");
});

afterEach(async () => {
  await host.remove();
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
    hwmKiB: rssKiB,
    startTicks: 1000,
    cpuTicks: 0,
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
    await fakeComputeProcesses(host);
    const processes = [100, 101, 102, 103, 104].map((pid) => ({
      pid,
      container: "compute",
      supervisor: pid === 100,
    }));
    processes.push({ pid: 999, container: "compute", supervisor: false }); // exited before it was sampled
    const samples = new Map<number, ProcessSample>();
    for (const { pid } of processes) {
      const s = await sampleProcess(host.procRoot, pid);
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
