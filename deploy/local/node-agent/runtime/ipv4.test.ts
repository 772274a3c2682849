import { describe, expect, it } from "vitest";
import { cidrContains, formatCidr, formatIpv4, gatewayOf, hostRange, parseCidr, parseIpv4 } from "./ipv4.js";

describe("ipv4", () => {
  it.each([
    ["10.244.1.1", 0x0af40101],
    ["0.0.0.0", 0],
    ["255.255.255.255", 0xffffffff],
  ])("parses and formats %s", (text, value) => {
    expect(parseIpv4(text)).toBe(value);
    expect(formatIpv4(value)).toBe(text);
  });

  it.each(["10.244.1", "10.244.1.256", "a.b.c.d", "10.244.1.1.1", ""])("rejects address %j", (text) => {
    expect(() => parseIpv4(text)).toThrow(/invalid IPv4 address/);
  });

  it("clears host bits of a CIDR", () => {
    expect(formatCidr(parseCidr("10.244.1.77/24"))).toBe("10.244.1.0/24");
    expect(formatCidr(parseCidr("10.244.0.0/16"))).toBe("10.244.0.0/16");
  });

  it.each(["10.244.1.0", "10.244.1.0/33", "10.244.1.0/a", "10.244.1.0/24/1"])("rejects CIDR %j", (text) => {
    expect(() => parseCidr(text)).toThrow(/invalid CIDR/);
  });

  it("knows which addresses a block holds", () => {
    const block = parseCidr("10.244.0.0/16");
    expect(cidrContains(block, parseIpv4("10.244.255.255"))).toBe(true);
    expect(cidrContains(block, parseIpv4("10.245.0.0"))).toBe(false);
    expect(cidrContains(block, parseIpv4("10.243.255.255"))).toBe(false);
  });

  it("gives the host range and gateway of a node block", () => {
    const block = parseCidr("10.244.2.0/24");
    const range = hostRange(block);
    expect([formatIpv4(range.first), formatIpv4(range.last)]).toEqual(["10.244.2.1", "10.244.2.254"]);
    expect(formatIpv4(gatewayOf(block))).toBe("10.244.2.1");
    expect(() => hostRange(parseCidr("10.0.0.0/31"))).toThrow(/too small/);
  });
});
