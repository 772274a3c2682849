import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { NETWORK_STATUS_ANNOTATION } from "../multus/status.js";
import { updateVMIStatus } from "./vmi.js";
import {
  ATTACHNET1_POD_IFACE,
  ATTACHNET2_POD_IFACE,
  podAndTwoBridgeNetworks,
} from "../testing/multus-fixture.js";

function vmi(status?: VirtualMachineInstance["status"]): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: {
      domain: { devices: {} },
      networks: podAndTwoBridgeNetworks().networks,
    },
    ...(status ? { status } : {}),
  };
}

const podWith = (statuses: object[]) => ({
  metadata: { annotations: { [NETWORK_STATUS_ANNOTATION]: JSON.stringify(statuses) } },
});

describe("VMI interfaces from the launcher Pod's network-status", () => {
  it("puts the primary on multus' default interface and the secondaries on their hashed ones", () => {
    const target = vmi();
    updateVMIStatus(
      target,
      podWith([
        { name: "kindnet", interface: "eth0", default: true },
        { name: "ns1/attachnet1", interface: ATTACHNET1_POD_IFACE },
        { name: "default/attachnet2", interface: ATTACHNET2_POD_IFACE },
      ]),
    );
    expect(target.status?.interfaces).toEqual([
      { name: "default", podInterfaceName: "eth0" },
      { name: "attachnet1", infoSource: "multus-status", podInterfaceName: ATTACHNET1_POD_IFACE },
      { name: "attachnet2", infoSource: "multus-status", podInterfaceName: ATTACHNET2_POD_IFACE },
    ]);
  });

  it("follows ordinal pod interface names and a primary that is not eth0", () => {
    const target = vmi();
    updateVMIStatus(
      target,
      podWith([
        { name: "ovn", interface: "ovn-udn1", default: true },
        { name: "ns1/attachnet1", interface: "net1" },
        { name: "default/attachnet2", interface: "net2" },
      ]),
    );
    expect(target.status?.interfaces?.map((iface) => iface.podInterfaceName)).toEqual([
      "ovn-udn1",
      "net1",
      "net2",
    ]);
  });

  it("merges into what virt-handler reported and keeps interfaces outside the spec", () => {
    const target = vmi({
      interfaces: [
        {
          name: "default",
          ipAddress: "10.0.2.2",
          mac: "02:00:00:00:00:01",
          infoSource: "domain, guest-agent",
        },
        { name: "attachnet1", ipAddress: "192.168.1.5", infoSource: "domain, guest-agent" },
        { name: "attachnet2", infoSource: "domain, multus-status" },
        { interfaceName: "lo0", infoSource: "guest-agent" },
      ],
    });
    // attachnet2's interface is gone from the pod (unplugged): it loses the multus source.
    updateVMIStatus(
      target,
      podWith([
        { name: "kindnet", interface: "eth0", default: true },
        { name: "ns1/attachnet1", interface: ATTACHNET1_POD_IFACE },
      ]),
    );
    expect(target.status?.interfaces).toEqual([
      {
        name: "default",
        ipAddress: "10.0.2.2",
        mac: "02:00:00:00:00:01",
        infoSource: "domain, guest-agent",
        podInterfaceName: "eth0",
      },
      {
        name: "attachnet1",
        ipAddress: "192.168.1.5",
        infoSource: "domain, guest-agent, multus-status",
        podInterfaceName: ATTACHNET1_POD_IFACE,
      },
      { name: "attachnet2", infoSource: "domain", podInterfaceName: ATTACHNET2_POD_IFACE },
      { interfaceName: "lo0", infoSource: "guest-agent" },
    ]);
  });

  it("reads a bad network-status as none: only the primary on eth0", () => {
    const target = vmi();
    updateVMIStatus(target, { metadata: { annotations: { [NETWORK_STATUS_ANNOTATION]: "[{" } } });
    expect(target.status?.interfaces).toEqual([{ name: "default", podInterfaceName: "eth0" }]);
  });
});
