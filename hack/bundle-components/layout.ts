// Where the compiled component binaries live: one bundled ESM file per binary (esbuild, see bundle.ts) under
// dist/components/bin of a checkout, with its source map beside it, and the data files the code reads at run
// time (protos, the OpenAPI document) under dist/components at their source-tree paths. The build
// (hack/bundle-components/main.ts, run by `make binaries`) writes it; the local node agent's image store runs
// it. The folder is self-contained: copied elsewhere (an image), its binaries still find their data.
import path from "node:path";

/** The bundle folder, relative to the checkout. dist/ is gitignored. */
export const BUNDLE_DIR = path.join("dist", "components");

/** The folder of the bundled binaries inside the bundle folder. */
export const BUNDLE_BIN_DIR = "bin";

/** The TypeScript entry point a binary is bundled from. */
export function bundleSource(checkoutDir: string, binary: string): string {
  return path.join(checkoutDir, "cmd", binary, "main.ts");
}

/** The bundled binary of a checkout: <checkout>/dist/components/bin/<binary>.mjs. */
export function bundleFile(
  checkoutDir: string,
  binary: string,
  outDir = path.join(checkoutDir, BUNDLE_DIR),
): string {
  return path.join(outDir, BUNDLE_BIN_DIR, `${binary}.mjs`);
}

/** What to run when a bundle is missing. */
export const BUILD_BUNDLES_HINT = 'run "make binaries" (hack/bundle-components/main.ts) to build it';

/**
 * Node's flags for a bundled binary: none. Memory flags were measured and left out (2026-12-07): with
 * `--optimize-for-size` a bundle that only starts idles 14 MiB lower, but in the running cluster the components
 * and the launcher kept their RSS (virt-handler 83–89 MiB, the launcher's node 91): a long-running process holds
 * the node binary's pages it has touched (46–49 MiB) and its live heap, not V8's slack. `--lite-mode` saves 3 MiB
 * more at start and runs JavaScript ~4× slower. `--enable-source-maps` would map stack traces back into the
 * TypeScript, but Node then parses every bundle's source map at start, ~27 MiB of heap in each process (one
 * launcher per VM); the maps ship beside the bundles, so `NODE_OPTIONS=--enable-source-maps` turns it on.
 */
export const BUNDLE_NODE_FLAGS: readonly string[] = [];
