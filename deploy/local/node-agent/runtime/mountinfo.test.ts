import { describe, expect, it } from "vitest";
import { mountsUnder, overlayLowerDirs, parseMountInfo, topLevelMounts } from "./mountinfo.js";

// Shaped like this machine's own mountinfo, plus a path with an escaped space.
const SAMPLE = [
  "22 27 0:21 / /proc rw,relatime - proc proc rw",
  "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw",
  "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334492k",
  "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw",
  "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard",
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "40 27 0:40 / /srv/with\\040space rw shared:5 - tmpfs tmpfs rw",
  "41 27 0:41 / /state/node01/root/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/m rw - tmpfs tmpfs rw",
  "42 41 0:42 / /state/node01/root/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/m/inner rw - tmpfs t rw",
  "",
].join("\n");

describe("mountinfo", () => {
  const entries = parseMountInfo(SAMPLE);

  it("parses ids, mount points, types and sources, including optional fields", () => {
    expect(entries).toHaveLength(9);
    expect(entries[4]).toEqual({
      id: 27,
      parentId: 1,
      root: "/",
      mountPoint: "/",
      fsType: "ext4",
      source: "/dev/vda",
      superOptions: "rw,discard",
    });
    expect(entries[6]).toMatchObject({ mountPoint: "/srv/with space", fsType: "tmpfs" });
  });

  it("lists the mounts sitting directly on the root mount", () => {
    expect(topLevelMounts(entries).map((entry) => entry.mountPoint)).toEqual([
      "/proc",
      "/sys",
      "/dev",
      "/srv/with space",
      "/state/node01/root/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/m",
    ]);
  });

  it("lists mounts under a directory deepest first", () => {
    expect(mountsUnder(entries, "/state/node01")).toEqual([
      "/state/node01/root/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/m/inner",
      "/state/node01/root/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/m",
    ]);
    expect(mountsUnder(entries, "/state/node0")).toEqual([]);
  });

  it("rejects lines it cannot read", () => {
    expect(() => parseMountInfo("1 2 3")).toThrow(/malformed/);
  });

  it("gives an overlay's lower directories, unescaped, and none for other filesystems", () => {
    const [overlay, ext4] = parseMountInfo(
      [
        "90 27 0:50 / /run/c/root rw - overlay overlay rw,lowerdir=/img/a\\040b:/img/base,upperdir=/u,workdir=/w",
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
      ].join("\n"),
    );
    expect(overlayLowerDirs(overlay!)).toEqual(["/img/a b", "/img/base"]);
    expect(overlayLowerDirs(ext4!)).toEqual([]);
  });
});
