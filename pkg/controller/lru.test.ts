import { describe, expect, it } from "vitest";
import { LruCache } from "./lru.js";

describe("LruCache", () => {
  it("evicts the least recently used entry beyond capacity", () => {
    const lru = new LruCache<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1); // a is now the most recent
    lru.set("c", 3);
    expect(lru.get("b")).toBeUndefined();
    expect([lru.get("a"), lru.get("c"), lru.size]).toEqual([1, 3, 2]);
  });
});
