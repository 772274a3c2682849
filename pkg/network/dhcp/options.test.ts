import { describe, expect, it } from "vitest";
import {
  ERROR_SEARCH_DOMAIN_NOT_VALID,
  ERROR_SEARCH_DOMAIN_TOO_LONG,
  convertSearchDomainsToBytes,
  formClasslessRoutes,
  isValidSearchDomain,
  prepareDhcpOptions,
} from "./options.js";

// Byte vectors as upstream's server_test.go states them.

describe("classless static routes (option 121)", () => {
  it("encodes significant octets only, and the default route last", () => {
    expect([
      ...formClasslessRoutes([
        { destination: "0.0.0.0/0", gateway: "10.129.0.1" },
        { destination: "10.128.0.0/14" },
        { destination: "224.0.0.0/4" },
      ]),
    ]).toEqual([14, 10, 128, 0, 0, 0, 0, 4, 224, 0, 0, 0, 0, 0, 10, 129, 0, 1]);
  });

  it("encodes a host route and an on-link route", () => {
    expect([
      ...formClasslessRoutes([
        { destination: "169.254.1.1/32" },
        { destination: "0.0.0.0/0", gateway: "169.254.1.1" },
      ]),
    ]).toEqual([32, 169, 254, 1, 1, 0, 0, 0, 0, 0, 169, 254, 1, 1]);
    expect(formClasslessRoutes([]).length).toBe(0);
  });
});

describe("search domains (option 119)", () => {
  it("writes each domain as length-prefixed labels", () => {
    expect([...convertSearchDomainsToBytes(["foo.com", "foo.local"])]).toEqual([
      3, 102, 111, 111, 3, 99, 111, 109, 0, 3, 102, 111, 111, 5, 108, 111, 99, 97, 108, 0,
    ]);
  });

  it.each([["foo,bar"], ["-foo.com"], ["Foo.com"], ["a".repeat(64) + ".com"]])("refuses %s", (domain) => {
    expect(isValidSearchDomain(domain)).toBe(false);
    expect(() => convertSearchDomainsToBytes([domain])).toThrow(
      `${ERROR_SEARCH_DOMAIN_NOT_VALID}: '${domain}'`,
    );
  });

  it("refuses more than an option can hold", () => {
    const domains = Array.from({ length: 6 }, (_, i) => `domain${i}.${"x".repeat(40)}.com`);
    expect(() => convertSearchDomainsToBytes(domains)).toThrow(
      `${ERROR_SEARCH_DOMAIN_TOO_LONG}: was 324 long`,
    );
  });
});

describe("the options of a lease", () => {
  const base = {
    clientPrefixLength: 24,
    routerIP: "10.0.2.1",
    dnsServers: ["10.96.0.10", "10.96.0.11"],
    searchDomains: ["ns.svc.cluster.local", "cluster.local"],
    mtu: 1400,
    hostname: "vmi-fedora",
  };

  it("carries mask, router, DNS, MTU, search, hostname and the longest search domain as domain name", () => {
    const options = prepareDhcpOptions(base);
    expect(Object.fromEntries([...options].map(([code, value]) => [code, [...value]]))).toEqual({
      1: [255, 255, 255, 0],
      3: [10, 0, 2, 1],
      6: [10, 96, 0, 10, 10, 96, 0, 11],
      12: [...Buffer.from("vmi-fedora")],
      15: [...Buffer.from("ns.svc.cluster.local")],
      26: [0x05, 0x78],
      119: [...convertSearchDomainsToBytes(base.searchDomains)],
    });
  });

  it("adds the VMI's DHCP options: TFTP server, boot file, NTP servers and private options", () => {
    const options = prepareDhcpOptions({
      ...base,
      custom: {
        tftpServerName: "tftp.kubevirt.io",
        bootFileName: "config",
        ntpServers: ["127.0.0.1", "127.0.0.2"],
        privateOptions: [
          { option: 240, value: "private.options.kubevirt.io" },
          { option: 12, value: "not a private option" },
        ],
      },
    });
    expect(options.get(66)).toEqual(Buffer.from("tftp.kubevirt.io"));
    expect(options.get(67)).toEqual(Buffer.from("config"));
    expect([...options.get(42)!]).toEqual([127, 0, 0, 1, 127, 0, 0, 2]);
    expect(options.get(240)).toEqual(Buffer.from("private.options.kubevirt.io"));
    expect(options.get(12)).toEqual(Buffer.from("vmi-fedora"));
  });

  it("refuses an NTP server that is not an IPv4 address", () => {
    expect(() => prepareDhcpOptions({ ...base, custom: { ntpServers: ["time.example.com"] } })).toThrow(
      "Could not parse NTP server as IPv4 address: time.example.com",
    );
  });
});
