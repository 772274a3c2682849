// One row per network rule: the change to a valid spec and exactly the causes upstream answers with.
import { describe, expect, it } from "vitest";
import { clusterWith } from "../../../../defaults/testing.js";
import { specPath } from "../../../../api/causes.js";
import { validateDiscontinuedBindings } from "./network.js";
import { duplicate, invalid, notSupported, required, specCauses, specWith, type RuleRow } from "./testing.js";

const rows: RuleRow[] = [
  {
    rule: "interface names are unique",
    change: (spec) => spec.domain.devices.interfaces?.push({ name: "default", masquerade: {} }),
    causes: [
      duplicate(
        "spec.domain.devices.interfaces[1].name",
        "Only one interface can be connected to one specific network",
      ),
    ],
  },
  {
    rule: "network names are unique; the pod network is attached once",
    change: (spec) => spec.networks?.push({ name: "default", pod: {} }),
    causes: [
      duplicate(
        "spec.interfaces",
        "more than one interface is connected to a pod network in spec.interfaces",
      ),
      duplicate(
        "spec.networks[1].name",
        'Network with name "default" already exists, every network must have a unique name',
      ),
    ],
  },
  {
    rule: "each interface has its network",
    change: (spec) => spec.domain.devices.interfaces?.push({ name: "second", bridge: {} }),
    causes: [
      invalid(
        "spec.domain.devices.interfaces[1].name",
        "spec.domain.devices.interfaces[1].name 'second' not found.",
      ),
    ],
  },
  {
    rule: "each network has its interface",
    change: (spec) => {
      spec.domain.devices.interfaces = [];
    },
    causes: [required("spec.networks[0].name", "spec.networks[0].name 'default' not found.")],
  },
  {
    rule: "an interface has a binding",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default" }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0]",
        "logical default interface must have exactly one binding method or binding plugin",
      ),
    ],
  },
  {
    rule: "an interface has only one binding",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, bridge: {} }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0]",
        "logical default interface must have exactly one binding method or binding plugin",
      ),
    ],
  },
  {
    rule: "a network has a source",
    change: (spec) => {
      spec.networks = [{ name: "default" }];
    },
    causes: [
      required("spec.networks[0]", "should have a network type"),
      invalid(
        "spec.domain.devices.interfaces[0].name",
        "Masquerade interface only implemented with pod network",
      ),
    ],
  },
  {
    rule: "masquerade only on the pod network",
    change: (spec) => {
      spec.networks = [{ name: "default", multus: { networkName: "net1" } }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].name",
        "Masquerade interface only implemented with pod network",
      ),
    ],
  },
  {
    rule: "a pod network beside secondary multus networks is valid",
    change: (spec) => {
      spec.domain.devices.interfaces?.push({ name: "red", bridge: {} }, { name: "blue", bridge: {} });
      spec.networks?.push(
        { name: "red", multus: { networkName: "ns1/red" } },
        { name: "blue", multus: { networkName: "blue" } },
      );
    },
    causes: [],
  },
  {
    rule: "a multus network needs a networkName (upstream reports the first only)",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        { name: "red", bridge: {} },
        { name: "blue", bridge: {} },
      ];
      spec.networks = [
        { name: "red", multus: { networkName: "" } },
        { name: "blue", multus: { networkName: "" } },
      ];
    },
    causes: [required("spec.networks[0]", "CNI delegating plugin must have a networkName")],
  },
  {
    rule: "one multus default network, and no pod network beside it",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        { name: "default", masquerade: {} },
        { name: "red", bridge: {} },
        { name: "blue", bridge: {} },
      ];
      spec.networks = [
        { name: "default", pod: {} },
        { name: "red", multus: { networkName: "red", default: true } },
        { name: "blue", multus: { networkName: "blue", default: true } },
      ];
    },
    causes: [
      invalid("spec.networks", "Multus CNI should only have one default network"),
      invalid("spec.networks", "Pod network cannot be defined when Multus default network is defined"),
    ],
  },
  {
    rule: "a network has one source",
    change: (spec) => {
      spec.networks = [{ name: "default", pod: {}, multus: { networkName: "red" } }];
    },
    causes: [required("spec.networks[0]", "should have only one network type")],
  },
  {
    rule: "an absent interface may not be on the default (multus) network",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", bridge: {}, state: "absent" }];
      spec.networks = [{ name: "default", multus: { networkName: "red", default: true } }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].state",
        '"default" interface\'s state "absent" is not supported on default networks',
      ),
    ],
  },
  {
    rule: "masquerade may not use the in-pod bridge MAC",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, macAddress: "02:00:00:00:00:00" }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].macAddress",
        "The requested MAC address is reserved for the in-pod bridge. Please choose another one.",
      ),
    ],
  },
  {
    rule: "bridge on the pod network is accepted by default",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", bridge: {} }];
    },
    causes: [],
  },
  {
    rule: "bridge on the pod network needs permitBridgeInterfaceOnPodNetwork",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", bridge: {} }];
    },
    config: clusterWith({ network: { permitBridgeInterfaceOnPodNetwork: false } }),
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].name",
        "Bridge on pod network configuration is not enabled under kubevirt-config",
      ),
    ],
  },
  {
    rule: "interface names use few characters",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "a.b", masquerade: {} }];
      spec.networks = [{ name: "a.b", pod: {} }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].name",
        "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)",
      ),
    ],
  },
  {
    rule: "the NIC model is known",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, model: "vmxnet3" }];
    },
    causes: [
      notSupported(
        "spec.domain.devices.interfaces[0].model",
        "interface spec.domain.devices.interfaces[0].name uses model vmxnet3 that is not supported.",
      ),
    ],
  },
  {
    rule: "a MAC address parses",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, macAddress: "de:ad:be:ef" }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].macAddress",
        "interface spec.domain.devices.interfaces[0].name has malformed MAC address (de:ad:be:ef).",
      ),
    ],
  },
  {
    rule: "a MAC address has six octets",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        { name: "default", masquerade: {}, macAddress: "02:00:00:00:00:00:00:01" },
      ];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].macAddress",
        "interface spec.domain.devices.interfaces[0].name has too long MAC address (02:00:00:00:00:00:00:01).",
      ),
    ],
  },
  {
    rule: "an interface PCI address parses",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, pciAddress: "0000:00:1.0" }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].pciAddress",
        "interface spec.domain.devices.interfaces[0].name has malformed PCI address (0000:00:1.0).",
      ),
    ],
  },
  {
    rule: "forwarded ports are named, numbered and TCP or UDP",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        {
          name: "default",
          masquerade: {},
          ports: [
            { name: "http", port: 80 },
            { name: "http", port: 0, protocol: "SCTP" },
            { name: "Bad--Name", port: 70000 },
          ],
        },
      ];
    },
    causes: [
      duplicate("spec.domain.devices.interfaces[0].ports[1].name", "Duplicate name of the port: http"),
      invalid("spec.domain.devices.interfaces[0].ports[2].name", "Invalid name of the port: Bad--Name"),
      required("spec.domain.devices.interfaces[0].ports[1].port", "Port field is mandatory."),
      invalid(
        "spec.domain.devices.interfaces[0].ports[1].protocol",
        "Unknown protocol, only TCP or UDP allowed",
      ),
      invalid(
        "spec.domain.devices.interfaces[0].ports[2].port",
        "Port field must be in range 0 < x < 65536.",
      ),
    ],
  },
  {
    rule: "port ranges need their feature gate",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        { name: "default", masquerade: {}, portRanges: [{ protocol: "TCP", start: 80, end: 90 }] },
      ];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].name",
        "portRanges is specified on interface but the PortRangesSpec feature gate is not enabled",
      ),
    ],
  },
  {
    rule: "port ranges are valid and do not overlap",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        {
          name: "default",
          masquerade: {},
          portRanges: [
            { protocol: "TCP", start: 80, end: 90 },
            { protocol: "TCP", start: 85, end: 95 },
            { protocol: "UDP", start: 10, end: 5 },
          ],
        },
      ];
    },
    config: clusterWith({ developerConfiguration: { featureGates: ["PortRangesSpec"] } }),
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].portRanges[2].start",
        "Start must be less than or equal to end",
      ),
      invalid("spec.domain.devices.interfaces[0].portRanges", "TCP portRanges [80-90] and [85-95] overlap"),
    ],
  },
  {
    rule: "interface states are known, and absent only for bridge",
    change: (spec) => {
      spec.domain.devices.interfaces = [{ name: "default", masquerade: {}, state: "absent" }];
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].state",
        '"default" interface\'s state "absent" is supported only for bridge binding',
      ),
      invalid(
        "spec.domain.devices.interfaces[0].state",
        '"default" interface\'s state "absent" is not supported on default networks',
      ),
    ],
  },
  {
    rule: "DHCP NTP servers are IPv4 addresses and private options in range",
    change: (spec) => {
      spec.domain.devices.interfaces = [
        {
          name: "default",
          masquerade: {},
          dhcpOptions: {
            ntpServers: ["1.2.3.4", "::1"],
            privateOptions: [
              { option: 240, value: "a" },
              { option: 240, value: "b" },
              { option: 1, value: "c" },
            ],
          },
        },
      ];
    },
    causes: [
      invalid("spec", "Found Duplicates: you have provided duplicate DHCPPrivateOptions"),
      invalid("spec", "provided DHCPPrivateOptions are out of range, must be in range 224 to 254"),
      invalid(
        "spec.domain.devices.interfaces[0].dhcpOptions.ntpServers[1]",
        "NTP servers must be a list of valid IPv4 addresses.",
      ),
    ],
  },
];

describe("network rules", () => {
  it.each(rows)("$rule", ({ change, causes, config }) => {
    expect(specCauses(change, config)).toEqual(causes);
  });
});

describe("discontinued bindings (on creation)", () => {
  it.each([
    ["slirp", "Slirp interface support has been discontinued since v1.3"],
    ["passt", "Passt network binding has been discontinued since v1.3"],
    ["macvtap", "Macvtap network binding has been discontinued since v1.3"],
  ] as const)("refuses %s with upstream's message", (binding, message) => {
    const spec = specWith((s) => {
      s.domain.devices.interfaces = [{ name: "default", [binding]: {} }];
    });
    expect(validateDiscontinuedBindings(specPath(), spec)).toEqual([
      invalid(`spec.domain.devices.interfaces[0].${binding}`, message),
    ]);
  });
});
