import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILD_SCRIPT, PERSONALITIES, personalityRoot, testGuestImage, testGuestRoot } from "./test-guest.js";

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

describe("personalityRoot", () => {
  it.each([
    { personality: "test-guest", want: "/c/images/test-guest" },
    { personality: "cirros", want: "/c/images/test-guest-cirros" },
    { personality: "alpine-with-test-tooling", want: "/c/images/test-guest-alpine-with-test-tooling" },
  ] as const)("$personality -> $want", ({ personality, want }) => {
    expect(personalityRoot(personality, "/c/images/test-guest")).toBe(want);
  });
});

describe("PERSONALITIES", () => {
  it("lists what the build script builds, in its order (the default first)", () => {
    const line = readFileSync(BUILD_SCRIPT, "utf8").match(/^PERSONALITIES=\(([^)]*)\)$/m);
    expect(line?.[1]?.split(" ")).toEqual([...PERSONALITIES]);
  });

  it("lists the guest's personality folders", () => {
    const folders = readdirSync(new URL("./rootfs/usr/lib/kubevirt-ts/personalities/", import.meta.url), {
      withFileTypes: true,
    });
    expect(
      folders
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    ).toEqual([...PERSONALITIES].sort());
  });
});
