import type { Interface, Network } from "../../api/generated/v1.js";

// The network layout many multus tests share: masquerade on the pod network plus bridge interfaces on two
// secondary multus networks, one named with its NetworkAttachmentDefinition's namespace, one without.

/** The hashed pod interface names of the two secondary networks ("pod" + sha256 of the network's name). */
export const ATTACHNET1_POD_IFACE = "pod17274e5ba35";
export const ATTACHNET2_POD_IFACE = "pode937a4d0f8b";

export interface NetworkLayout {
  interfaces: Interface[];
  networks: Network[];
}

/** A fresh copy each call, so a test may change its own. */
export function podAndTwoBridgeNetworks(): NetworkLayout {
  return {
    interfaces: [
      { name: "default", masquerade: {} },
      { name: "attachnet1", bridge: {} },
      { name: "attachnet2", bridge: {} },
    ],
    networks: [
      { name: "default", pod: {} },
      { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
      { name: "attachnet2", multus: { networkName: "attachnet2" } },
    ],
  };
}
