import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../all-generators.js";
import { generateCommonInstancetypesBundles, INSTANCETYPES_BUNDLE, PREFERENCES_BUNDLE } from "./index.js";

const namesIn = (content: string) =>
  parseAllDocuments(content).map((d) => (d.toJS() as { metadata: { name: string } }).metadata.name);

describe("common-instancetypes bundles", () => {
  const files = generateCommonInstancetypesBundles();

  // hack/generate.test.ts checks every generator; this one fails fast when only the tables changed.
  it("are committed as the tables generate them", () => {
    for (const f of files) expect(readFileSync(join(repoRoot, f.path), "utf8"), f.path).toBe(f.content);
  });

  it("hold one document per object, in name order", () => {
    expect(files.map((f) => f.path)).toEqual([INSTANCETYPES_BUNDLE, PREFERENCES_BUNDLE]);
    const names = files.map((f) => namesIn(f.content));
    expect(names.map((n) => n.length)).toEqual([65, 54]);
    for (const list of names) expect(list).toEqual([...list].sort());
  });
});
