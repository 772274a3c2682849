import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Interface, Network, VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { InterfacePlumbing } from "./context.js";
import { hashedPodInterfaceName, tapDeviceName } from "./context.js";
import { convertVMIToDomain } from "./converter.js";
import { generatedMAC } from "./network.js";
import { defaultedVMI, domainXMLOf, testContext } from "./testing.js";

const podNetwork: Network = { name: "default", pod: {} };

function vmiWith(interfaces: Interface[], networks: Network[] = [podNetwork]): VirtualMachineInstance {
  return defaultedVMI({ domain: { devices: { interfaces } }, networks });
}

interface Row {
  rule: string;
  interfaces: Interface[];
  plumbing?: InterfacePlumbing;
  useVirtioTransitional?: boolean;
  contains: string[];
  absent?: string[];
}

const rows: Row[] = [
  {
    rule: "masquerade attaches the tap virt-handler made, unmanaged, virtio 1.0, no option ROM",
    interfaces: [{ name: "default", masquerade: {}, macAddress: "de:ad:00:00:be:af" }],
    contains: [
      '<interface type="ethernet"><target dev="tap0" managed="no"/><model type="virtio-non-transitional"/>' +
        '<mac address="de:ad:00:00:be:af"/><alias name="ua-default"/><rom enabled="no"/></interface>',
    ],
  },
  {
    rule: "bridge the same way, on the tap and with the MTU the context gives",
    interfaces: [{ name: "default", bridge: {}, macAddress: "de:ad:00:00:be:af" }],
    plumbing: { tapDevice: "tap7", mtu: 1400 },
    contains: ['<target dev="tap7" managed="no"/>', '<mtu size="1400"/>'],
  },
  {
    rule: "the pod NIC's MAC when the VMI names none",
    interfaces: [{ name: "default", masquerade: {} }],
    plumbing: { tapDevice: "tap0", mac: "0a:58:0a:f4:01:05" },
    contains: ['<mac address="0a:58:0a:f4:01:05"/>'],
  },
  {
    rule: "the VMI's MAC over the pod NIC's",
    interfaces: [{ name: "default", masquerade: {}, macAddress: "de:ad:00:00:be:af" }],
    plumbing: { tapDevice: "tap0", mac: "0a:58:0a:f4:01:05" },
    contains: ['<mac address="de:ad:00:00:be:af"/>'],
  },
  {
    rule: "another model as named",
    interfaces: [{ name: "default", masquerade: {}, model: "e1000e" }],
    contains: ['<model type="e1000e"/>'],
  },
  {
    rule: "transitional virtio for old guests",
    interfaces: [{ name: "default", masquerade: {} }],
    useVirtioTransitional: true,
    contains: ['<model type="virtio-transitional"/>'],
  },
  {
    rule: "a boot order keeps the option ROM for PXE",
    interfaces: [{ name: "default", masquerade: {}, bootOrder: 2 }],
    contains: ['<boot order="2"/>'],
    absent: ["<rom "],
  },
  {
    rule: "link down when the interface is down",
    interfaces: [{ name: "default", masquerade: {}, state: "down" }],
    contains: ['<link state="down"/>'],
  },
  {
    rule: "no device for an absent interface",
    interfaces: [{ name: "default", masquerade: {}, state: "absent" }],
    contains: [],
    absent: ["<interface"],
  },
];

describe("interfaces", () => {
  it.each(rows)("$rule", ({ interfaces, plumbing, useVirtioTransitional, contains, absent = [] }) => {
    const vmi = vmiWith(interfaces);
    vmi.spec.domain.devices.useVirtioTransitional = useVirtioTransitional;
    const xml = domainXMLOf(vmi, plumbing ? { interfaces: new Map([["default", plumbing]]) } : {});
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });

  it.each([
    ["an interface without a network", [{ name: "other", masquerade: {} }], "failed to find network other"],
    ["an interface without a binding", [{ name: "default" }], "interface default has no binding method"],
  ])("refuses %s", (_rule, interfaces: Interface[], message) => {
    const vmi = vmiWith(interfaces);
    vmi.spec.domain.devices.interfaces = interfaces;
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(message);
  });

  it("refuses an interface virt-handler made no tap for", () => {
    const vmi = vmiWith([{ name: "default", masquerade: {} }]);
    expect(() => convertVMIToDomain(vmi, testContext(vmi, { interfaces: new Map() }))).toThrow(
      "no tap device provided for interface default",
    );
  });
});

