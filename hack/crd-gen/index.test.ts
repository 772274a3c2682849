import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { allCustomResourceDefinitions } from "../../pkg/virt-operator/resource/generate/components/crds.js";
import type { CustomResourceDefinition } from "../../pkg/virt-operator/resource/generate/components/crds.js";
import type { GeneratedFile } from "../generated-file.js";
import { CRD_OUTPUT_DIR, generateCrdFiles } from "./index.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

const swagger: unknown = loadSwagger();

function keysInOrder(value: unknown, out: string[][] = []): string[][] {
  if (Array.isArray(value)) value.forEach((v) => keysInOrder(v, out));
  else if (typeof value === "object" && value !== null) {
    out.push(Object.keys(value));
    Object.values(value).forEach((v) => keysInOrder(v, out));
  }
  return out;
}

describe("generateCrdFiles", () => {
  let files: GeneratedFile[] = [];
  let crds: CustomResourceDefinition[] = [];
  let parsed: unknown[] = [];

  // Parsing 4 MB of YAML is the slow part: do it once for all tests.
  beforeAll(() => {
    files = generateCrdFiles(swagger);
    crds = allCustomResourceDefinitions(swagger);
    parsed = files.map((f) => parse(f.content));
  }, 120_000);

  it("writes one file per CRD at manifests/generated/crds/<plural>.<group>.yaml", () => {
    expect(files.map((f) => f.path)).toEqual(crds.map((c) => `${CRD_OUTPUT_DIR}/${c.metadata.name}.yaml`));
  });

  it("renders YAML that reads back as the CRD object", () => {
    parsed.forEach((object, i) => expect(object).toEqual(crds[i]));
  });

  it("renders every mapping with its keys sorted", () => {
    for (const object of parsed)
      for (const keys of keysInOrder(object)) expect(keys).toEqual([...keys].sort());
  });

  it("is deterministic", { timeout: 60_000 }, () => {
    expect(generateCrdFiles(swagger)).toEqual(files);
  });
});
