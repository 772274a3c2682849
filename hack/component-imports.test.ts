// Components share code through pkg/ libraries, never by importing each other's files: the layout a
// KubeVirt engineer expects (upstream's pkg/controller, pkg/util, pkg/network ... serve every component).
// Imports are read with the TypeScript compiler's own pre-processor, so re-exports and dynamic imports
// count as well.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const COMPONENTS = [
  "virt-operator",
  "virt-api",
  "virt-controller",
  "virt-handler",
  "virt-launcher",
  "virtctl",
] as const;

/**
 * Upstream's own cross-component contracts, kept at upstream's paths because upstream's components import
 * them from there too: the libvirt domain API the launcher reports and virt-handler reads
 * (pkg/virt-launcher/virtwrap/api), the domain statistics the launcher answers GetDomainStats with and
 * virt-handler's metrics read (pkg/virt-launcher/virtwrap/stats/types.ts; the launcher's collector beside it
 * stays its own), and the install's names and webhook registrations virt-api serves under
 * (pkg/virt-operator/resource/generate/components).
 */
export const SHARED_API_DIRS = [
  "pkg/virt-launcher/virtwrap/api/",
  "pkg/virt-launcher/virtwrap/stats/types.ts",
  "pkg/virt-operator/resource/generate/components/",
];

type Owner = { kind: "component"; name: string } | { kind: "library" } | undefined;

/** Who a repository path belongs to: a component (pkg/<c>/ or cmd/<c>/), a pkg/ library, or neither. */
export function ownerOf(file: string): Owner {
  const [top, second] = file.split("/");
  if ((top === "pkg" || top === "cmd") && COMPONENTS.includes(second as (typeof COMPONENTS)[number])) {
    return { kind: "component", name: second as string };
  }
  if (top === "pkg") return { kind: "library" };
  return undefined;
}

/**
 * The import of `target` from `file` that breaks the rule, as a message, or undefined. Tests
 * (`*.test.ts`) may cross: some check that two components agree (the converter and the admitters, the
 * console proxy and the console server). Test helpers under testing/ may not.
 */
export function crossing(file: string, target: string): string | undefined {
  if (file.endsWith(".test.ts")) return undefined;
  const from = ownerOf(file);
  const to = ownerOf(target);
  if (!from || to?.kind !== "component" || target.startsWith("cmd/")) return undefined;
  if (from.kind === "component" && from.name === to.name) return undefined;
  if (SHARED_API_DIRS.some((dir) => target.startsWith(dir))) return undefined;
  const who = from.kind === "component" ? `component ${from.name}` : "a pkg/ library";
  return `${file} (${who}) imports ${target} (component ${to.name})`;
}

/** Relative module specifiers of a TypeScript source, resolved to repository paths (`.js` → `.ts`). */
export function importedFiles(file: string, source: string): string[] {
  const { importedFiles: imports } = ts.preProcessFile(source, true, true);
  return imports
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith("./") || spec.startsWith("../"))
    .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)))
    .map((target) => target.replace(/\.js$/, ".ts"));
}

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : tsFiles(rel);
    return entry.name.endsWith(".ts") ? [rel] : [];
  });
}

describe("component boundaries", () => {
  it("no component, and no pkg/ library, imports another component's files", () => {
    const violations = [...tsFiles("pkg"), ...tsFiles("cmd")].flatMap((file) =>
      importedFiles(file, readFileSync(path.join(repo, file), "utf8")).flatMap(
        (target) => crossing(file, target) ?? [],
      ),
    );
    expect(violations).toEqual([]);
    // It parses every source file: seconds on a busy machine.
  }, 60_000);

  it.each([
    ["pkg/virt-handler/vmi-status.ts", "pkg/virt-controller/watch/vmi/vmi-conditions.ts", true],
    ["pkg/network/setup/netconf.ts", "pkg/virt-controller/services/vmi-traits.ts", true],
    ["cmd/virt-api/main.ts", "pkg/virt-handler/rest/console.ts", true],
    ["pkg/virt-handler/testing/fake-launcher.ts", "pkg/virt-controller/watch/common/pod-state.ts", true],
    ["pkg/virt-handler/vm.ts", "pkg/virt-handler/sync-decision.ts", false],
    ["cmd/virt-handler/main.ts", "pkg/virt-handler/application.ts", false],
    ["pkg/virt-handler/vm.ts", "pkg/controller/conditions.ts", false],
    ["pkg/virt-handler/vm.ts", "pkg/virt-launcher/virtwrap/api/domain-object.ts", false],
    ["pkg/virt-api/rest/console-stream.test.ts", "pkg/virt-handler/rest/console.ts", false],
  ])("%s importing %s crosses: %s", (file, target, crosses) => {
    expect(crossing(file, target) !== undefined).toBe(crosses);
  });

  it("sees static imports, re-exports and dynamic imports", () => {
    const source = [
      'import { a } from "../controller/a.js";',
      'export { b } from "./b.js";',
      'const c = await import("../virt-api/c.js");',
      'import pino from "pino";',
    ].join("\n");
    expect(importedFiles("pkg/virt-handler/x.ts", source)).toEqual([
      "pkg/controller/a.ts",
      "pkg/virt-handler/b.ts",
      "pkg/virt-api/c.ts",
    ]);
  });
});
