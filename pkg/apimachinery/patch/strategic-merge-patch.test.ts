import { describe, expect, it } from "vitest";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const keys = { "spec.containers": "name", "spec.containers.env": "name" };

describe("applyStrategicMergePatch", () => {
  // One row per rule: original, patch, expected result.
  it.each<[string, unknown, unknown, unknown]>([
    [
      "merges maps, null removes a key",
      { metadata: { labels: { a: "1", b: "2" } } },
      { metadata: { labels: { b: null, c: "3" } } },
      { metadata: { labels: { a: "1", c: "3" } } },
    ],
    [
      "merges keyed list elements in place, appends new ones",
      { spec: { containers: [{ name: "a", image: "i", command: ["a", "--x"] }, { name: "b" }] } },
      { spec: { containers: [{ name: "c" }, { name: "a", command: ["a", "--y"] }] } },
      {
        spec: {
          containers: [{ name: "a", image: "i", command: ["a", "--y"] }, { name: "b" }, { name: "c" }],
        },
      },
    ],
    [
      "merges nested keyed lists",
      {
        spec: {
          containers: [
            {
              name: "a",
              env: [
                { name: "X", value: "1" },
                { name: "Y", value: "2" },
              ],
            },
          ],
        },
      },
      { spec: { containers: [{ name: "a", env: [{ name: "Y", value: "3" }] }] } },
      {
        spec: {
          containers: [
            {
              name: "a",
              env: [
                { name: "X", value: "1" },
                { name: "Y", value: "3" },
              ],
            },
          ],
        },
      },
    ],
    [
      "replaces lists without a merge key",
      { spec: { tolerations: [{ key: "a" }], containers: [] } },
      { spec: { tolerations: [{ key: "b" }] } },
      { spec: { tolerations: [{ key: "b" }], containers: [] } },
    ],
    [
      "$patch: delete removes a keyed element",
      { spec: { containers: [{ name: "a" }, { name: "b" }] } },
      { spec: { containers: [{ name: "a", $patch: "delete" }] } },
      { spec: { containers: [{ name: "b" }] } },
    ],
    [
      "$patch: replace in a keyed list replaces the list",
      { spec: { containers: [{ name: "a" }, { name: "b" }] } },
      { spec: { containers: [{ name: "c" }, { $patch: "replace" }] } },
      { spec: { containers: [{ name: "c" }] } },
    ],
    [
      "$patch: replace on a map replaces the map",
      { metadata: { labels: { a: "1" } } },
      { metadata: { labels: { b: "2", $patch: "replace" } } },
      { metadata: { labels: { b: "2" } } },
    ],
    [
      "$patch: delete on a map removes it",
      { metadata: { labels: { a: "1" }, name: "n" } },
      { metadata: { labels: { $patch: "delete" } } },
      { metadata: { name: "n" } },
    ],
    [
      "$deleteFromPrimitiveList removes values, $setElementOrder is dropped",
      { metadata: { finalizers: ["a", "b"] } },
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"], "$setElementOrder/finalizers": ["b"] } },
      { metadata: { finalizers: ["b"] } },
    ],
    [
      "$retainKeys keeps only the listed keys",
      { spec: { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } } } },
      { spec: { strategy: { type: "Recreate", $retainKeys: ["type"] } } },
      { spec: { strategy: { type: "Recreate" } } },
    ],
  ])("%s", (_rule, original, patch, expected) => {
    const before = structuredClone(original);
    expect(applyStrategicMergePatch(original, patch, keys)).toEqual(expected);
    expect(original).toEqual(before);
  });

  it("refuses a keyed list element without its merge key, as upstream", () => {
    expect(() =>
      applyStrategicMergePatch(
        { spec: { containers: [] } },
        { spec: { containers: [{ image: "x" }] } },
        keys,
      ),
    ).toThrow("does not contain declared merge key: name");
  });
});
