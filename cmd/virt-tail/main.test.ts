import { spawn } from "node:child_process";
import { appendFile, mkdir, rename, truncate, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nativeProgram } from "../../pkg/native/testing.js";

// The real program, built as the node agent builds it for the launcher image, started before its log
// exists (as the guest-console-log sidecar is) and fed, cut and stopped as a VM's serial log may be.

const fixture = nativeProgram(path.join(import.meta.dirname, "main.c"), "virt-tail");
const started = fixture.started;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(fixture.binary, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: "/usr/bin:/bin", ...env },
  });
  started.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, out: () => stdout, err: () => stderr };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Stops it as kubelet does and expects upstream's clean exit, well inside a second. */
async function stop(tail: ReturnType<typeof run>, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  const sent = Date.now();
  tail.child.kill(signal);
  expect(await tail.exited).toEqual({ code: 0, signal: null });
  expect(Date.now() - sent).toBeLessThan(1000);
}

const logLines = (stderr: string) =>
  stderr
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as object);

function usage(): string {
  return (
    `Usage of ${fixture.binary}:\n` +
    "      --logfile string   path of the logfile to be streamed\n" +
    "  -v, --v int            log level for V logs (default 2)\n"
  );
}

describe("virt-tail following the serial log", () => {
  it("waits for the log and its directory, then passes on complete lines in order, \\r kept", async () => {
    const logDir = path.join(fixture.dir, "late");
    const log = path.join(logDir, "virt-serial0-log");
    const tail = run(["--logfile", log, "-v", "4"]);
    // No directory yet: the tail gives up and is started again every second, saying so from V(3)/V(4).
    await until("the tail's complaint", () => tail.err().includes("no such file or directory"));
    expect(logLines(tail.err()).slice(0, 2)).toMatchObject([
      { msg: "tail error: chan closed" },
      { msg: `tail error: Failed to detect creation of ${log}: no such file or directory` },
    ]);
    await mkdir(logDir);
    await sleep(1200);
    await writeFile(log, "SeaBIOS\r\n");
    await until("the first line", () => tail.out() === "SeaBIOS\r\n");
    await appendFile(log, "Welcome to the test gu");
    await sleep(300);
    expect(tail.out()).toBe("SeaBIOS\r\n"); // a partial last line waits for its end
    await appendFile(log, "est\nlogin: ");
    await until("the completed line", () => tail.out().endsWith("Welcome to the test guest\n"));
    await appendFile(log, "root\n");
    await until("the login line", () => tail.out().endsWith("login: root\n"));
    expect(tail.out()).toBe("SeaBIOS\r\nWelcome to the test guest\nlogin: root\n");
    await stop(tail);
  }, 20_000);

  it("reads a truncated log again from its start, dropping the cut-off partial line", async () => {
    const log = path.join(fixture.dir, "truncated-log");
    await writeFile(log, "one\ntwo\npart");
    const tail = run(["--logfile", log]);
    await until("the existing lines", () => tail.out() === "one\ntwo\n");
    await truncate(log, 0);
    await sleep(200);
    await appendFile(log, "after truncate\n");
    await until("the line after the truncation", () => tail.out().endsWith("after truncate\n"));
    expect(tail.out()).toBe("one\ntwo\nafter truncate\n");
    await stop(tail);
  }, 20_000);

  it("follows the next file of that name after the log is renamed or deleted", async () => {
    const log = path.join(fixture.dir, "rotated-log");
    await writeFile(log, "old\n");
    const tail = run(["--logfile", log]);
    await until("the old file", () => tail.out() === "old\n");
    await rename(log, `${log}.1`);
    await sleep(200);
    await writeFile(log, "new file\n");
    await until("the new file", () => tail.out().endsWith("new file\n"));
    await unlink(log);
    await sleep(200);
    await writeFile(log, "recreated\n");
    await until("the recreated file", () => tail.out().endsWith("recreated\n"));
    expect(tail.out()).toBe("old\nnew file\nrecreated\n");
    await stop(tail, "SIGINT");
  }, 20_000);

  it("tolerates flags it does not know, an unknown flag taking the next non-flag argument along", async () => {
    const log = path.join(fixture.dir, "unknown-flags-log");
    await writeFile(log, "shown\n");
    const tail = run(["--unknown", "value", "-x", "--newer=1", "--logfile", log, "positional"]);
    await until("the line", () => tail.out() === "shown\n");
    await stop(tail);
    const swallowed = run(["--unknown", log, "-v", "3"]);
    expect(await swallowed.exited).toEqual({ code: 1, signal: null });
  }, 20_000);

  it("ends at once on SIGTERM while still waiting for the log, with exit code 0", async () => {
    const tail = run(["--logfile", path.join(fixture.dir, "never-written")]);
    await sleep(300);
    await stop(tail);
    expect(tail.out()).toBe("");
    expect(tail.err()).toBe("");
  });
});

