// Bundles the TypeScript component binaries into dist/components (see bundle.ts); `make binaries` runs it.
//   npx tsx hack/bundle-components/main.ts [--force] [--out DIR] [binary...]
// Cached: a bundle is rebuilt only when one of its inputs changed.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { bundleComponents } from "./bundle.js";

const { values, positionals } = parseArgs({
  options: { force: { type: "boolean", default: false }, out: { type: "string" } },
  allowPositionals: true,
});
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
try {
  await bundleComponents({
    root,
    force: values.force,
    ...(values.out ? { outDir: path.resolve(values.out) } : {}),
    ...(positionals.length > 0 ? { binaries: positionals } : {}),
  });
} catch (error) {
  // esbuild has printed its messages already
  console.error(`[components] bundling failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
