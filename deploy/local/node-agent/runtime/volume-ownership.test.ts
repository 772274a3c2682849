import { chmod, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requiresPermissionChange, setVolumeOwnership } from "./volume-ownership.js";

// The process's own group: any user may give its files to it, so these run with or without root.
const GID = process.getgid?.() ?? 0;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ownership-"));
  await mkdir(path.join(dir, "sub"));
  await writeFile(path.join(dir, "disk.img"), "");
  await writeFile(path.join(dir, "sub/f"), "");
  await symlink("/etc/hostname", path.join(dir, "link"));
  for (const file of ["", "sub"]) await chmod(path.join(dir, file), 0o700);
  for (const file of ["disk.img", "sub/f"]) await chmod(path.join(dir, file), 0o600);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (file: string) => (await stat(path.join(dir, file))).mode & 0o7777;

describe("setVolumeOwnership", () => {
  it("gives every file group read/write, directories also setgid and execute", async () => {
    await setVolumeOwnership(dir, { gid: GID, changePolicy: "Always" }, false);
    expect(await mode("")).toBe(0o2770);
    expect(await mode("sub")).toBe(0o2770);
    expect(await mode("disk.img")).toBe(0o660);
    expect(await mode("sub/f")).toBe(0o660);
    expect((await stat(path.join(dir, "sub/f"))).gid).toBe(GID);
    // the symlink is not followed: its target keeps its mode
    expect((await lstat(path.join(dir, "link"))).isSymbolicLink()).toBe(true);
    expect((await stat("/etc/hostname")).mode & 0o060).not.toBe(0o060);
  });

  it("gives only group read on a read-only volume", async () => {
    await setVolumeOwnership(dir, { gid: GID, changePolicy: "Always" }, true);
    expect(await mode("disk.img")).toBe(0o640);
    expect(await mode("sub")).toBe(0o2750);
  });

  it("skips the walk under OnRootMismatch once the root fits, not before", async () => {
    expect(await requiresPermissionChange(dir, GID, false)).toBe(true);
    await chmod(path.join(dir), 0o2770);
    expect(await requiresPermissionChange(dir, GID, false)).toBe(false);
    await setVolumeOwnership(dir, { gid: GID, changePolicy: "OnRootMismatch" }, false);
    expect(await mode("disk.img")).toBe(0o600);
    await setVolumeOwnership(dir, { gid: GID, changePolicy: "Always" }, false);
    expect(await mode("disk.img")).toBe(0o660);
  });

  it("walks when the root lacks setgid or has another group", async () => {
    await chmod(dir, 0o770);
    expect(await requiresPermissionChange(dir, GID, false)).toBe(true);
    await chmod(dir, 0o2770);
    expect(await requiresPermissionChange(dir, GID + 1, false)).toBe(true);
  });
});
