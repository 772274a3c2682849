import { execFile } from "node:child_process";
import {
  chmod,
  copyFile,
  mkdir,
  open,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

// The busybox image, made from the host's statically linked busybox: a root directory with /bin/busybox,
// a symlink per applet and the few /etc files the real image has. Built once into the image cache and
// rebuilt when the host's busybox changes; built beside the target and renamed, so two node agents
// building at once never see half an image (ensureImageDir, shared with binary-image.ts).

const STAMP = ".kubevirt-ts-image.json";
const ELF_MAGIC = 0x7f454c46;
const PT_INTERP = 3;

/** Whether an ELF executable needs a dynamic loader (so it cannot run alone in a chroot). */
export function isDynamicElf(header: Buffer): boolean {
  if (header.length < 64 || header.readUInt32BE(0) !== ELF_MAGIC || header[4] !== 2) {
    throw new Error("not a 64-bit ELF executable");
  }
  const littleEndian = header[5] === 1;
  const read16 = (offset: number) =>
    littleEndian ? header.readUInt16LE(offset) : header.readUInt16BE(offset);
  const read32 = (offset: number) =>
    littleEndian ? header.readUInt32LE(offset) : header.readUInt32BE(offset);
  const phoff = Number(littleEndian ? header.readBigUInt64LE(32) : header.readBigUInt64BE(32));
  const phentsize = read16(54);
  const phnum = read16(56);
  for (let i = 0; i < phnum; i++) {
    const offset = phoff + i * phentsize;
    if (offset + 4 > header.length) throw new Error("ELF program headers lie beyond the bytes read");
    if (read32(offset) === PT_INTERP) return true;
  }
  return false;
}

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const ETC_FILES: Record<string, string> = {
  "etc/passwd": "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n",
  "etc/group": "root:x:0:\nnogroup:x:65534:\n",
  "etc/hostname": "busybox\n",
  "etc/hosts": "127.0.0.1\tlocalhost\n",
};

async function build(dir: string, busybox: string): Promise<void> {
  for (const sub of ["bin", "etc", "root", "home", "tmp", "var/www", "usr/bin", "usr/sbin", "sbin"]) {
    await mkdir(path.join(dir, sub), { recursive: true, mode: 0o755 });
  }
  await chmod(path.join(dir, "tmp"), 0o1777);
  await copyFile(busybox, path.join(dir, "bin/busybox"));
  const { stdout } = await promisify(execFile)(busybox, ["--list"]);
  for (const applet of stdout.split("\n").filter((name) => /^[\w.[-]+$/.test(name) && name !== "busybox")) {
    await symlink("busybox", path.join(dir, "bin", applet)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
  for (const [file, content] of Object.entries(ETC_FILES)) await writeFile(path.join(dir, file), content);
}

/** Makes sure `dir` holds a busybox image built from `busybox`; returns `dir`. */
export async function ensureBusyboxImage(dir: string, busybox: string): Promise<string> {
  await assertStatic(busybox, "install busybox-static");
  return ensureImageDir(dir, await stampOf(busybox), (staging) => build(staging, busybox));
}

/** Throws unless `binary` runs alone in a chroot (a static executable). */
export async function assertStatic(binary: string, hint: string): Promise<void> {
  if (isDynamicElf(await readHead(binary, 4096))) throw new Error(`${binary} is dynamically linked; ${hint}`);
}

/** The stamp of an image made from one file: rebuilt when that file changes. */
export async function stampOf(source: string): Promise<string> {
  const stats = await stat(source);
  return JSON.stringify({ source, size: stats.size, mtimeMs: stats.mtimeMs });
}

/**
 * Makes sure `dir` holds the image `stamp` describes, building it with `build` beside the target and
 * renaming it into place when it is missing or stale; returns `dir`.
 */
export async function ensureImageDir(
  dir: string,
  stamp: string,
  build: (staging: string) => Promise<void>,
): Promise<string> {
  if ((await readFile(path.join(dir, STAMP), "utf8").catch(() => "")) === stamp) return dir;
  const staging = `${dir}.building-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await build(staging);
  await writeFile(path.join(staging, STAMP), stamp);
  const old = `${dir}.old-${process.pid}`;
  await rename(dir, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  await rename(staging, dir).catch(async (error: NodeJS.ErrnoException) => {
    // Another agent finished first; its image is as good as ours.
    if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    await rm(staging, { recursive: true, force: true });
  });
  await rm(old, { recursive: true, force: true });
  return dir;
}
