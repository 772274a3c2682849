import { describe, expect, it } from "vitest";
import { invalidResponse, replaceMembers } from "./admission.js";
import { semanticallyEqual } from "../../../../apimachinery/semantic-equal.js";

describe("invalidResponse", () => {
  it("joins the causes' messages into a 422 Invalid", () => {
    const causes = [{ message: "a: bad" }, { message: "b: bad" }];
    expect(invalidResponse(causes)).toEqual({
      allowed: false,
      result: { message: "a: bad, b: bad", code: 422, reason: "Invalid", details: { causes } },
    });
  });

  it("reports ten causes and counts the rest, as upstream does", () => {
    const causes = Array.from({ length: 13 }, (_, index) => ({ message: `m${index}` }));
    const result = invalidResponse(causes).result;
    expect(result?.details?.causes).toHaveLength(10);
    expect(result?.message).toBe("m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, and 3 more validation errors");
  });
});

describe("replaceMembers", () => {
  it("replaces whole top-level members in the given order", () => {
    expect(replaceMembers({ spec: { a: 1 }, status: {} })).toEqual([
      { op: "replace", path: "/spec", value: { a: 1 } },
      { op: "replace", path: "/status", value: {} },
    ]);
  });
});

describe("semanticallyEqual (Go's equality.Semantic on decoded structs)", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["absent and empty object", undefined, {}, true],
    ["null and empty list", null, [], true],
    ["zero values and absent members", { phase: "", nodeName: "n" }, { nodeName: "n" }, true],
    ["an object of zero values and nothing", { a: { b: 0, c: false } }, {}, true],
    ["different scalars", { phase: "Running" }, { phase: "Failed" }, false],
    ["a value and its absence", { phase: "Running" }, {}, false],
    ["lists of different length", { a: [1] }, { a: [1, 2] }, false],
    ["lists compare in order", { a: [1, 2] }, { a: [2, 1] }, false],
    ["equal nested objects", { a: { b: [{ c: "x" }] } }, { a: { b: [{ c: "x" }] } }, true],
  ])("%s", (_case, left, right, equal) => {
    expect(semanticallyEqual(left, right)).toBe(equal);
    expect(semanticallyEqual(right, left)).toBe(equal);
  });
});
