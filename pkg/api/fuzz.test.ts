// Random JSON, and random mutations of upstream's examples, thrown at the parser of every
// top-level kind: it must never throw, must report failures only as field errors that name a
// field, and must hand back an accepted object unchanged.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { topLevelKinds } from "./generated/index.js";
import type { DefinitionName } from "./generated/index.js";
import { parseDefinition } from "./parse.js";

const EXAMPLES_DIR = join(import.meta.dirname, "../../test/conformance/upstream-examples");

const definitions: DefinitionName[] = [
  ...new Set(topLevelKinds.flatMap((k) => [k.definition, k.listDefinition])),
];

const examples: unknown[] = readdirSync(EXAMPLES_DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .flatMap((f) =>
    parseAllDocuments(readFileSync(join(EXAMPLES_DIR, f), "utf8")).map((d): unknown => d.toJS()),
  )
  .filter((o) => typeof o === "object" && o !== null);

function assertWellBehaved(definition: DefinitionName, input: unknown): void {
  const result = parseDefinition(definition, input);
  if (result.ok) {
    expect(result.value).toEqual(input);
    return;
  }
  expect(result.errors.length).toBeGreaterThan(0);
  for (const error of result.errors) {
    expect(error.field).not.toBe("");
    expect(error.toString().startsWith(`${error.field}: `)).toBe(true);
  }
}

type Segment = string | number;

/** Every path into a JSON value, the root included. */
function pathsOf(value: unknown, prefix: Segment[] = []): Segment[][] {
  const children: [Segment, unknown][] = Array.isArray(value)
    ? value.map((v, i): [Segment, unknown] => [i, v])
    : typeof value === "object" && value !== null
      ? Object.entries(value)
      : [];
  return [prefix, ...children.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))];
}

type Operation = "replace" | "delete" | "null" | "wrap";

/** A deep copy of `root` with the value at `path` replaced, removed, nulled or wrapped in an array. */
function mutate(root: unknown, path: Segment[], operation: Operation, replacement: unknown): unknown {
  const copy: unknown = structuredClone(root);
  if (path.length === 0) return operation === "wrap" ? [copy] : operation === "null" ? null : replacement;
  const parent = path
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<Segment, unknown>)[key], copy);
  const container = parent as Record<Segment, unknown>;
  const key = path[path.length - 1] as Segment;
  if (operation === "delete") {
    if (Array.isArray(container) && typeof key === "number") container.splice(key, 1);
    else delete container[key];
  } else {
    container[key] = operation === "null" ? null : operation === "wrap" ? [container[key]] : replacement;
  }
  return copy;
}

describe("parseDefinition under random input", () => {
  it("has top-level kinds and examples to work with", () => {
    expect(definitions.length).toBeGreaterThanOrEqual(30);
    expect(examples.length).toBeGreaterThanOrEqual(40);
  });

  it("never throws on random JSON for any top-level kind", () => {
    fc.assert(
      fc.property(fc.constantFrom(...definitions), fc.jsonValue({ maxDepth: 6 }), (definition, input) => {
        assertWellBehaved(definition, input);
      }),
      { numRuns: 800 },
    );
  });

  it("never throws on random objects shaped like kubevirt objects", () => {
    const kubeLike = fc.record({
      apiVersion: fc.constantFrom("kubevirt.io/v1", "pool.kubevirt.io/v1beta1", "x"),
      kind: fc.constantFrom(...topLevelKinds.map((k) => k.kind)),
      metadata: fc.oneof(
        fc.record({ name: fc.string(), labels: fc.dictionary(fc.string(), fc.jsonValue()) }),
        fc.jsonValue(),
      ),
      spec: fc.dictionary(
        fc.constantFrom("template", "domain", "running", "runStrategy", "replicas", "selector"),
        fc.jsonValue(),
      ),
      status: fc.jsonValue({ maxDepth: 3 }),
    });
    fc.assert(
      fc.property(fc.constantFrom(...definitions), kubeLike, (definition, input) =>
        assertWellBehaved(definition, input),
      ),
      { numRuns: 800 },
    );
  });

  it("never throws on random mutations of upstream examples", () => {
    const mutation = fc.record({
      example: fc.nat({ max: examples.length - 1 }),
      pathPick: fc.nat(),
      operation: fc.constantFrom<Operation>("replace", "delete", "null", "wrap"),
      replacement: fc.jsonValue({ maxDepth: 3 }),
      definition: fc.constantFrom(...definitions),
    });
    fc.assert(
      fc.property(mutation, ({ example, pathPick, operation, replacement, definition }) => {
        const original = examples[example];
        const paths = pathsOf(original);
        const path = paths[pathPick % paths.length] ?? [];
        const mutated = mutate(original, path, operation, replacement);
        const kindOfExample = topLevelKinds.find((k) => k.kind === (original as { kind?: unknown }).kind);
        assertWellBehaved(kindOfExample?.definition ?? definition, mutated);
        assertWellBehaved(definition, mutated);
      }),
      { numRuns: 800 },
    );
  });
});