describe("secondary multus networks", () => {
  it("attach each bridge binding to its own tap, as ethernet interfaces libvirt leaves alone", () => {
    const vmi = vmiWith(
      [
        { name: "default", masquerade: {} },
        { name: "attachnet1", bridge: {} },
        { name: "attachnet2", bridge: {}, macAddress: "02:00:00:00:00:02" },
      ],
      [
        podNetwork,
        { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
        { name: "attachnet2", multus: { networkName: "attachnet2" } },
      ],
    );
    const plumbing = new Map<string, InterfacePlumbing>([
      ["default", { tapDevice: "tap0" }],
      ["attachnet1", { tapDevice: "tap17274e5ba35", mac: "02:42:c0:a8:0a:02", mtu: 1300 }],
      ["attachnet2", { tapDevice: "tape937a4d0f8b", mac: "02:42:c0:a8:0b:02", mtu: 1500 }],
    ]);
    const xml = domainXMLOf(vmi, { interfaces: plumbing });
    expect(xml).toContain(
      '<interface type="ethernet"><target dev="tap17274e5ba35" managed="no"/>' +
        '<model type="virtio-non-transitional"/><mac address="02:42:c0:a8:0a:02"/><mtu size="1300"/>' +
        '<alias name="ua-attachnet1"/><rom enabled="no"/></interface>',
    );
    // The VMI's MAC wins over the pod interface's.
    expect(xml).toContain(
      '<interface type="ethernet"><target dev="tape937a4d0f8b" managed="no"/>' +
        '<model type="virtio-non-transitional"/><mac address="02:00:00:00:00:02"/><mtu size="1500"/>' +
        '<alias name="ua-attachnet2"/><rom enabled="no"/></interface>',
    );
    expect(xml.indexOf("ua-default")).toBeLessThan(xml.indexOf("ua-attachnet1"));
  });

  it("get upstream's tap names by default", () => {
    const vmi = vmiWith(
      [{ name: "attachnet1", bridge: {} }],
      [{ name: "attachnet1", multus: { networkName: "ns1/attachnet1" } }],
    );
    expect(domainXMLOf(vmi)).toContain('<target dev="tap17274e5ba35" managed="no"/>');
  });
});

describe("generated MACs", () => {
  it("are unicast, locally administered and stable per VMI and interface", () => {
    const vmi = vmiWith([{ name: "default", masquerade: {} }]);
    const mac = generatedMAC(vmi, "default");
    expect(mac).toMatch(/^02(:[0-9a-f]{2}){5}$/);
    expect(generatedMAC(structuredClone(vmi), "default")).toBe(mac);
    expect(generatedMAC(vmi, "secondary")).not.toBe(mac);
    expect(domainXMLOf(vmi)).toContain(`<mac address="${mac}"/>`);
  });

  it("differ between VMIs", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (first, second) => {
        fc.pre(first !== second);
        const vmiFor = (uid: string): VirtualMachineInstance => ({
          metadata: { name: "vm", namespace: "ns", uid },
          spec: { domain: { devices: {} } },
        });
        return generatedMAC(vmiFor(first), "default") !== generatedMAC(vmiFor(second), "default");
      }),
    );
  });
});

describe("tap names", () => {
  it("are tap0 for the pod network and tap + the hashed name for secondary networks", () => {
    expect(tapDeviceName({ name: "default", pod: {} })).toBe("tap0");
    expect(tapDeviceName({ name: "default", multus: { networkName: "ns/net", default: true } })).toBe("tap0");
    // sha256("red") starts with b1f51a511f1.
    expect(hashedPodInterfaceName("red")).toBe("podb1f51a511f1");
    expect(tapDeviceName({ name: "red", multus: { networkName: "ns/red" } })).toBe("tapb1f51a511f1");
  });

  it("fit a Linux interface name", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 63 }), (name) => {
        expect(tapDeviceName({ name, multus: { networkName: name } }).length).toBeLessThanOrEqual(15);
      }),
    );
  });
});
