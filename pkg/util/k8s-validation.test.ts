// The apimachinery string checks and Go parsers the admitters depend on, against Go's answers.
import { describe, expect, it } from "vitest";
import { goGlobMatch } from "./glob.js";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isIP,
  isIPv4,
  isValidPortName,
  macAddressOctets,
} from "./k8s-validation.js";

describe("DNS names", () => {
  it.each(["a", "vm-1", "0abc", "a".repeat(63)])("%s is a DNS label", (name) => {
    expect(isDNS1123Label(name)).toEqual([]);
  });

  it("explains labels that are too long, dotted or badly formed", () => {
    expect(isDNS1123Label("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
    expect(isDNS1123Label("a.b")).toEqual(["must not contain dots"]);
    // Go's RegexError puts two spaces before "or".
    expect(isDNS1123Label("-a")[0]).toContain("(e.g. 'my-name',  or '123-abc', regex used for validation is");
  });

  it("accepts subdomains up to 253 bytes", () => {
    expect(isDNS1123Subdomain("example.com")).toEqual([]);
    expect(isDNS1123Subdomain(`${"a".repeat(63)}.`.repeat(4).slice(0, 253))).toHaveLength(0);
    expect(isDNS1123Subdomain("a".repeat(254))[0]).toBe("must be no more than 253 characters");
  });
});

describe("port names", () => {
  it.each([
    ["http", []],
    ["a-b-c", []],
    [
      "HTTP",
      [
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        "must contain at least one letter (a-z)",
      ],
    ],
    ["80", ["must contain at least one letter (a-z)"]],
    ["a--b", ["must not contain consecutive hyphens"]],
    ["-ab", ["must not begin or end with a hyphen"]],
    ["abcdefghijklmnop", ["must be no more than 15 characters"]],
  ])("%s", (name, errors) => {
    expect(isValidPortName(name)).toEqual(errors);
  });
});

describe("Go's net.ParseIP", () => {
  it.each(["1.2.3.4", "::1", "fe80::1", "2001:db8::8a2e:370:7334", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8"])(
    "parses %s",
    (ip) => expect(isIP(ip)).toBe(true),
  );
  it.each([
    "",
    "1.2.3",
    "01.2.3.4",
    "256.1.1.1",
    "fe80::1%eth0",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    "dns.example",
  ])("refuses %s", (ip) => expect(isIP(ip)).toBe(false));
  it("sees IPv4 in dotted and IPv4-mapped form only", () => {
    expect([isIPv4("10.0.0.1"), isIPv4("::ffff:10.0.0.1"), isIPv4("::1")]).toEqual([true, true, false]);
  });
});

describe("Go's net.ParseMAC", () => {
  it.each([
    ["02:00:00:00:00:01", 6],
    ["02-00-00-00-00-01", 6],
    ["0200.0000.0001", 6],
    ["02:00:00:00:00:00:00:01", 8],
    ["02:00:00:00:00", undefined],
    ["02:00:00:00:00:0g", undefined],
    ["02:00-00:00:00:01", undefined],
  ])("%s has %s octets", (mac, octets) => {
    expect(macAddressOctets(mac)).toBe(octets);
  });
});

describe("Go's filepath.Match for machine types", () => {
  it.each([
    ["q35*", "q35", true],
    ["q35*", "pc-q35-rhel9.4.0", false],
    ["pc-q35*", "pc-q35-rhel9.4.0", true],
    ["pc-?35", "pc-q35", true],
    ["pc-[pq]35", "pc-q35", true],
    ["pc-[^q]35", "pc-q35", false],
    ["a*", "a/b", false],
    ["[", "[", false],
  ])("%s matches %s: %s", (pattern, name, matches) => {
    expect(goGlobMatch(pattern, name)).toBe(matches);
  });
});
