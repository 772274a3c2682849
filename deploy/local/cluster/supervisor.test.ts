import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { processTree } from "./cgroup.js";
import { layout, logFile, pidFile } from "./layout.js";
import { leftoverPids, runningPid, startProcess, stopProcess } from "./supervisor.js";
import { runnable } from "../../../pkg/testutils/requirement.js";

const checkout = mkdtempSync(join(tmpdir(), "supervisor-test-"));
const l = layout(checkout, { HOME: checkout });
const cgroupsUsable = runnable(
  "the process-tree checks",
  (await processTree(l.stateDir, "probe")) !== undefined && process.getuid?.() === 0
    ? undefined
    : "no writable cgroup2 mount (or not root)",
);

afterAll(async () => {
  for (const name of ["sleeper", "stubborn", "forker", "talker", "cut"]) await stopProcess(l, name, 500);
  rmSync(checkout, { recursive: true, force: true });
});

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));

describe("process supervisor", () => {
  it("records a started process and stops it with SIGTERM", async () => {
    const pid = await startProcess(l, { name: "sleeper", command: "sleep", args: ["300"] });
    expect(readFileSync(pidFile(l, "sleeper"), "utf8").split("\n")[0]).toBe(String(pid));
    expect(await runningPid(l, "sleeper")).toBe(pid);
    const started = Date.now();
    expect(await stopProcess(l, "sleeper", 5_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await runningPid(l, "sleeper")).toBeUndefined();
    expect(existsSync(pidFile(l, "sleeper"))).toBe(false);
    expect(await stopProcess(l, "sleeper")).toBe(false); // a second stop finds nothing to do
  });

  it("SIGKILLs a process that ignores SIGTERM once the grace period is over", async () => {
    const pid = await startProcess(l, {
      name: "stubborn",
      command: "/bin/sh",
      args: ["-c", "trap '' TERM; while :; do sleep 0.1; done"],
    });
    await sleep(200); // let the shell install its trap
    const started = Date.now();
    await stopProcess(l, "stubborn", 1_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(alive(pid)).toBe(false);
  });

  it("with no grace period, SIGKILLs at once: the process hears no SIGTERM (a power cut)", async () => {
    const pid = await startProcess(l, {
      name: "cut",
      command: "/bin/sh",
      args: ["-c", "trap 'echo heard TERM; exit 0' TERM; while :; do sleep 0.1; done"],
    });
    await sleep(200); // let the shell install its trap
    await stopProcess(l, "cut", 0);
    expect(alive(pid)).toBe(false);
    expect(readFileSync(logFile(l, "cut"), "utf8")).not.toContain("heard TERM");
  });

  it("sends output to the process's log file", async () => {
    await startProcess(l, { name: "talker", command: "/bin/sh", args: ["-c", "echo hello from talker"] });
    await sleep(300);
    expect(readFileSync(logFile(l, "talker"), "utf8")).toContain("hello from talker");
  });

  it("does not take a recycled PID for the recorded process", async () => {
    // our own PID is alive, but its start time differs from the recorded one
    writeFileSync(pidFile(l, "impostor"), `${process.pid}\n1\n`);
    expect(await runningPid(l, "impostor")).toBeUndefined();
  });

  it.runIf(cgroupsUsable)("also stops the children a process started in their own session", async () => {
    await startProcess(l, {
      name: "forker",
      command: "/bin/sh",
      args: ["-c", "setsid sleep 300 & sleep 300"],
    });
    await sleep(300);
    const members = await leftoverPids(l, "forker");
    expect(members.length).toBe(3);
    await stopProcess(l, "forker", 2_000);
    for (const pid of members) expect(alive(pid)).toBe(false);
    expect(await leftoverPids(l, "forker")).toEqual([]);
  });
});
