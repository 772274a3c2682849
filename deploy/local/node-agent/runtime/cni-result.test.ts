import { describe, expect, it } from "vitest";
import { hostInterfaces, parseCniResult, pluginFailure, podAddresses } from "./cni-result.js";

// What the bridge plugin (v1.10.0) prints for a pod on node01, loopback passing it through unchanged.
const BRIDGE_RESULT = JSON.stringify({
  cniVersion: "1.0.0",
  interfaces: [
    { name: "kvts-node01", mac: "aa:bb:cc:00:00:01" },
    { name: "veth1a2b3c4d", mac: "aa:bb:cc:00:00:02" },
    { name: "eth0", mac: "aa:bb:cc:00:00:03", sandbox: "/run/netns/kvts-0f3c9d2e7a1b" },
  ],
  ips: [{ interface: 2, address: "10.244.1.2/24", gateway: "10.244.1.1" }],
  routes: [{ dst: "0.0.0.0/0", gw: "10.244.1.1" }],
  dns: {},
});

describe("CNI results", () => {
  it("takes the pod IP from the ips of the sandbox's eth0, without the prefix length", () => {
    const result = parseCniResult(BRIDGE_RESULT);
    expect(podAddresses(result, "eth0")).toEqual(["10.244.1.2"]);
    expect(hostInterfaces(result)).toEqual(["kvts-node01", "veth1a2b3c4d"]);
  });

  it("keeps the fields it does not read, since the result goes back to plugins as prevResult", () => {
    const result = parseCniResult(BRIDGE_RESULT);
    expect(result.interfaces?.[0]?.["mac"]).toBe("aa:bb:cc:00:00:01");
    expect(JSON.parse(JSON.stringify(result))).toEqual(JSON.parse(BRIDGE_RESULT));
  });

  it("counts IPs that name no interface (an IPAM plugin's own result) and skips those of other interfaces", () => {
    const ipamOnly = parseCniResult('{"cniVersion":"1.0.0","ips":[{"address":"10.244.1.9/24"}]}');
    expect(podAddresses(ipamOnly, "eth0")).toEqual(["10.244.1.9"]);
    const hostOnly = parseCniResult(
      JSON.stringify({
        cniVersion: "1.0.0",
        interfaces: [{ name: "eth0" }],
        ips: [{ interface: 0, address: "10.244.1.9/24" }],
      }),
    );
    expect(() => podAddresses(hostOnly, "eth0")).toThrow("the CNI result has no IP for interface eth0");
  });

  it("refuses output that is not a result, saying where", () => {
    expect(() => parseCniResult("oops")).toThrow('plugin printed no JSON result: "oops"');
    expect(() => parseCniResult('{"cniVersion":"1.0.0","ips":[{"gateway":"10.0.0.1"}]}')).toThrow(
      "invalid CNI result at ips.0.address",
    );
    expect(() => parseCniResult("{}")).toThrow("invalid CNI result at cniVersion");
  });

  it("words plugin failures as libcni does", () => {
    const exhausted = pluginFailure(
      '{"cniVersion":"1.0.0","code":999,"msg":"failed to allocate for range 0","details":"no IP addresses available"}',
      "",
      "exit status 1",
    );
    expect(exhausted.message).toBe("failed to allocate for range 0; no IP addresses available");
    expect(exhausted.code).toBe(999);
    expect(pluginFailure('{"code":11,"msg":"try again later"}', "", "exit status 1").message).toBe(
      "try again later",
    );
    expect(pluginFailure("", "", "exit status 2").message).toBe(
      "netplugin failed with no error message: exit status 2",
    );
    expect(pluginFailure("", "panic: boom\n", "exit status 2").message).toBe(
      'netplugin failed: "panic: boom\\n": exit status 2',
    );
    expect(pluginFailure("not json", "", "exit status 1").message).toBe(
      'netplugin failed but error parsing its diagnostic message "not json"',
    );
  });
});
