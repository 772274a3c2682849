import { describe, expect, it } from "vitest";
import { generateAll, repoRoot } from "./all-generators.js";
import { checkGeneratedFiles } from "./write-generated.js";
import { loadSwagger } from "../pkg/virt-operator/util/swagger.js";

// The committed generated files must be exactly what the generators produce from the reference;
// `make generate` rewrites them.
describe("generated files", () => {
  // Formatting ~13k generated lines with prettier takes seconds on a busy machine.
  it("have not drifted from their generators", { timeout: 120_000 }, () => {
    const swagger: unknown = loadSwagger();
    const files = generateAll(swagger);
    expect(files.length).toBeGreaterThan(10);
    expect(checkGeneratedFiles(repoRoot, files)).toEqual([]);
  });
});
