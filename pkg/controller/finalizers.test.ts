import { describe, expect, it } from "vitest";
import { finalizerPatch, hasFinalizer } from "./finalizers.js";

const withFinalizers = (finalizers?: string[]) => ({ metadata: { name: "x", finalizers } });

describe("finalizerPatch", () => {
  it("adds to a list it tests first, or adds the list when there is none", () => {
    expect(finalizerPatch(withFinalizers(["a"]), "b", true)).toEqual([
      { op: "test", path: "/metadata/finalizers", value: ["a"] },
      { op: "replace", path: "/metadata/finalizers", value: ["a", "b"] },
    ]);
    expect(finalizerPatch(withFinalizers(), "b", true)).toEqual([
      { op: "add", path: "/metadata/finalizers", value: ["b"] },
    ]);
  });

  it("removes only the one finalizer, and changes nothing when the object already agrees", () => {
    expect(finalizerPatch(withFinalizers(["a", "b"]), "b", false)).toEqual([
      { op: "test", path: "/metadata/finalizers", value: ["a", "b"] },
      { op: "replace", path: "/metadata/finalizers", value: ["a"] },
    ]);
    expect(finalizerPatch(withFinalizers(["a"]), "b", false)).toBeUndefined();
    expect(finalizerPatch(withFinalizers(["b"]), "b", true)).toBeUndefined();
    expect(hasFinalizer(withFinalizers(["b"]), "b")).toBe(true);
  });
});
