import { describe, expect, it } from "vitest";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { fsFreezeStatus } from "./fsfreeze-status.js";

const domain = (reported?: string): DomainObject => ({
  objectMeta: { name: "testvmi", namespace: "default" },
  spec: {} as DomainObject["spec"],
  status: { status: "Running", reason: "Unknown", ...(reported ? { fsFreezeStatus: reported } : {}) },
});

describe("fsFreezeStatus", () => {
  it.each([
    ["frozen is shown", undefined, domain("frozen"), "frozen"],
    ["thawed clears it", "frozen", domain("thawed"), undefined],
    ["nothing reported keeps it", "frozen", domain(), "frozen"],
    ["no domain keeps it", "frozen", undefined, "frozen"],
  ])("%s", (_case, current, reported, expected) => {
    expect(fsFreezeStatus(current, reported)).toBe(expected);
  });
});
