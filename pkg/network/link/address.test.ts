import { describe, expect, it } from "vitest";
import { bridgeFakeIP, masqueradeAddresses } from "./address.js";
import { normalizeMacAddress } from "./mac.js";

describe("masquerade addresses", () => {
  it.each([
    [undefined, "10.0.2.1", "10.0.2.2", 24],
    ["", "10.0.2.1", "10.0.2.2", 24],
    ["10.11.12.0/28", "10.11.12.1", "10.11.12.2", 28],
    // The host bits of the CIDR do not matter: the addresses count from its network address.
    ["192.168.7.77/30", "192.168.7.77", "192.168.7.78", 30],
  ])("vmNetworkCIDR %s gives gateway %s and guest %s", (cidr, gateway, vm, prefixLength) => {
    expect(masqueradeAddresses(cidr)).toEqual({
      gateway: { ip: gateway, prefixLength },
      vm: { ip: vm, prefixLength },
    });
  });

  it.each([
    ["10.0.2.0/31", "VM CIDR subnet is too small, at least 2 host addresses are required: 10.0.2.0/31"],
    ["10.0.2.0/32", "VM CIDR subnet is too small, at least 2 host addresses are required: 10.0.2.0/32"],
    ["nonsense", "failed to parse VM CIDR: nonsense"],
  ])("refuses vmNetworkCIDR %s", (cidr, message) => {
    expect(() => masqueradeAddresses(cidr)).toThrow(message);
  });

  it("numbers the bridge binding's fake bridge address after the interface index", () => {
    expect(bridgeFakeIP(0)).toEqual({ ip: "169.254.75.10", prefixLength: 32 });
    expect(bridgeFakeIP(3)).toEqual({ ip: "169.254.75.13", prefixLength: 32 });
  });

  it("normalizes MAC spellings the VMI spec allows", () => {
    expect(normalizeMacAddress("DE-AD-00-00-BE-AF")).toBe("de:ad:00:00:be:af");
  });
});
