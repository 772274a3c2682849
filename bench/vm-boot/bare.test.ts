import { describe, expect, it } from "vitest";
import { bareQemuArgs } from "./bare.js";

describe("bare QEMU", () => {
  const args = bareQemuArgs("/cache/test-guest/disk/disk.qcow2");
  const value = (flag: string): string | undefined => args[args.indexOf(flag) + 1];

  it("has no network device at all", () => {
    expect(value("-nic")).toBe("none");
    expect(args.join(" ")).not.toMatch(/-netdev|-net |virtio-net|user,/);
  });

  it("runs the guest as the VM does: q35 under TCG, 128 MiB, one vCPU", () => {
    expect(value("-machine")).toBe("q35");
    expect(value("-accel")).toBe("tcg");
    expect(value("-m")).toBe("128");
    expect(value("-smp")).toBe("1");
  });

  it("boots the containerDisk's qcow2 without writing to it", () => {
    expect(value("-drive")).toBe("file=/cache/test-guest/disk/disk.qcow2,if=virtio,format=qcow2,snapshot=on");
  });
});
