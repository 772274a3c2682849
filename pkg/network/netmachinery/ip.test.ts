import { describe, expect, it } from "vitest";
import {
  formatIPv4,
  isGlobalUnicastIPv4,
  networkAddress,
  nextIP,
  parseCIDR,
  parseIPv4,
  prefixToNetmask,
} from "./ip.js";

describe("IPv4 helpers", () => {
  it.each([
    ["10.0.2.1", 0x0a000201],
    ["255.255.255.255", 0xffffffff],
    ["0.0.0.0", 0],
    ["256.0.0.1", undefined],
    ["10.0.2", undefined],
    ["10.0.2.1.5", undefined],
    ["fd10::1", undefined],
  ])("parses %s", (text, expected) => {
    expect(parseIPv4(text)).toBe(expected);
  });

  it("formats what it parses", () => {
    expect(formatIPv4(parseIPv4("192.168.10.254")!)).toBe("192.168.10.254");
  });

  it.each([
    ["10.0.2.1", "10.0.2.2"],
    ["10.0.2.255", "10.0.3.0"],
    ["255.255.255.255", "0.0.0.0"],
  ])("the address after %s is %s", (ip, next) => {
    expect(nextIP(ip)).toBe(next);
  });

  it.each([
    ["10.0.2.0/24", { ip: "10.0.2.0", prefixLength: 24 }],
    ["10.0.2.7/32", { ip: "10.0.2.7", prefixLength: 32 }],
    ["10.0.2.0/33", undefined],
    ["10.0.2.0", undefined],
    ["10.0.2.0/24/1", undefined],
  ])("parses the CIDR %s", (text, expected) => {
    expect(parseCIDR(text)).toEqual(expected);
  });

  it.each([
    [24, "255.255.255.0"],
    [32, "255.255.255.255"],
    [0, "0.0.0.0"],
    [20, "255.255.240.0"],
  ])("prefix %i is netmask %s", (prefix, mask) => {
    expect(prefixToNetmask(prefix)).toBe(mask);
  });

  it("computes the network address", () => {
    expect(networkAddress({ ip: "10.244.250.7", prefixLength: 24 })).toBe("10.244.250.0");
    expect(networkAddress({ ip: "10.244.250.7", prefixLength: 0 })).toBe("0.0.0.0");
  });

  it.each([
    ["10.244.1.5", true],
    ["192.168.0.1", true],
    ["169.254.75.10", false],
    ["127.0.0.1", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["not-an-ip", false],
  ])("%s is global unicast: %s", (ip, expected) => {
    expect(isGlobalUnicastIPv4(ip)).toBe(expected);
  });
});
