import { spawn } from "node:child_process";
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The real process: started before the log exists, as the sidecar is, then fed and stopped with SIGTERM.

const main = fileURLToPath(new URL("./main.ts", import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "virt-tail-main-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[]) {
  const child = spawn(process.execPath, ["--import", tsx, main, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("virt-tail", () => {
  it("follows a log that appears late and grows, and exits 0 on SIGTERM", async () => {
    const log = path.join(dir, "virt-serial0-log");
    const tail = run(["--logfile", log]);
    await new Promise((r) => setTimeout(r, 500));
    await writeFile(log, "SeaBIOS\n");
    await until("the first line", () => tail.out().includes("SeaBIOS\n"));
    await appendFile(log, "Welcome to the test guest\nlogin: ");
    await until("the second line", () => tail.out().includes("Welcome to the test guest\n"));
    tail.child.kill("SIGTERM");
    expect(await tail.exited).toBe(0);
    expect(tail.out()).toBe("SeaBIOS\nWelcome to the test guest\n");
  }, 20_000);

  it("exits 1 without --logfile", async () => {
    const tail = run([]);
    expect(await tail.exited).toBe(1);
    expect(tail.err()).toContain("logfile flags must be provided");
  }, 20_000);
});
