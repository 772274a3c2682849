import { describe, expect, it } from "vitest";
import { hostnameFrom, interfacesFrom, osInfoFrom, timezoneFrom, usersFrom } from "./guest-info.js";

describe("libvirt's guest info typed parameters", () => {
  it("interfaces: loopback left out, the first IPv4 address is the main one, all addresses listed", () => {
    const params = {
      "if.count": 3,
      "if.0.name": "lo",
      "if.0.hwaddr": "00:00:00:00:00:00",
      "if.0.addr.count": 1,
      "if.0.addr.0.type": "ipv4",
      "if.0.addr.0.addr": "127.0.0.1",
      "if.1.name": "eth0",
      "if.1.hwaddr": "02:00:00:aa:bb:cc",
      "if.1.addr.count": 2,
      "if.1.addr.0.type": "ipv6",
      "if.1.addr.0.addr": "fd10:0:2::2",
      "if.1.addr.1.type": "ipv4",
      "if.1.addr.1.addr": "10.0.2.2",
      "if.2.name": "eth1",
      "if.2.hwaddr": "02:00:00:aa:bb:cd",
      "if.2.addr.count": 1,
      "if.2.addr.0.type": "ipv6",
      "if.2.addr.0.addr": "fd20::5",
    };
    expect(interfacesFrom(params)).toEqual([
      { mac: "02:00:00:aa:bb:cc", ip: "10.0.2.2", ips: ["fd10:0:2::2", "10.0.2.2"], interfaceName: "eth0" },
      { mac: "02:00:00:aa:bb:cd", ip: "fd20::5", ips: ["fd20::5"], interfaceName: "eth1" },
    ]);
  });

  it.each([
    ["no interfaces at all", {}],
    ["loopback only", { "if.count": 1, "if.0.name": "lo" }],
  ])("interfaces: %s is none, as upstream's nil slice", (_case, params) => {
    expect(interfacesFrom(params)).toBeUndefined();
  });

  it("an interface without addresses has an empty main IP and no list", () => {
    expect(
      interfacesFrom({ "if.count": 1, "if.0.name": "eth0", "if.0.hwaddr": "02:00:00:00:00:01" }),
    ).toEqual([{ mac: "02:00:00:00:00:01", ip: "", interfaceName: "eth0" }]);
  });

  it("users: the login time from milliseconds to fractional seconds", () => {
    expect(
      usersFrom({
        "user.count": 2,
        "user.0.name": "root",
        "user.0.login-time": 1_700_000_000_123n,
        "user.1.name": "Administrator",
        "user.1.domain": "WORKGROUP",
        "user.1.login-time": 1n << 63n,
      }),
    ).toEqual([
      { name: "root", domain: "", loginTime: 1_700_000_000.123 },
      // beyond a signed 64-bit value upstream reports 0
      { name: "Administrator", domain: "WORKGROUP", loginTime: 0 },
    ]);
    expect(usersFrom({ "user.count": 0 })).toBeUndefined();
  });

  it("OS, host name and time zone, empty where the agent said nothing", () => {
    const params = {
      "os.id": "debian",
      "os.name": "Debian GNU/Linux",
      "os.pretty-name": "Debian GNU/Linux 12 (bookworm)",
      "os.version": "12 (bookworm)",
      "os.version-id": "12",
      "os.kernel-release": "6.1.0-18-amd64",
      "os.kernel-version": "#1 SMP",
      "os.machine": "x86_64",
      hostname: "testvmi",
      "timezone.name": "CET",
      "timezone.offset": 3600,
    };
    expect(osInfoFrom(params)).toEqual({
      name: "Debian GNU/Linux",
      kernelRelease: "6.1.0-18-amd64",
      version: "12 (bookworm)",
      prettyName: "Debian GNU/Linux 12 (bookworm)",
      versionId: "12",
      kernelVersion: "#1 SMP",
      machine: "x86_64",
      id: "debian",
    });
    expect(hostnameFrom(params)).toBe("testvmi");
    expect(timezoneFrom(params)).toEqual({ zone: "CET", offset: 3600 });
    expect(timezoneFrom({})).toEqual({ zone: "", offset: 0 });
    expect(osInfoFrom({}).name).toBe("");
  });
});
