import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogPump, createLogFifos, openContainerEnds } from "./log-pump.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kvts-logpump-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function spawnWriting(script: string, fifos: { stdout: string; stderr: string }) {
  const ends = openContainerEnds(fifos);
  const child = spawn("/bin/sh", ["-c", script], { stdio: ["ignore", ends.stdout, ends.stderr] });
  closeSync(ends.stdout);
  closeSync(ends.stderr);
  return child;
}

describe("LogPump", () => {
  it("turns a process's stdout and stderr into CRI records in kubelet's log file", async () => {
    const fifos = await createLogFifos(path.join(dir, "a"));
    const logPath = path.join(dir, "a.log");
    const ends = openContainerEnds(fifos); // held by "the agent" until the child has its own
    const pump = new LogPump(fifos, logPath);
    const child = spawn("/bin/sh", ["-c", "echo out; echo err >&2; printf tail"], {
      stdio: ["ignore", ends.stdout, ends.stderr],
    });
    closeSync(ends.stdout);
    closeSync(ends.stderr);
    await once(child, "exit");
    await pump.drained;
    await pump.close();
    const lines = (await readFile(logPath, "utf8")).split("\n").filter(Boolean);
    const records = lines.map((line) => line.replace(/^\S+ /, ""));
    expect(records).toEqual(expect.arrayContaining(["stdout F out", "stderr F err", "stdout F tail"]));
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z (stdout|stderr) F /);
  });

  it("keeps output in the pipe while nobody reads, for a later reader", async () => {
    const fifos = await createLogFifos(path.join(dir, "b"));
    const child = spawnWriting("echo written-while-away; sleep 0.3; echo after", fifos);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logPath = path.join(dir, "b.log");
    const pump = new LogPump(fifos, logPath); // "the restarted agent"
    await once(child, "exit");
    await pump.drained;
    await pump.close();
    const records = (await readFile(logPath, "utf8")).split("\n").filter(Boolean);
    expect(records.map((line) => line.replace(/^\S+ /, ""))).toEqual([
      "stdout F written-while-away",
      "stdout F after",
    ]);
  });

  it("refuses a path that is not a FIFO", async () => {
    await createLogFifos(path.join(dir, "c"));
    await rm(path.join(dir, "c/stdout.fifo"));
    await (await import("node:fs/promises")).writeFile(path.join(dir, "c/stdout.fifo"), "");
    await expect(createLogFifos(path.join(dir, "c"))).rejects.toThrow(/not a FIFO/);
  });
});
