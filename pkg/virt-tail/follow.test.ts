import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LineFollower } from "./follow.js";

let dir: string;
let file: string;
let lines: string[];
let follower: LineFollower;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "virt-tail-"));
  file = path.join(dir, "virt-serial0-log");
  lines = [];
  follower = new LineFollower(file, (line) => lines.push(line), { chunkBytes: 8 });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function drain(): Promise<void> {
  while (await follower.poll());
}

describe("LineFollower", () => {
  it("waits for a file that does not exist yet, then shows it from its first byte", async () => {
    await drain();
    expect(lines).toEqual([]);
    await writeFile(file, "boot\nlogin: ");
    await drain();
    expect(lines).toEqual(["boot"]);
  });

  it("passes on only complete lines, however the writes are cut", async () => {
    await writeFile(file, "first li");
    await drain();
    await appendFile(file, "ne\r\nsecond\nthi");
    await drain();
    expect(lines).toEqual(["first line", "second"]);
    await appendFile(file, "rd\n");
    await drain();
    expect(lines).toEqual(["first line", "second", "third"]);
  });

  it("starts over when the file is truncated or replaced (tail -F)", async () => {
    await writeFile(file, "one\ntwo\n");
    await drain();
    await truncate(file, 0);
    await drain(); // noticed as tail does: the file is now shorter than what was read
    await appendFile(file, "after truncate\n");
    await drain();
    await writeFile(path.join(dir, "next"), "replaced\n");
    await rename(path.join(dir, "next"), file);
    await drain();
    expect(lines).toEqual(["one", "two", "after truncate", "replaced"]);
  });

  it("runs until the signal aborts", async () => {
    const stop = new AbortController();
    const running = new LineFollower(file, (line) => lines.push(line), { pollMs: 10 }).run(stop.signal);
    await writeFile(file, "late\n");
    for (let i = 0; i < 200 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    await running;
    expect(lines).toEqual(["late"]);
  });
});
