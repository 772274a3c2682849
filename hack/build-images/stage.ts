// Runs in the Dockerfiles' shared build stage: bundles the TypeScript binaries of all five component images at
// once and lays out each image's files under <out>/<image>, as they go to the image's root:
//   /opt/kubevirt/bin/<binary>.mjs   the image's bundles (no source maps: nothing runs with them)
//   /opt/kubevirt/...                the data files the bundles read (protos, the OpenAPI document, package.json)
//   /usr/bin/<binary>                upstream's command names, wrappers that run a bundle with node
// One step for all five, so that one image build's layer serves the other four (each Dockerfile then copies its
// own folder): the bundling runs once per change, not once per image. A binary kubevirt-ts has no
// cmd/<binary>/main.ts for yet is not bundled, and its wrapper says so. Fixed timestamps: an unchanged file gives
// an unchanged layer.
//   npx tsx hack/build-images/stage.ts --out /out
import { existsSync } from "node:fs";
import { chmod, cp, lutimes, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { COMPONENT_BINARIES, NATIVE_BINARIES } from "../../deploy/local/node-agent/runtime/image-store.js";
import { bundleComponents, typescriptBinaries } from "../bundle-components/bundle.js";
import { BUNDLE_BIN_DIR, BUNDLE_NODE_FLAGS, bundleSource } from "../bundle-components/layout.js";

/** Where an image's bundles and data files go in its root. */
export const IMAGE_BUNDLE_DIR = "/opt/kubevirt";

/** The wrapper at /usr/bin/<binary>: runs the bundle with `node`, or says that it was not built. */
export function wrapperScript(binary: string, node: string, bundled: boolean): string {
  if (!bundled)
    return `#!/bin/sh\necho "${binary}: not built: kubevirt-ts has no cmd/${binary}/main.ts" >&2\nexit 1\n`;
  const flags = BUNDLE_NODE_FLAGS.map((flag) => `${flag} `).join("");
  return `#!/bin/sh\nexec ${node} ${flags}${IMAGE_BUNDLE_DIR}/${BUNDLE_BIN_DIR}/${binary}.mjs "$@"\n`;
}

/** The TypeScript binaries an image ships (its C programs come from the Dockerfile's native stage). */
export function imageTypescriptBinaries(component: string): string[] {
  return (COMPONENT_BINARIES[component] ?? []).filter((binary) => !NATIVE_BINARIES.has(binary));
}

/** The files of a bundle folder an image does not ship: source maps and the bundler's cache stamps. */
export function shipped(relative: string): boolean {
  return !relative.endsWith(".map") && !relative.split(path.sep).includes(".stamps");
}

/** `node` as the image's PATH finds it: the wrappers name it, as the base images both have it there. */
function nodeOnPath(): string {
  for (const dir of (process.env.PATH ?? "").split(":").filter(Boolean)) {
    const candidate = path.join(dir, "node");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("node is not on PATH");
}

async function copyImageFiles(
  bundleDir: string,
  imageRoot: string,
  binaries: readonly string[],
): Promise<void> {
  const target = path.join(imageRoot, IMAGE_BUNDLE_DIR);
  const own = new Set(binaries.map((binary) => `${binary}.mjs`));
  await cp(bundleDir, target, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(bundleDir, source);
      if (!shipped(relative)) return false;
      const [top, file] = relative.split(path.sep);
      // of bin/, only this image's bundles and their licence notes
      if (top === BUNDLE_BIN_DIR && file !== undefined) return own.has(file.replace(/\.LEGAL\.txt$/, ""));
      return true;
    },
  });
}

async function touchAll(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    await lutimes(path.join(entry.parentPath, entry.name), 0, 0);
  await lutimes(dir, 0, 0);
}

export async function stageImages(root: string, out: string, node = nodeOnPath()): Promise<void> {
  const bundleDir = path.join(out, ".bundles");
  await rm(out, { recursive: true, force: true });
  await bundleComponents({ root, outDir: bundleDir, binaries: typescriptBinaries(), force: true });
  for (const component of Object.keys(COMPONENT_BINARIES)) {
    const imageRoot = path.join(out, component);
    const binaries = imageTypescriptBinaries(component);
    await copyImageFiles(bundleDir, imageRoot, binaries);
    await mkdir(path.join(imageRoot, "usr/bin"), { recursive: true });
    for (const binary of binaries) {
      const wrapper = path.join(imageRoot, "usr/bin", binary);
      await writeFile(wrapper, wrapperScript(binary, node, existsSync(bundleSource(root, binary))));
      await chmod(wrapper, 0o755);
    }
    await touchAll(imageRoot);
  }
  await rm(bundleDir, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  if (!values.out) {
    console.error("stage: --out <dir> is required");
    process.exit(2);
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  try {
    await stageImages(root, path.resolve(values.out));
  } catch (error) {
    console.error(`[stage] failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
