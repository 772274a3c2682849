import { chmod, copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { assertStatic, ensureImageDir, stampOf } from "./busybox-image.js";

// An image that is one static executable at the root, as upstream's distroless images of Go programs
// are (CoreDNS's is /coredns on a base with /etc and /tmp). Made from a binary the suite builds into its
// cache (deploy/local/build-binaries.sh) and rebuilt when that binary changes.

/** Makes sure `dir` holds an image with `binary` at the absolute path `at`; returns `dir`. */
export async function ensureBinaryImage(dir: string, binary: string, at: string): Promise<string> {
  await assertStatic(binary, "it must be built with CGO_ENABLED=0");
  // a binary moved inside the image is a different image
  const stamp = JSON.stringify({ source: await stampOf(binary), at });
  return ensureImageDir(dir, stamp, async (staging) => {
    const target = path.join(staging, at);
    for (const sub of ["etc", "tmp", path.relative(staging, path.dirname(target))]) {
      await mkdir(path.join(staging, sub), { recursive: true, mode: 0o755 });
    }
    await chmod(path.join(staging, "tmp"), 0o1777);
    await copyFile(binary, target);
    await chmod(target, 0o755);
  });
}
