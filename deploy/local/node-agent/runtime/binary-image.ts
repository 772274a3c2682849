import { chmod, copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { assertStatic, ensureImageDir, stampOf } from "./busybox-image.js";

// An image that is one static executable at the root, as upstream's distroless images of Go programs
// are (CoreDNS's is /coredns on a base with /etc and /tmp). Made from a binary the suite builds into its
// cache (deploy/local/build-binaries.sh) and rebuilt when that binary changes.

/** Makes sure `dir` holds an image with `binary` at `/<name>`; returns `dir`. */
export async function ensureBinaryImage(dir: string, binary: string, name: string): Promise<string> {
  await assertStatic(binary, "it must be built with CGO_ENABLED=0");
  return ensureImageDir(dir, await stampOf(binary), async (staging) => {
    for (const sub of ["etc", "tmp"]) await mkdir(path.join(staging, sub), { recursive: true, mode: 0o755 });
    await chmod(path.join(staging, "tmp"), 0o1777);
    await copyFile(binary, path.join(staging, name));
    await chmod(path.join(staging, name), 0o755);
  });
}