describe("virt-tail's command line", () => {
  it("exits 1 without --logfile, saying so only from verbosity 3 on, in kubevirt's JSON log format", async () => {
    const quiet = run([]);
    expect(await quiet.exited).toEqual({ code: 1, signal: null });
    expect(quiet.err()).toBe("");
    const verbose = run(["-v", "3"]);
    expect(await verbose.exited).toEqual({ code: 1, signal: null });
    expect(logLines(verbose.err())).toEqual([
      {
        component: "virt-tail",
        level: "info",
        msg: "logfile flags must be provided",
        pos: expect.stringMatching(/^main\.c:\d+$/),
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
    ]);
  });

  it.each([
    [["--logfile"], "flag needs an argument: --logfile"],
    [["--logfile", "/l", "-v"], "flag needs an argument: 'v' in -v"],
    [["--v=abc", "--logfile", "/l"], `invalid argument "abc" for "-v, --v" flag: parse error`],
    [
      ["-v", "99999999999999999999"],
      `invalid argument "99999999999999999999" for "-v, --v" flag: value out of range`,
    ],
    [["---x"], "bad flag syntax: ---x"],
  ])("%j: usage, pflag's message, exit 2", async (args, message) => {
    const tail = run(args);
    expect(await tail.exited).toEqual({ code: 2, signal: null });
    expect(tail.err()).toBe(`${usage()}${message}\n`);
  });

  it("prints the usage and exits 0 on --help or -h", async () => {
    for (const flag of ["--help", "-h"]) {
      const tail = run([flag]);
      expect(await tail.exited).toEqual({ code: 0, signal: null });
      expect(tail.err()).toBe(usage());
    }
  });

  it("parses -v as Go's flag package does (0x, 0o, 0b, leading 0, underscores)", async () => {
    for (const value of ["0x3", "0b11", "0o3", "03", "-v3", "+3", "0_3"]) {
      const args = value === "-v3" ? [value] : ["--v", value];
      const tail = run(args);
      expect(await tail.exited, value).toEqual({ code: 1, signal: null });
      expect(tail.err(), value).toContain("logfile flags must be provided");
    }
  });

  it("takes VIRT_LAUNCHER_LOG_VERBOSITY over -v, and warns about one that is no integer", async () => {
    const set = run(["-v", "0"], { VIRT_LAUNCHER_LOG_VERBOSITY: "4" });
    expect(await set.exited).toEqual({ code: 1, signal: null });
    expect(logLines(set.err())).toMatchObject([
      { level: "info", msg: "set log verbosity to 4" },
      { level: "info", msg: "logfile flags must be provided" },
    ]);
    const bad = run(["-v", "3"], { VIRT_LAUNCHER_LOG_VERBOSITY: "many" });
    expect(await bad.exited).toEqual({ code: 1, signal: null });
    expect(logLines(bad.err())).toMatchObject([
      {
        level: "warning",
        msg: "failed to set log verbosity. The value of logVerbosity label should be an integer, got many instead.",
      },
      { msg: "logfile flags must be provided" },
    ]);
  });

  it("never dies of a signal, whatever the flags (random vectors)", async () => {
    const pieces = [
      "--logfile",
      "-v",
      "--v",
      "-v=",
      "-vv",
      "-xv",
      "-x",
      "--",
      "-",
      "--=",
      "---",
      "--unknown",
      "-h=1",
      "x",
      "",
      "0x",
      "1_",
      "-1",
      "--v=9223372036854775808",
      "-test.v",
      "\u00e9",
      "\xff",
      path.join(fixture.dir, "fuzz", "log"),
    ];
    let seed = 13;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let batch = 0; batch < 12; batch++) {
      const runs = Array.from({ length: 10 }, () => {
        const args = Array.from({ length: random(6) }, () => pieces[random(pieces.length)] ?? "");
        const env: Record<string, string> =
          random(3) === 0 ? { VIRT_LAUNCHER_LOG_VERBOSITY: ["7", "", "-2", "x"][random(4)] ?? "" } : {};
        return { args, tail: run(args, env) };
      });
      await sleep(150);
      for (const { args, tail } of runs) {
        if (tail.child.exitCode === null) tail.child.kill("SIGTERM");
        const exit = await tail.exited;
        expect(exit.signal, JSON.stringify(args)).toBeNull();
        expect([0, 1, 2], JSON.stringify(args)).toContain(exit.code);
      }
    }
  }, 60_000);
});
