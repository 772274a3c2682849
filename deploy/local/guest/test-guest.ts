// Where the test guest image lives and how to (re)build it. The image itself is made by
// build-test-guest.sh from Debian packages; it is cached, so building is cheap when nothing changed.
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The containerDisk name the local image store gives the test guest. */
export const TEST_GUEST_IMAGE = "kubevirt-ts/test-guest:latest";

export const BUILD_SCRIPT = fileURLToPath(new URL("./build-test-guest.sh", import.meta.url));

export interface TestGuestImage {
  /** The image folder, laid out like an upstream containerDisk plus kernel-boot files. */
  root: string;
  /** `disk/disk.qcow2`: BIOS-bootable (MBR; FAT with SYSLINUX + kernel + initramfs, and an ext4 volume). */
  disk: string;
  /** `boot/vmlinuz` and `boot/initramfs.cpio.gz`, for `firmware.kernelBoot`. */
  kernel: string;
  initrd: string;
}

/**
 * The personalities build-test-guest.sh builds an image for (rootfs/usr/lib/kubevirt-ts/personalities),
 * the default one first: `kubevirt-ts/test-guest`; the others stand in for upstream's demo images
 * (the local image store maps those names to them).
 */
export const PERSONALITIES = [
  "test-guest",
  "cirros",
  "alpine",
  "alpine-with-test-tooling",
  "fedora",
] as const;
export type Personality = (typeof PERSONALITIES)[number];

/** The image folder of a personality: beside the default one, named test-guest-<personality>. */
export function personalityRoot(personality: Personality, root: string = testGuestRoot()): string {
  return personality === "test-guest" ? root : `${root}-${personality}`;
}

/** `${XDG_CACHE_HOME:-$HOME/.cache}/kubevirt-ts/images/test-guest`, as the build script computes it. */
export function testGuestRoot(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env["XDG_CACHE_HOME"] || path.join(env["HOME"] || homedir(), ".cache");
  return path.join(cache, "kubevirt-ts", "images", "test-guest");
}

export function testGuestImage(root: string = testGuestRoot()): TestGuestImage {
  return {
    root,
    disk: path.join(root, "disk", "disk.qcow2"),
    kernel: path.join(root, "boot", "vmlinuz"),
    initrd: path.join(root, "boot", "initramfs.cpio.gz"),
  };
}

export interface BuildOptions {
  /** Rebuild even if the recipe did not change. */
  force?: boolean;
  /** Also install what the boot tests use (qemu-system-x86, genisoimage, openssh-client). */
  withTestTools?: boolean;
  /** Called with each progress line of the build. */
  onOutput?: (line: string) => void;
}

/** Runs build-test-guest.sh (needs root: it installs Debian packages when missing). */
export function buildTestGuest(options: BuildOptions = {}): Promise<TestGuestImage> {
  const args = [BUILD_SCRIPT];
  if (options.force) args.push("--force");
  if (options.withTestTools) args.push("--with-test-tools");
  const child = spawn("bash", args, { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const collect = (line: string): void => {
    lines.push(line);
    options.onOutput?.(line);
  };
  createInterface({ input: child.stdout }).on("line", collect);
  createInterface({ input: child.stderr }).on("line", collect);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      // The script prints the image folder as its last line.
      const root = lines.at(-1);
      if (code === 0 && root) resolve(testGuestImage(root));
      else reject(new Error(`${BUILD_SCRIPT} exited with ${code}:\n${lines.slice(-20).join("\n")}`));
    });
  });
}
