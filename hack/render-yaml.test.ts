import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./all-generators.js";
import { renderYaml } from "./render-yaml.js";

// PyYAML (Debian's python3-yaml, installed by deploy/local/install-deps.sh) stands for the YAML 1.1
// readers: it prints each file's documents as JSON, to compare with what the YAML 1.2 parser reads.
const PY_READ_ALL = [
  "import json, sys, yaml",
  "out = {}",
  'loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)',
  "for path in sys.argv[1:]:",
  "    with open(path) as f: out[path] = list(yaml.load_all(f, Loader=loader))",
  "json.dump(out, sys.stdout)",
].join("\n");

function readWithPyYaml(paths: string[]): Record<string, unknown[]> {
  const run = spawnSync("python3", ["-c", PY_READ_ALL, ...paths], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (run.error)
    throw new Error(`python3 (PyYAML) is needed to check YAML 1.1 readability: ${run.error.message}`);
  if (run.status !== 0) throw new Error(`PyYAML could not read the manifests:\n${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown[]>;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".yaml"))
    .map((e) => join(e.parentPath, e.name));
}

const read12 = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as unknown);

describe("renderYaml", () => {
  it("double-quotes strings with tabs and keeps YAML 1.1 look-alike strings strings", () => {
    const value = {
      description: "KVM \t(KVM clock)",
      answers: ["yes", "on", "off", "y", "0755", "1e3", "~"],
    };
    const text = renderYaml(value);
    expect(text).toContain('"KVM \\t(KVM clock)"');
    expect(read12(text)).toEqual([value]);
  });
});

describe("generated manifests", () => {
  it("every YAML file under manifests/ reads the same with a YAML 1.1 parser (PyYAML) as with YAML 1.2", () => {
    const files = yamlFiles(join(repoRoot, "manifests"));
    expect(files.length).toBeGreaterThan(10);
    const byPyYaml = readWithPyYaml(files);
    for (const file of files) {
      expect(byPyYaml[file], relative(repoRoot, file)).toEqual(read12(readFileSync(file, "utf8")));
    }
  }, 120_000);
});
