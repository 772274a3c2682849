// Every document of upstream's example files whose kind the reference defines must parse with
// the generated schema of that kind; anything else (a core/v1 object, a CDI DataVolume...) is
// listed as not ours.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { DefinitionName } from "./generated/index.js";
import { isDefinitionName, parseDefinition } from "./parse.js";
import { definitionOfObject, parseObject } from "./parse-object.js";

const EXAMPLES_DIR = join(import.meta.dirname, "../../test/conformance/upstream-examples");

interface ExampleDocument {
  label: string;
  object: unknown;
  definition: DefinitionName | undefined;
}

function definitionOf(object: unknown): DefinitionName | undefined {
  const found = definitionOfObject(object);
  return "definition" in found && isDefinitionName(found.definition) ? found.definition : undefined;
}

function loadExamples(): ExampleDocument[] {
  const files = readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(EXAMPLES_DIR, file), "utf8")).flatMap((doc, i) => {
      const object: unknown = doc.toJS();
      if (object === null || object === undefined) return [];
      return [{ label: `${file}#${i}`, object, definition: definitionOf(object) }];
    }),
  );
}

const examples = loadExamples();
const ours = examples.filter((e) => e.definition !== undefined);

describe("upstream examples", () => {
  it("are mostly kubevirt kinds; the rest are listed", () => {
    const notOurs = examples.filter((e) => e.definition === undefined);
    const describeDoc = (e: ExampleDocument): string => {
      const { apiVersion, kind } = e.object as { apiVersion?: unknown; kind?: unknown };
      return `${e.label} (${String(apiVersion)} ${String(kind)})`;
    };
    console.info(`not ours (${notOurs.length}): ${notOurs.map(describeDoc).join(", ") || "none"}`);
    expect(ours.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ours.map((e) => e.definition)).size).toBeGreaterThanOrEqual(6);
  });

  it.each(ours.map((e) => [e.label, e.definition, e.object] as const))(
    "%s parses as %s",
    (_, definition, object) => {
      if (definition === undefined) throw new Error("filtered above");
      const result = parseDefinition(definition, object);
      expect(parseObject(object).definition).toBe(definition);
      expect(result.ok ? [] : result.errors.map(String)).toEqual([]);
      // Loose schemas: the parsed value is the document, field for field.
      expect(result.ok && result.value).toEqual(object);
    },
  );
});
