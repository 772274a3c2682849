import { describe, expect, it } from "vitest";
import type { Network } from "../../api/generated/v1.js";
import { createHashedNetworkNameScheme, generateHashedInterfaceName } from "../namescheme/namescheme.js";
import { generateBridgeName, generateNewBridgedVmiInterfaceName, generateTapDeviceName } from "./names.js";

const podNetwork: Network = { name: "default", pod: {} };
const secondary: Network = { name: "blue", multus: { networkName: "ns/blue-net" } };

describe("pod interface and link names", () => {
  it("names the primary network eth0 and a secondary one pod<first 11 hex digits of sha256(name)>", () => {
    // sha256("blue") = 16477688c0e00699c6cfa4497a3612d7e83c532062b64b250fed8908128ed548
    expect(generateHashedInterfaceName("blue")).toBe("pod16477688c0e");
    expect(createHashedNetworkNameScheme([podNetwork, secondary])).toEqual(
      new Map([
        ["blue", "pod16477688c0e"],
        ["default", "eth0"],
      ]),
    );
  });

  it("treats a default multus network as the primary network", () => {
    const defaultMultus: Network = { name: "main", multus: { networkName: "main-net", default: true } };
    expect(createHashedNetworkNameScheme([defaultMultus]).get("main")).toBe("eth0");
  });

  it.each([
    ["eth0", podNetwork, "tap0", "k6t-eth0", "eth0-nic"],
    ["pod16477688c0e", secondary, "tap16477688c0e", "k6t-16477688c0e", "16477688c0e-nic"],
  ])("derives the links of pod interface %s", (podIface, network, tap, bridge, renamed) => {
    expect(generateTapDeviceName(podIface, network)).toBe(tap);
    expect(generateBridgeName(podIface)).toBe(bridge);
    expect(generateNewBridgedVmiInterfaceName(podIface)).toBe(renamed);
    for (const name of [tap, bridge, renamed]) expect(name.length).toBeLessThanOrEqual(15);
  });
});
