import { describe, expect, it } from "vitest";
import type { Interface, Network } from "../../api/generated/v1.js";
import { createOrdinalNetworkNameScheme } from "../namescheme/namescheme.js";
import { generateCNIAnnotation, generateCNIAnnotationFromNameScheme } from "./annotation.js";

const networks: Network[] = [
  { name: "default", pod: {} },
  { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
  { name: "attachnet2", multus: { networkName: "attachnet2" } },
];
const interfaces: Interface[] = [
  { name: "default", masquerade: {} },
  { name: "attachnet1", bridge: {}, macAddress: "02:00:00:00:00:01" },
  { name: "attachnet2", bridge: {} },
];

describe("the launcher Pod's multus networks annotation", () => {
  it("lists each secondary network with its NAD, pod interface and MAC, as Go marshals it", () => {
    expect(generateCNIAnnotation("default", interfaces, networks)).toBe(
      '[{"name":"attachnet1","namespace":"ns1","mac":"02:00:00:00:00:01","interface":"pod17274e5ba35"},' +
        '{"name":"attachnet2","namespace":"default","interface":"pode937a4d0f8b"}]',
    );
  });

  it("is empty without secondary networks (a multus default network is the pod's own)", () => {
    expect(generateCNIAnnotation("default", [{ name: "default", masquerade: {} }], [networks[0]!])).toBe("");
    expect(
      generateCNIAnnotation(
        "default",
        [{ name: "blue", bridge: {} }],
        [{ name: "blue", multus: { networkName: "blue", default: true } }],
      ),
    ).toBe("");
  });

  it("uses the name scheme it is given", () => {
    const value = generateCNIAnnotationFromNameScheme(
      "default",
      interfaces,
      networks,
      createOrdinalNetworkNameScheme(networks),
    );
    expect(JSON.parse(value)).toEqual([
      { name: "attachnet1", namespace: "ns1", mac: "02:00:00:00:00:01", interface: "net1" },
      { name: "attachnet2", namespace: "default", interface: "net2" },
    ]);
  });

  it("adds a binding plugin's NAD with the logical network name", () => {
    const value = generateCNIAnnotation(
      "default",
      [{ name: "default", binding: { name: "passt" } }],
      [networks[0]!],
      { passt: { networkAttachmentDefinition: "kube-system/netbindingpasst" } },
    );
    expect(value).toBe(
      '[{"name":"netbindingpasst","namespace":"kube-system","cni-args":{"logicNetworkName":"default"}}]',
    );
    const withoutNAD = generateCNIAnnotation(
      "default",
      [{ name: "default", binding: { name: "slirp" } }],
      [networks[0]!],
      { slirp: { sidecarImage: "slirp:latest" } },
    );
    expect(withoutNAD).toBe("");
  });

  it("refuses a binding plugin the KubeVirt configuration does not register", () => {
    expect(() =>
      generateCNIAnnotation("default", [{ name: "default", binding: { name: "nope" } }], [networks[0]!]),
    ).toThrow("unable to find the network binding plugin 'nope' in Kubevirt configuration");
  });
});
