import { describe, expect, it } from "vitest";
import type { Network } from "../../api/generated/v1.js";
import {
  createFromNetworkStatuses,
  createHashedNetworkNameScheme,
  createOrdinalNetworkNameScheme,
  generateHashedInterfaceName,
  hashedPodInterfaceName,
  hasOrdinalSecondaryIfaces,
  ordinalPodInterfaceName,
  ordinalSecondaryInterfaceName,
  updatePrimaryPodIfaceNameFromVMIStatus,
} from "./namescheme.js";

const networks: Network[] = [
  { name: "default", pod: {} },
  { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
  { name: "attachnet2", multus: { networkName: "attachnet2" } },
];

describe("pod interface name schemes", () => {
  it("hashes secondary network names: pod + 11 hex digits of sha256", () => {
    // sha256("attachnet1") starts 17274e5ba35...; the name leaves room for "-nic" in 15 characters.
    const name = generateHashedInterfaceName("attachnet1");
    expect(name).toBe("pod17274e5ba35");
    expect(name).toBe(generateHashedInterfaceName("attachnet1"));
    expect(createHashedNetworkNameScheme(networks)).toEqual(
      new Map([
        ["attachnet1", name],
        ["attachnet2", generateHashedInterfaceName("attachnet2")],
        ["default", "eth0"],
      ]),
    );
  });

  it("numbers secondary networks in the ordinal scheme", () => {
    expect(createOrdinalNetworkNameScheme(networks)).toEqual(
      new Map([
        ["attachnet1", "net1"],
        ["attachnet2", "net2"],
        ["default", "eth0"],
      ]),
    );
    expect(ordinalPodInterfaceName("attachnet2", networks)).toBe("net2");
    expect(ordinalPodInterfaceName("nowhere", networks)).toBe("");
  });

  it("a multus default network is the primary one", () => {
    const scheme = createHashedNetworkNameScheme([
      { name: "blue", multus: { networkName: "blue", default: true } },
      { name: "red", multus: { networkName: "red" } },
    ]);
    expect(scheme.get("blue")).toBe("eth0");
    expect(scheme.get("red")).toBe(generateHashedInterfaceName("red"));
  });

  it("follows the pod's network-status", () => {
    expect(ordinalSecondaryInterfaceName("net12")).toBe(true);
    expect(ordinalSecondaryInterfaceName("eth0")).toBe(false);
    expect(ordinalSecondaryInterfaceName("netx")).toBe(false);
    const ordinal = createFromNetworkStatuses(networks, [{ interface: "eth0" }, { interface: "net1" }]);
    expect(ordinal.get("attachnet1")).toBe("net1");
    const hashed = createFromNetworkStatuses(networks, [{ interface: "eth0" }]);
    expect(hashed.get("attachnet1")).toBe(generateHashedInterfaceName("attachnet1"));
  });

  it("takes the primary's name from the VMI status", () => {
    const statuses = [{ name: "default", podInterfaceName: "ovn-udn1" }];
    expect(hashedPodInterfaceName(networks[0]!, statuses)).toBe("ovn-udn1");
    expect(hashedPodInterfaceName(networks[0]!)).toBe("eth0");
    expect(hashedPodInterfaceName(networks[1]!, statuses)).toBe(generateHashedInterfaceName("attachnet1"));
    const updated = updatePrimaryPodIfaceNameFromVMIStatus(
      createHashedNetworkNameScheme(networks),
      networks,
      statuses,
    );
    expect(updated.get("default")).toBe("ovn-udn1");
  });

  it("tells ordinal secondary interfaces from the VMI status, assuming so when unknown", () => {
    expect(hasOrdinalSecondaryIfaces(networks, [{ name: "attachnet1", podInterfaceName: "net1" }])).toBe(
      true,
    );
    expect(
      hasOrdinalSecondaryIfaces(networks, [
        { name: "attachnet1", podInterfaceName: generateHashedInterfaceName("attachnet1") },
      ]),
    ).toBe(false);
    expect(hasOrdinalSecondaryIfaces(networks, [])).toBe(true);
    expect(hasOrdinalSecondaryIfaces([networks[0]!], [])).toBe(false);
  });
});
