import { describe, expect, it } from "vitest";
import { testGuestImage, testGuestRoot } from "./test-guest.js";

describe("testGuestRoot", () => {
  it.each([
    { env: { XDG_CACHE_HOME: "/x/cache", HOME: "/home/u" }, want: "/x/cache/kubevirt-ts/images/test-guest" },
    { env: { HOME: "/home/u" }, want: "/home/u/.cache/kubevirt-ts/images/test-guest" },
    // As in the script's ${XDG_CACHE_HOME:-...}: an empty value counts as unset.
    { env: { XDG_CACHE_HOME: "", HOME: "/home/u" }, want: "/home/u/.cache/kubevirt-ts/images/test-guest" },
  ])("$env -> $want", ({ env, want }) => {
    expect(testGuestRoot(env)).toBe(want);
  });
});

describe("testGuestImage", () => {
  it("lays the files out like a containerDisk plus kernel-boot files", () => {
    expect(testGuestImage("/img")).toEqual({
      root: "/img",
      disk: "/img/disk/disk.qcow2",
      kernel: "/img/boot/vmlinuz",
      initrd: "/img/boot/initramfs.cpio.gz",
    });
  });
});
