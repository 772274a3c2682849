import { mkdtemp, open, readFile, readdir, readlink, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeVolumeFiles } from "./atomic-writer.js";

let dir: string;
beforeEach(async () => {
  dir = path.join(await mkdtemp(path.join(os.tmpdir(), "atomic-writer-")), "volume");
});
afterEach(async () => {
  await rm(path.dirname(dir), { recursive: true, force: true });
});

const file = (p: string, content: string, mode = 0o644) => ({ path: p, content: Buffer.from(content), mode });

describe("writeVolumeFiles", () => {
  it("publishes files as links through ..data, readable at their paths", async () => {
    await writeVolumeFiles(dir, [file("token", "t1"), file("ca.crt", "ca"), file("sub/dir/key", "k")]);
    expect(await readFile(path.join(dir, "token"), "utf8")).toBe("t1");
    expect(await readFile(path.join(dir, "sub/dir/key"), "utf8")).toBe("k");
    expect(await readlink(path.join(dir, "ca.crt"))).toBe("..data/ca.crt");
  });

  it("keeps the directory itself (a bind mount of it stays valid) and swaps the content", async () => {
    await writeVolumeFiles(dir, [file("token", "t1"), file("old", "o")]);
    // An open handle on the directory stands in for a container's bind mount of it.
    const handle = await open(dir, "r");
    const inode = (await handle.stat()).ino;
    await writeVolumeFiles(dir, [file("token", "t2")]);
    expect((await handle.stat()).ino).toBe(inode);
    await handle.close();
    expect(await readFile(path.join(dir, "token"), "utf8")).toBe("t2");
    const names = await readdir(dir);
    expect(names).not.toContain("old");
    // Only the current payload directory is left.
    expect(names.filter((n) => n.startsWith("..") && n !== "..data")).toHaveLength(1);
  });

  it("changes nothing when the files are the same", async () => {
    await writeVolumeFiles(dir, [file("token", "t1")]);
    const before = await readlink(path.join(dir, "..data"));
    await writeVolumeFiles(dir, [file("token", "t1")]);
    expect(await readlink(path.join(dir, "..data"))).toBe(before);
    await writeVolumeFiles(dir, [file("token", "t1", 0o600)]);
    expect(await readlink(path.join(dir, "..data"))).not.toBe(before);
  });

  it("never lets a reader find a file missing while it refreshes", async () => {
    await writeVolumeFiles(dir, [file("ca.crt", "ca-0")]);
    let missing = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        await readFile(path.join(dir, "ca.crt"), "utf8").catch(() => missing++);
      }
    })();
    for (let i = 1; i <= 30; i++) await writeVolumeFiles(dir, [file("ca.crt", `ca-${i}`)]);
    writing = false;
    await reader;
    expect(missing).toBe(0);
    expect(await readFile(path.join(dir, "ca.crt"), "utf8")).toBe("ca-30");
  });

  it("refuses a path that leaves the volume", async () => {
    await expect(writeVolumeFiles(dir, [file("../escape", "x")])).rejects.toThrow();
  });
});
