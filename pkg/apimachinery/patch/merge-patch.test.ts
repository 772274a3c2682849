import { describe, expect, it } from "vitest";
import { applyMergePatch } from "./merge-patch.js";

describe("applyMergePatch (RFC 7386)", () => {
  it("merges objects member by member, removes nulls, replaces lists and scalars", () => {
    const target = { metadata: { name: "a", labels: { x: "1", y: "2" }, ownerReferences: [{ uid: "u" }] } };
    const patch = { metadata: { labels: { y: null, z: "3" }, ownerReferences: [] }, spec: { n: 1 } };
    expect(applyMergePatch(target, patch)).toEqual({
      metadata: { name: "a", labels: { x: "1", z: "3" }, ownerReferences: [] },
      spec: { n: 1 },
    });
    expect(target.metadata.labels).toEqual({ x: "1", y: "2" });
  });
});
