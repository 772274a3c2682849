import { describe, expect, it } from "vitest";
import { mountsUnder } from "./mounts.js";

const mountinfo = [
  "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
  "90 22 0:50 / /work/main/.local/nodes/node01/root/var/lib/kubelet/pods/u1/volumes/x rw - tmpfs tmpfs rw",
  "91 22 254:0 /data /work/main/.local/nodes/node01/root/my\\040dir rw - ext4 /dev/vda rw",
  "92 22 254:0 /data /work/main/.local rw - ext4 /dev/vda rw",
  "93 22 254:0 /data /work/main/.local-other rw - ext4 /dev/vda rw",
  "94 22 0:51 / /run/netns/kvts-abc rw - nsfs nsfs rw",
  "",
].join("\n");

describe("mountsUnder", () => {
  it("lists mounts at or below the folder, deepest first, with escapes decoded", async () => {
    expect(await mountsUnder("/work/main/.local", mountinfo)).toEqual([
      "/work/main/.local/nodes/node01/root/var/lib/kubelet/pods/u1/volumes/x",
      "/work/main/.local/nodes/node01/root/my dir",
      "/work/main/.local",
    ]);
  });

  it("does not take a sibling sharing the folder's name as a prefix", async () => {
    expect(await mountsUnder("/work/main/.local", mountinfo)).not.toContain("/work/main/.local-other");
  });
});
