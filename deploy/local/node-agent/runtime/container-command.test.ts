import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containerArgv, findExecutable, primaryGroup, runAsIdentity } from "./container-command.js";
import type { ViewLayer } from "./path-resolver.js";

describe("containerArgv", () => {
  const image = { entrypoint: ["/entry"], cmd: ["default-arg"] };
  it.each([
    [undefined, undefined, ["/entry", "default-arg"]],
    [undefined, ["x"], ["/entry", "x"]],
    [["sh", "-c"], undefined, ["sh", "-c"]],
    [["sh", "-c"], ["echo hi"], ["sh", "-c", "echo hi"]],
    [[], [], ["/entry", "default-arg"]],
  ])("command %j args %j run %j", (command, args, argv) => {
    expect(containerArgv(image, command, args)).toEqual(argv);
  });

  it("refuses to start without any command", () => {
    expect(() => containerArgv({ entrypoint: [], cmd: [] })).toThrow("no command specified");
  });
});

let root: string;
let layers: ViewLayer[];

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "kvts-cmd-"));
  await mkdir(path.join(root, "bin"), { recursive: true });
  await mkdir(path.join(root, "etc"), { recursive: true });
  await writeFile(path.join(root, "bin/busybox"), "");
  await symlink("busybox", path.join(root, "bin/sh"));
  await symlink("/etc/shadow-of-host", path.join(root, "bin/evil"));
  await writeFile(path.join(root, "etc/passwd"), "root:x:0:0::/root:/bin/sh\nqemu:x:107:107::/:/bin/false\n");
  await writeFile(path.join(root, "etc/group"), "root:x:0:\nkvm:x:36:qemu\n");
  layers = [{ at: "/", source: root }];
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("findExecutable", () => {
  const options = { path: "/usr/bin:/bin", workingDir: "/", provided: new Set(["/usr/bin/virt-handler"]) };

  it.each([
    ["sh", "/bin/sh"],
    ["/bin/sh", "/bin/sh"],
    ["bin/busybox", "/bin/busybox"],
    ["virt-handler", "/usr/bin/virt-handler"],
  ])("finds %s inside the container root", async (argv0, found) => {
    expect(await findExecutable(layers, argv0, options)).toBe(found);
  });

  it("words failures as runc does", async () => {
    await expect(findExecutable(layers, "nosuch", options)).rejects.toThrow(
      'exec: "nosuch": executable file not found in $PATH',
    );
    await expect(findExecutable(layers, "/bin/nosuch", options)).rejects.toThrow(
      'exec: "/bin/nosuch": stat /bin/nosuch: no such file or directory',
    );
  });

  it("does not find a host file through a symlink in the image", async () => {
    await expect(findExecutable(layers, "evil", options)).rejects.toThrow(/not found/);
  });
});

describe("runAsIdentity", () => {
  it("stays root without runAsUser, and takes the group from the image's passwd", async () => {
    expect(await runAsIdentity(layers, undefined, undefined)).toBeUndefined();
    expect(await runAsIdentity(layers, 107, undefined)).toEqual({ uid: 107, gid: 107 });
    expect(await runAsIdentity(layers, 4242, undefined)).toEqual({ uid: 4242, gid: 0 });
    expect(await runAsIdentity(layers, 107, 5)).toEqual({ uid: 107, gid: 5 });
  });

  it("without runAsUser runs as the image's USER, by number or by name, with its group", async () => {
    expect(await runAsIdentity(layers, undefined, undefined, "1001")).toEqual({
      uid: 1001,
      gid: 0,
    });
    expect(await runAsIdentity(layers, undefined, undefined, "qemu")).toEqual({
      uid: 107,
      gid: 107,
    });
    expect(await runAsIdentity(layers, undefined, undefined, "107:kvm")).toEqual({
      uid: 107,
      gid: 36,
    });
    expect(await runAsIdentity(layers, undefined, undefined, "qemu:5")).toEqual({
      uid: 107,
      gid: 5,
    });
    // the pod's runAsUser wins over the image's USER
    expect(await runAsIdentity(layers, 0, undefined, "qemu")).toEqual({ uid: 0, gid: 0 });
    await expect(runAsIdentity(layers, undefined, undefined, "nobody")).rejects.toThrow(
      "unable to find user nobody: no matching entries in passwd file",
    );
    await expect(runAsIdentity(layers, undefined, undefined, "qemu:wheel")).rejects.toThrow(
      "unable to find group wheel: no matching entries in group file",
    );
  });

  it("parses passwd lines", () => {
    expect(primaryGroup("a:x:1:2::/:/x\nbroken\n", 1)).toBe(2);
    expect(primaryGroup("a:x:1:2::/:/x\n", 3)).toBeUndefined();
  });
});
