import { describe, expect, it } from "vitest";
import type { Interface, Network } from "../../../api/generated/v1.js";
import { planInterfaces } from "./plan.js";

const networks: Network[] = [
  { name: "default", pod: {} },
  { name: "blue", multus: { networkName: "blue-net" } },
  { name: "sriov-net", multus: { networkName: "sriov" } },
];

describe("planning the pod network setup", () => {
  it("names links per interface and skips SR-IOV", () => {
    const interfaces: Interface[] = [
      { name: "default", masquerade: {} },
      { name: "blue", bridge: {} },
      { name: "sriov-net", sriov: {} },
    ];
    const plans = planInterfaces(interfaces, networks);
    expect(
      plans.map(({ binding, podIfaceName, tapName, vmiIfaceIndex }) => ({
        binding,
        podIfaceName,
        tapName,
        vmiIfaceIndex,
      })),
    ).toEqual([
      { binding: "masquerade", podIfaceName: "eth0", tapName: "tap0", vmiIfaceIndex: 0 },
      { binding: "bridge", podIfaceName: "pod16477688c0e", tapName: "tap16477688c0e", vmiIfaceIndex: 1 },
    ]);
  });

  it("takes the primary pod interface name from the VMI status", () => {
    const plans = planInterfaces([{ name: "default", bridge: {} }], networks, [
      { name: "default", podInterfaceName: "ovn-udn1" },
    ]);
    expect(plans[0]?.podIfaceName).toBe("ovn-udn1");
  });

  describe("a VMI on the pod network and two secondary bridge networks", () => {
    const vmiNetworks: Network[] = [
      { name: "default", pod: {} },
      { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
      { name: "attachnet2", multus: { networkName: "attachnet2" } },
    ];
    const vmiInterfaces: Interface[] = [
      { name: "default", masquerade: {} },
      { name: "attachnet1", bridge: {} },
      { name: "attachnet2", bridge: {} },
    ];
    const names = (plans: ReturnType<typeof planInterfaces>) =>
      plans.map(({ binding, podIfaceName, tapName }) => [binding, podIfaceName, tapName]);

    it("bridges each secondary pod interface by its hashed name", () => {
      expect(names(planInterfaces(vmiInterfaces, vmiNetworks))).toEqual([
        ["masquerade", "eth0", "tap0"],
        ["bridge", "pod17274e5ba35", "tap17274e5ba35"],
        ["bridge", "pode937a4d0f8b", "tape937a4d0f8b"],
      ]);
    });

    it("uses the ordinal names when the pod's links have them", () => {
      const plans = planInterfaces(vmiInterfaces, vmiNetworks, [], ["lo", "eth0", "net1", "net2"]);
      expect(names(plans)).toEqual([
        ["masquerade", "eth0", "tap0"],
        ["bridge", "net1", "tap1"],
        ["bridge", "net2", "tap2"],
      ]);
    });

    it("uses the ordinal names virt-controller reported before the links are read", () => {
      const statuses = [
        { name: "default", podInterfaceName: "eth0" },
        { name: "attachnet1", podInterfaceName: "net1", infoSource: "multus-status" },
      ];
      expect(names(planInterfaces(vmiInterfaces, vmiNetworks, statuses))[2]).toEqual([
        "bridge",
        "net2",
        "tap2",
      ]);
      // The links, once read, decide.
      const hashed = planInterfaces(vmiInterfaces, vmiNetworks, statuses, ["eth0", "pod17274e5ba35"]);
      expect(names(hashed)[1]).toEqual(["bridge", "pod17274e5ba35", "tap17274e5ba35"]);
    });
  });

  it.each<[Interface, string]>([
    [
      { name: "default", passtBinding: {} },
      "interface default: the passtBinding binding is not supported yet",
    ],
    [
      { name: "default", binding: { name: "mybinding" } },
      "interface default: the binding binding is not supported yet",
    ],
    [{ name: "default" }, "undefined binding method"],
    [{ name: "nowhere", bridge: {} }, "no network matching with iface nowhere"],
  ])("refuses %j", (iface, message) => {
    expect(() => planInterfaces([iface], networks)).toThrow(message);
  });
});
