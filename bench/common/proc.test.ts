import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  descendants,
  parseCmdline,
  parseCpuTicks,
  parseKiBField,
  parseSchedstat,
  parseStat,
  readSchedstat,
  sampleProcess,
} from "./proc.js";
import { FakeHost, NODE, fakeComputeProcesses } from "./testing/fake-proc.js";

let host: FakeHost;

beforeEach(async () => {
  host = await FakeHost.create("bench-proc");
});

afterEach(async () => {
  await host.remove();
});

describe("proc parsing", () => {
  it("reads stat fields past a command name holding spaces and parentheses", () => {
    const fields = ["S", "42", ...Array.from({ length: 17 }, () => "0"), "777", "0"];
    fields[14 - 3] = "30";
    fields[15 - 3] = "12";
    const text = `9 (a (b) c) ${fields.join(" ")}`;
    expect(parseStat(text)).toEqual({ comm: "a (b) c", state: "S", ppid: 42, startTicks: 777 });
    expect(parseCpuTicks(text)).toBe(42);
    expect(() => parseStat("garbage")).toThrow();
    expect(() => parseCpuTicks("garbage")).toThrow();
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
    await fakeComputeProcesses(host);
    await host.process({ pid: 200, ppid: 1, comm: "dead", argv: [], state: "Z" });
    expect(await sampleProcess(host.procRoot, 101)).toEqual({
      pid: 101,
      ppid: 100,
      comm: "node",
      argv: [...NODE, "/w/cmd/virt-launcher-monitor/main.ts", "--name", "demo"],
      rssKiB: 110_000,
      pssKiB: 70_000,
      hwmKiB: 0,
      startTicks: 1000,
      cpuTicks: 0,
    });
    expect(await sampleProcess(host.procRoot, 200)).toBeUndefined();
    expect(await sampleProcess(host.procRoot, 999)).toBeUndefined();
    await host.process({ pid: 300, ppid: 1, comm: "kthread", argv: [] });
    expect(await sampleProcess(host.procRoot, 300)).toMatchObject({ rssKiB: 0, pssKiB: undefined });
  });

  it("reads the CPU time and the RSS high-water mark, and leaves PSS out when asked", async () => {
    await host.process({
      pid: 400,
      ppid: 1,
      comm: "node",
      argv: ["/usr/bin/node"],
      rssKiB: 50_000,
      pssKiB: 30_000,
      hwmKiB: 80_000,
      utimeTicks: 250,
      stimeTicks: 50,
      startTicks: 4242,
    });
    expect(await sampleProcess(host.procRoot, 400, { pss: false })).toMatchObject({
      rssKiB: 50_000,
      pssKiB: undefined,
      hwmKiB: 80_000,
      cpuTicks: 300,
      startTicks: 4242,
    });
  });

  it("reads the main thread's run-queue wait from schedstat", async () => {
    expect(parseSchedstat("1522721 21998481 23\n")).toEqual({ runNs: 1522721, waitNs: 21998481, slices: 23 });
    expect(() => parseSchedstat("1 2")).toThrow();
    await host.process({ pid: 500, ppid: 1, comm: "node", argv: [], waitNs: 42 });
    expect(await readSchedstat(host.procRoot, 500)).toEqual({ runNs: 1000000, waitNs: 42, slices: 10 });
    expect(await readSchedstat(host.procRoot, 501)).toBeUndefined();
  });

  it("walks descendants by parent PID", async () => {
    await fakeComputeProcesses(host);
    expect((await descendants(host.procRoot, [100])).sort()).toEqual([100, 101, 102]);
  });
});
