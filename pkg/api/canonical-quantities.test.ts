import { readFileSync } from "node:fs";
import fc from "fast-check";
import type { z } from "zod";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../hack/all-generators.js";
import { Quantity } from "../defaults/quantity.js";
import { canonicalizeQuantities, canonicalQuantity } from "./canonical-quantities.js";
import { VirtualMachineInstanceSpecSchema, VirtualMachineSpecSchema } from "./generated/v1.js";
import {
  lookupDefinition,
  parseReferenceDocument,
  refTarget,
  type ReferenceSchema,
} from "./openapi-reference.js";

// Produced by apimachinery v0.34.4: json.Unmarshal of the JSON text into a resource.Quantity, then
// json.Marshal. Numbers are written as the apiserver re-encodes them into the AdmissionReview.
const GO_MARSHAL: ReadonlyArray<[input: string | number, json: string]> = [
  [0.5, "500m"],
  [2, "2"],
  [2222222.2, "2222222200m"],
  ["2222222.2", "2222222200m"],
  [1000, "1k"],
  [1024, "1024"],
  [1048576, "1048576"],
  [0.1, "100m"],
  [1e-7, "100e-9"],
  [0.30000000000000004, "300000001n"],
  [1e21, "1e+21"],
  [2.5, "2500m"],
  [-0.5, "-500m"],
  ["1.5Gi", "1536Mi"],
  ["500m", "500m"],
];

describe("canonicalQuantity", () => {
  it.each(GO_MARSHAL)("writes %j as Go's MarshalJSON does", (input, json) => {
    expect(canonicalQuantity(input)).toBe(json);
  });

  it.each([["abc"], [true], [{ cpu: 1 }], [Number.NaN], [""]])(
    "leaves %j for validation to refuse",
    (input) => {
      expect(canonicalQuantity(input)).toBe(input);
    },
  );

  it("never throws, and its output is a fixed point with the same value", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.double(),
          fc.stringMatching(/^[+-]?[0-9.]{1,8}[eEinumkKMGTP]{0,2}[0-9]{0,2}$/),
        ),
        (input) => {
          const once = canonicalQuantity(input);
          const parsed = Quantity.tryParse(input);
          if (parsed === undefined) {
            expect(once).toBe(input);
          } else {
            expect(typeof once).toBe("string");
            expect(canonicalQuantity(once)).toBe(once);
            expect(Quantity.parse(once as string).nanos).toBe(parsed.nanos);
          }
        },
      ),
    );
  });
});

// Every field upstream's API types as resource.Quantity, found in the reference document rather than in
// the generated schemas the walker reads, so a field the walker misses fails here.
const swagger: unknown = JSON.parse(readFileSync(`${repoRoot}/api/openapi-spec/swagger.json`, "utf8"));
const doc = parseReferenceDocument(swagger);
const QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
type Step = { key: string } | "item" | "value";

function quantityPaths(schema: ReferenceSchema, path: Step[], seen: ReadonlySet<string>): Step[][] {
  if (schema.$ref !== undefined) {
    const target = refTarget(schema.$ref);
    if (target === QUANTITY) return [path];
    if (seen.has(target)) return [];
    return quantityPaths(lookupDefinition(doc, target), path, new Set([...seen, target]));
  }
  const found: Step[][] = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    found.push(...quantityPaths(property, [...path, { key }], seen));
  }
  if (schema.items) found.push(...quantityPaths(schema.items, [...path, "item"], seen));
  const values = schema.additionalProperties;
  if (typeof values === "object") found.push(...quantityPaths(values, [...path, "value"], seen));
  return found;
}

/** An object holding `leaf` at the path: one-item lists, maps with the key "x". */
function objectAt(path: Step[], leaf: unknown): unknown {
  const [step, ...rest] = path;
  if (step === undefined) return leaf;
  const inner = objectAt(rest, leaf);
  if (step === "item") return [inner];
  if (step === "value") return { x: inner };
  return { [step.key]: inner };
}

function valueAt(object: unknown, path: Step[]): unknown {
  let current = object;
  for (const step of path) {
    const key = step === "item" ? 0 : step === "value" ? "x" : step.key;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

const pathText = (path: Step[]) =>
  path.map((step) => (step === "item" ? "[]" : step === "value" ? "{}" : `.${step.key}`)).join("");

describe("canonicalizeQuantities", () => {
  it.each([
    ["v1.VirtualMachineInstanceSpec", VirtualMachineInstanceSpecSchema],
    ["v1.VirtualMachineSpec", VirtualMachineSpecSchema],
  ] as const)("canonicalises every quantity of %s", (definition, schema) => {
    const paths = quantityPaths(lookupDefinition(doc, definition), [], new Set([definition]));
    expect(paths.map(pathText)).toContain(
      definition === "v1.VirtualMachineSpec"
        ? ".dataVolumeTemplates[].spec.storage.resources.requests{}"
        : ".domain.resources.requests{}",
    );
    for (const path of paths) {
      const object = objectAt(path, 0.5) as never;
      const result = canonicalizeQuantities(schema as z.ZodType<unknown>, object);
      expect({ path: pathText(path), value: valueAt(result, path) }).toEqual({
        path: pathText(path),
        value: "500m",
      });
    }
  });

  it("canonicalises the quantities of a VMI spec and leaves every other field as it was", () => {
    const spec = {
      domain: {
        resources: { requests: { cpu: 0.5, memory: 2222222.2 }, limits: { cpu: 2 } },
        memory: { guest: "1.5Gi" },
        devices: { disks: [{ name: "disk0", bootOrder: 1 }] },
        cpu: { cores: 2 },
        unknownField: 0.5,
      },
      volumes: [{ name: "scratch", emptyDisk: { capacity: 1073741824 } }],
    };
    const before = structuredClone(spec);
    expect(canonicalizeQuantities(VirtualMachineInstanceSpecSchema, spec as never)).toEqual({
      domain: {
        resources: { requests: { cpu: "500m", memory: "2222222200m" }, limits: { cpu: "2" } },
        memory: { guest: "1536Mi" },
        devices: { disks: [{ name: "disk0", bootOrder: 1 }] },
        cpu: { cores: 2 },
        unknownField: 0.5,
      },
      volumes: [{ name: "scratch", emptyDisk: { capacity: "1073741824" } }],
    });
    expect(spec).toEqual(before);
  });

  it("never throws on any JSON, whatever its shape", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        canonicalizeQuantities(VirtualMachineSpecSchema, value as never);
        canonicalizeQuantities(VirtualMachineInstanceSpecSchema, { domain: value } as never);
      }),
    );
  });
});
