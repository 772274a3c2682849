import { describe, expect, it } from "vitest";
import { applyJsonPatch, decodeJsonPatch, JsonPatchTestFailed } from "./json-patch.js";

describe("applyJsonPatch (RFC 6902)", () => {
  const doc = { a: { b: 1 }, list: [1, 2, 3] };

  // One row per operation: the patch document as a user writes it, the result.
  it.each<[string, string, unknown]>([
    ["add a member", '[{"op":"add","path":"/a/c","value":2}]', { a: { b: 1, c: 2 }, list: [1, 2, 3] }],
    ["add at the end", '[{"op":"add","path":"/list/-","value":4}]', { a: { b: 1 }, list: [1, 2, 3, 4] }],
    ["insert", '[{"op":"add","path":"/list/0","value":0}]', { a: { b: 1 }, list: [0, 1, 2, 3] }],
    ["replace", '[{"op":"replace","path":"/list/1","value":9}]', { a: { b: 1 }, list: [1, 9, 3] }],
    ["remove", '[{"op":"remove","path":"/a/b"}]', { a: {}, list: [1, 2, 3] }],
    ["move", '[{"op":"move","from":"/a/b","path":"/moved"}]', { a: {}, list: [1, 2, 3], moved: 1 }],
    [
      "copy",
      '[{"op":"copy","from":"/a","path":"/copied"}]',
      { a: { b: 1 }, list: [1, 2, 3], copied: { b: 1 } },
    ],
    ["test that holds", '[{"op":"test","path":"/a/b","value":1}]', doc],
  ])("%s", (_name, text, expected) => {
    expect(applyJsonPatch(doc, decodeJsonPatch(text))).toEqual(expected);
    expect(doc).toEqual({ a: { b: 1 }, list: [1, 2, 3] });
  });

  it.each([
    ["replace of a missing member", '[{"op":"replace","path":"/a/x","value":1}]'],
    ["remove of a missing member", '[{"op":"remove","path":"/x"}]'],
    ["add past the end of a list", '[{"op":"add","path":"/list/5","value":1}]'],
    ["add under a missing parent", '[{"op":"add","path":"/x/y","value":1}]'],
  ])("refuses %s", (_name, text) => {
    expect(() => applyJsonPatch(doc, decodeJsonPatch(text))).toThrow();
  });

  it("fails a test on a different or missing value", () => {
    expect(() => applyJsonPatch(doc, [{ op: "test", path: "/a/b", value: 2 }])).toThrow(JsonPatchTestFailed);
    expect(() => applyJsonPatch(doc, [{ op: "test", path: "/a/x", value: 2 }])).toThrow(JsonPatchTestFailed);
  });

  it("refuses a document that is not a list of operations", () => {
    expect(() => decodeJsonPatch('{"op":"add"}')).toThrow("invalid JSON patch");
    expect(() => decodeJsonPatch('[{"op":"frobnicate","path":"/a"}]')).toThrow("invalid JSON patch");
  });
});
