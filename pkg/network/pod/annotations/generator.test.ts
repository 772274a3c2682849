import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { generateNetworkAnnotations } from "./generator.js";

function vmiWith(spec: Pick<VirtualMachineInstance["spec"], "networks">, interfaces: object[]) {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: { ...spec, domain: { devices: { interfaces } } },
  } as VirtualMachineInstance;
}

describe("the launcher Pod's network annotations", () => {
  it("lists the secondary networks of present interfaces and marks the masquerade bridge for istio", () => {
    const vmi = vmiWith(
      {
        networks: [
          { name: "default", pod: {} },
          { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
          { name: "gone", multus: { networkName: "gone" } },
        ],
      },
      [
        { name: "default", masquerade: {} },
        { name: "attachnet1", bridge: {} },
        { name: "gone", bridge: {}, state: "absent" },
      ],
    );
    expect(generateNetworkAnnotations(vmi)).toEqual({
      "k8s.v1.cni.cncf.io/networks": '[{"name":"attachnet1","namespace":"ns1","interface":"pod17274e5ba35"}]',
      "traffic.sidecar.istio.io/kubevirtInterfaces": "k6t-eth0",
      "istio.io/reroute-virtual-interfaces": "k6t-eth0",
    });
  });

  it("names a multus default network as the pod's default network", () => {
    const vmi = vmiWith(
      {
        networks: [
          { name: "blue", multus: { networkName: "ns1/blue", default: true } },
          { name: "red", multus: { networkName: "red" } },
        ],
      },
      [
        { name: "blue", bridge: {} },
        { name: "red", bridge: {} },
      ],
    );
    expect(generateNetworkAnnotations(vmi)).toEqual({
      "k8s.v1.cni.cncf.io/networks": '[{"name":"red","namespace":"default","interface":"podb1f51a511f1"}]',
      "v1.multus-cni.io/default-network": "ns1/blue",
    });
  });

  it("adds nothing for a pod network with the bridge binding", () => {
    const vmi = vmiWith({ networks: [{ name: "default", pod: {} }] }, [{ name: "default", bridge: {} }]);
    expect(generateNetworkAnnotations(vmi)).toEqual({});
  });
});
