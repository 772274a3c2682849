import { describe, expect, it } from "vitest";
import { calculateLegacyUUID, nameBasedUUID, newRandomUUID } from "./firmware-uuid.js";

describe("firmware UUIDs", () => {
  // Expected values from github.com/google/uuid NewSHA1 with upstream's namespace.
  it.each([
    ["testvmi", "f8918e71-270a-598e-a2a4-1afac39e1394"],
    ["vm-cirros", "0d2a2043-41c0-59c3-9b17-025022203668"],
  ])("derives the legacy UUID of %s as upstream does", (name, uuid) => {
    expect(calculateLegacyUUID(name)).toBe(uuid);
  });

  it("follows RFC 4122's version 5 example (DNS namespace, python.org)", () => {
    expect(nameBasedUUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org")).toBe(
      "886313e1-3b8a-5372-9b90-0c9aee199e5d",
    );
  });

  it("gives random version 4 UUIDs to new objects", () => {
    const first = newRandomUUID();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newRandomUUID()).not.toBe(first);
  });
});
