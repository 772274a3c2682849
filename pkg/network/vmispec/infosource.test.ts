import { describe, expect, it } from "vitest";
import {
  addInfoSource,
  containsInfoSource,
  INFO_SOURCE_DOMAIN_AND_GA,
  INFO_SOURCE_MULTUS_STATUS,
  removeInfoSource,
} from "./infosource.js";

describe("interface info sources", () => {
  it("appends a source once", () => {
    expect(addInfoSource(undefined, INFO_SOURCE_MULTUS_STATUS)).toBe("multus-status");
    expect(addInfoSource(INFO_SOURCE_DOMAIN_AND_GA, INFO_SOURCE_MULTUS_STATUS)).toBe(
      "domain, guest-agent, multus-status",
    );
    expect(addInfoSource("domain, multus-status", INFO_SOURCE_MULTUS_STATUS)).toBe("domain, multus-status");
  });

  it("removes and finds a source", () => {
    expect(removeInfoSource("domain, guest-agent, multus-status", INFO_SOURCE_MULTUS_STATUS)).toBe(
      INFO_SOURCE_DOMAIN_AND_GA,
    );
    expect(removeInfoSource("multus-status", INFO_SOURCE_MULTUS_STATUS)).toBe("");
    expect(containsInfoSource("domain, multus-status", INFO_SOURCE_MULTUS_STATUS)).toBe(true);
    expect(containsInfoSource("domain", INFO_SOURCE_MULTUS_STATUS)).toBe(false);
    expect(containsInfoSource(undefined, INFO_SOURCE_MULTUS_STATUS)).toBe(false);
  });
});
