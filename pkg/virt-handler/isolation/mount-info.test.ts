import { describe, expect, it } from "vitest";
import { mountOf, nodePathOf, parseMountInfoEntries } from "./mount-info.js";

const NODE = parseMountInfoEntries(
  [
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
    "50 27 0:60 / /state/runtime/c1/rootfs rw - tmpfs tmpfs rw",
    "51 50 0:61 / /state/runtime/c1/rootfs/root rw - overlay overlay rw,lowerdir=/img",
    "60 27 254:0 /state/root /state/root rw shared:5 - ext4 /dev/vda rw",
    "61 60 0:70 / /state/root/pods/p/volumes/kubernetes.io~empty-dir/mem rw - tmpfs tmpfs rw",
  ].join("\n"),
);

describe("nodePathOf", () => {
  it.each([
    // A disk container's root: the overlay the node mounted for it.
    [
      ["200 100 0:61 / / rw - overlay overlay rw"],
      "/disk/disk.qcow2",
      "/state/runtime/c1/rootfs/root/disk/disk.qcow2",
    ],
    // virt-handler's /pods: a bind of the node's kubelet pods dir.
    [
      ["300 1 254:0 /state/root/pods /pods rw - ext4 /dev/vda rw"],
      "/pods/p/volumes/kubernetes.io~empty-dir/container-disks/disk_0.img",
      "/state/root/pods/p/volumes/kubernetes.io~empty-dir/container-disks/disk_0.img",
    ],
    // A file on a memory emptyDir.
    [
      ["301 1 0:70 / /pods/p/mem rw - tmpfs tmpfs rw"],
      "/pods/p/mem/x",
      "/state/root/pods/p/volumes/kubernetes.io~empty-dir/mem/x",
    ],
    // A filesystem the node does not show.
    [["302 1 0:99 / / rw - tmpfs tmpfs rw"], "/disk/x", undefined],
  ])("%j: %s", (lines, file, expected) => {
    expect(nodePathOf(parseMountInfoEntries(lines.join("\n")), NODE, file)).toBe(expected);
  });

  it("never names a path the node sees through a mount stacked over it", () => {
    const view = parseMountInfoEntries(
      "1 0 254:0 /state/root/pods/p/volumes/kubernetes.io~empty-dir/mem / rw - ext4 x rw",
    );
    expect(nodePathOf(view, NODE, "/x")).toBeUndefined();
  });

  it("finds the last-mounted of equally deep mounts", () => {
    const stacked = parseMountInfoEntries("1 0 0:1 / /a rw - tmpfs t rw\n2 0 0:2 / /a rw - tmpfs t rw");
    expect(mountOf(stacked, "/a/b")?.device).toBe("0:2");
  });

  it("undoes the kernel's escapes", () => {
    expect(parseMountInfoEntries("1 0 0:1 / /with\\040space rw - tmpfs t rw")[0]?.mountPoint).toBe(
      "/with space",
    );
  });
});
