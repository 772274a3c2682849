import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { holdFileLock } from "./file-lock.js";

const dirs: string[] = [];
const lockFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "file-lock-"));
  dirs.push(dir);
  return join(dir, "lock");
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Whether `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

describe("holdFileLock", () => {
  it("lets shared holders in together", async () => {
    const file = lockFile();
    const first = await holdFileLock(file, "shared");
    const second = await holdFileLock(file, "shared");
    await Promise.all([first(), second()]);
  });

  it("keeps an exclusive holder out until every shared one released, and shared ones out while it holds", async () => {
    const file = lockFile();
    const reader = await holdFileLock(file, "shared");
    const writer = holdFileLock(file, "exclusive");
    expect(await settlesWithin(writer, 300)).toBe(false);
    await reader();
    const release = await writer;
    const lateReader = holdFileLock(file, "shared");
    expect(await settlesWithin(lateReader, 300)).toBe(false);
    await release();
    await (
      await lateReader
    )();
  });

  it("rejects, saying why, when the lock file cannot be made", async () => {
    await expect(holdFileLock("/nonexistent-dir/lock", "shared")).rejects.toThrow(
      /flock shared \/nonexistent-dir\/lock exited \d+: .*No such file or directory/,
    );
  });
});
