import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../controller/log.js";
import { cleanupContainerDiskDirectory } from "./cleanup.js";

describe("cleanupContainerDiskDirectory", () => {
  let dir = "";
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("removes the containerDisk sockets and files, so their containers exit, and leaves directories", async () => {
    dir = await mkdtemp(join(tmpdir(), "container-disks-"));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, "disk_0.sock"), resolve));
    await writeFile(join(dir, "disk_0.img"), "");
    await mkdir(join(dir, "hotplug"));
    await writeFile(join(dir, "hotplug", "kept"), "");

    await cleanupContainerDiskDirectory(dir, silentLogger);
    server.close();

    expect(await readdir(dir)).toEqual(["hotplug"]);
    expect(await readdir(join(dir, "hotplug"))).toEqual(["kept"]);
  });

  it("does nothing when the directory is not there", async () => {
    dir = join(tmpdir(), "no-such-container-disk-dir");
    await expect(cleanupContainerDiskDirectory(dir, silentLogger)).resolves.toBeUndefined();
  });
});
