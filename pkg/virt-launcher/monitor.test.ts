import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../controller/log.js";
import { findPid, ProcessMonitor } from "./monitor.js";

/** A stand-in for QEMU: a real process with a pid file where libvirt would write one. */
function fakeQemu(seconds: number): { pidDir: string; pid: number; exited: Promise<void>; kill: () => void } {
  const pidDir = mkdtempSync(join(tmpdir(), "kvts-monitor-"));
  const child = spawn("sleep", [String(seconds)], { stdio: "ignore" });
  const pid = child.pid ?? 0;
  writeFileSync(join(pidDir, "default_vmi.pid"), String(pid));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { pidDir, pid, exited, kill: () => child.kill("SIGKILL") };
}

function monitorFor(
  pidDir: string,
  gracePeriodSeconds: number,
  record: string[],
  onFinal: (pid: number) => void = () => {},
  earlyExit?: AbortSignal,
) {
  return new ProcessMonitor({
    earlyExit,
    domainName: "default_vmi",
    pidDir,
    gracePeriodSeconds,
    gracefulShutdown: () => {
      record.push("graceful");
      return Promise.resolve();
    },
    finalShutdown: (pid) => {
      record.push(`final ${pid}`);
      onFinal(pid);
      return Promise.resolve();
    },
    log: silentLogger,
    tickMs: 20,
  });
}

describe("ProcessMonitor", () => {
  it("reads libvirt's pid file", async () => {
    const qemu = fakeQemu(5);
    expect(await findPid("default_vmi", qemu.pidDir)).toBe(qemu.pid);
    qemu.kill();
  });

  it("returns once QEMU is gone, without any shutdown call", async () => {
    const qemu = fakeQemu(0.3);
    const record: string[] = [];
    await monitorFor(qemu.pidDir, 30, record).run(0, new AbortController().signal);
    await qemu.exited;
    expect(record).toEqual([]);
  });

  it("starts the grace period on stop and kills QEMU once it expired", async () => {
    const qemu = fakeQemu(30);
    const record: string[] = [];
    const stop = new AbortController();
    const running = monitorFor(qemu.pidDir, 0, record, () => qemu.kill()).run(0, stop.signal);
    stop.abort();
    await running;
    expect(record[0]).toBe("graceful");
    expect(record).toContain(`final ${qemu.pid}`);
  });

  it("gives up when QEMU never appears within the start timeout", async () => {
    const pidDir = mkdtempSync(join(tmpdir(), "kvts-monitor-"));
    const record: string[] = [];
    const started = Date.now();
    await monitorFor(pidDir, 30, record).run(100, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(record).toEqual([]);
  });

  it("stops watching a running QEMU, without any shutdown call, on the early exit signal", async () => {
    const qemu = fakeQemu(30);
    const record: string[] = [];
    const earlyExit = new AbortController();
    const running = monitorFor(qemu.pidDir, 30, record, undefined, earlyExit.signal).run(
      0,
      new AbortController().signal,
    );
    earlyExit.abort();
    await running;
    expect(record).toEqual([]);
    qemu.kill();
  });
});
