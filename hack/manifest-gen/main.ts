// Writes the release manifests.
// Usage: npx tsx hack/manifest-gen/main.ts [--registry R] [--tag T] [--use-emulation] [--out dir]
// Without --out the files go to manifests/release/ of this checkout; with it, both files go to `dir`.
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../all-generators.js";
import { DEFAULT_REGISTRY, DEFAULT_TAG, generateReleaseManifests } from "./index.js";

const { values } = parseArgs({
  options: {
    registry: { type: "string", default: DEFAULT_REGISTRY },
    tag: { type: "string", default: DEFAULT_TAG },
    "use-emulation": { type: "boolean", default: false },
    out: { type: "string" },
  },
  strict: true,
});

const files = generateReleaseManifests({
  registry: values.registry,
  tag: values.tag,
  useEmulation: values["use-emulation"],
});
for (const file of files) {
  const path = values.out ? join(values.out, basename(file.path)) : join(repoRoot, file.path);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, file.content);
  console.log(`wrote ${path}`);
}
