import { describe, expect, it } from "vitest";
import {
  domainNameWithSubdomain,
  getDomainName,
  parseNameservers,
  parseSearchDomains,
  sanitizeHostname,
} from "./resolveconf.js";

const POD_RESOLV_CONF = `search ns1.svc.cluster.local svc.cluster.local cluster.local
nameserver 10.96.0.10
nameserver fd00:10:96::a
nameserver 1.2.3.4 5.6.7.8
options ndots:5
`;

describe("resolv.conf", () => {
  it("splits nameservers by family and skips malformed lines", () => {
    expect(parseNameservers(POD_RESOLV_CONF)).toEqual({ ipv4: ["10.96.0.10"], ipv6: ["fd00:10:96::a"] });
  });

  it("falls back to 8.8.8.8 without nameservers", () => {
    expect(parseNameservers("search example.com\n")).toEqual({ ipv4: ["8.8.8.8"], ipv6: [] });
  });

  it("reads search domains lower-cased, cluster.local when none", () => {
    expect(parseSearchDomains("search Ns1.SVC.cluster.local example.com\n")).toEqual([
      "ns1.svc.cluster.local",
      "example.com",
    ]);
    expect(parseSearchDomains("nameserver 10.96.0.10\n")).toEqual(["cluster.local"]);
  });

  it("takes the longest search domain as the domain name", () => {
    expect(getDomainName(parseSearchDomains(POD_RESOLV_CONF))).toBe("ns1.svc.cluster.local");
    expect(getDomainName([])).toBe("");
  });

  it.each([
    ["", ""],
    [undefined, ""],
    ["mysub", "mysub.ns1.svc.cluster.local"],
  ])("adds the subdomain %s's service domain", (subdomain, expected) => {
    expect(domainNameWithSubdomain(parseSearchDomains(POD_RESOLV_CONF), subdomain)).toBe(expected);
  });

  it("adds nothing when the subdomain is already the service domain", () => {
    expect(domainNameWithSubdomain(["mysub.ns1.svc.cluster.local"], "mysub")).toBe("");
    expect(domainNameWithSubdomain(["example.com"], "mysub")).toBe("");
  });

  it("derives the guest hostname from the VMI as the launcher pod gets it", () => {
    expect(sanitizeHostname("my.vmi", undefined)).toBe("my");
    expect(sanitizeHostname("a".repeat(70), undefined)).toBe("a".repeat(63));
    expect(sanitizeHostname("my.vmi", "custom")).toBe("custom");
  });
});
