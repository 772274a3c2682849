import { describe, expect, it } from "vitest";
import { semanticEqual } from "./equality.js";

describe("semanticEqual", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["absent and null", undefined, null, true],
    ["an empty map and none", { matchLabels: {} }, {}, true],
    ["an empty list and none", { matchExpressions: [] }, { matchExpressions: null }, true],
    ["equal maps", { matchLabels: { a: "b" } }, { matchLabels: { a: "b" } }, true],
    ["a changed value", { matchLabels: { a: "b" } }, { matchLabels: { a: "c" } }, false],
    ["an added key", { matchLabels: { a: "b" } }, { matchLabels: { a: "b", c: "d" } }, false],
    ["lists in another order", [1, 2], [2, 1], false],
    ["an empty string is a value", { name: "" }, {}, false],
  ])("%s", (_name, left, right, equal) => {
    expect(semanticEqual(left, right)).toBe(equal);
    expect(semanticEqual(right, left)).toBe(equal);
  });
});
