import { describe, expect, it } from "vitest";
import { MAX_INTERFACE_NAME, bridgeName, netnsName, podUidPrefix } from "./names.js";

const UID = "0f3c9d2e-7a1b-4c5d-8e9f-001122334455";

describe("runtime names", () => {
  it("derives pod names from the UID prefix", () => {
    expect(podUidPrefix(UID)).toBe("0f3c9d2e7a1b");
    expect(netnsName("kvts-", UID)).toBe("kvts-0f3c9d2e7a1b");
  });

  it("keeps short bridge names readable", () => {
    expect(bridgeName("kvts-", "node01")).toBe("kvts-node01");
  });

  it("hashes bridge names that would exceed the kernel limit, keeping nodes apart", () => {
    const a = bridgeName("kvts-", "a-very-long-node-name-1");
    const b = bridgeName("kvts-", "a-very-long-node-name-2");
    expect(a.length).toBe(MAX_INTERFACE_NAME);
    expect(a.startsWith("kvts-")).toBe(true);
    expect(a).not.toBe(b);
  });

  it("refuses a prefix that leaves no room for a node name", () => {
    expect(() => bridgeName("kvts-very-long-", "n1")).toThrow(/no room/);
  });

  it("rejects a UID with nothing usable", () => {
    expect(() => podUidPrefix("---")).toThrow(/no usable/);
  });
});
