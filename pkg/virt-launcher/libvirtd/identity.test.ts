import { describe, expect, it } from "vitest";
import { hasPasswdEntry, NON_ROOT_UID, qemuIdentity, withGroupEntry, withPasswdEntry } from "./identity.js";

const passwd =
  "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";

describe("QEMU's user", () => {
  it("is the launcher's own user when the launcher is not root", () => {
    expect(qemuIdentity(107, 107)).toMatchObject({ uid: 107, gid: 107, switchUser: false });
  });

  it("is upstream's non-root uid 107, or the one asked for, when the launcher is root", () => {
    expect(qemuIdentity(0, 0)).toMatchObject({ uid: NON_ROOT_UID, gid: NON_ROOT_UID, switchUser: true });
    expect(qemuIdentity(0, 0, 61802)).toMatchObject({ uid: 61802, switchUser: true });
    expect(() => qemuIdentity(0, 0, 0)).toThrow(/cannot run as root/);
  });

  it("gets a passwd entry named qemu when it has none", () => {
    const updated = withPasswdEntry(passwd, 107, 107, "/var/run/kubevirt-private/libvirt");
    expect(updated).toBe(
      `${passwd}qemu:x:107:107:qemu user for virt-launcher:/var/run/kubevirt-private/libvirt:/sbin/nologin\n`,
    );
    expect(hasPasswdEntry(updated, 107)).toBe(true);
    expect(withPasswdEntry(updated, 107, 107, "/x")).toBe(updated);
  });

  it("does not take a name someone else has", () => {
    const taken = `${passwd}qemu:x:64055:64055::/:/bin/false`;
    expect(withPasswdEntry(taken, 107, 107, "/h").split("\n").at(-2)).toMatch(/^kubevirt-qemu:x:107:107:/);
    expect(withGroupEntry("root:x:0:\n", 107)).toBe("root:x:0:\nqemu:x:107:\n");
  });
});
