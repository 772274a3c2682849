// The network annotations of a new launcher Pod (upstream pkg/network/pod/annotations/generator.go):
// multus' networks list for the secondary networks of the interfaces not marked absent, multus'
// default-network for a `multus.default` network, and istio's hints to leave the masquerade bridge
// alone.
import type { Network, VirtualMachineInstance } from "../../../api/generated/v1.js";
import {
  DEFAULT_NETWORK_CNI_ANNOTATION,
  generateCNIAnnotation,
  NETWORK_ATTACHMENT_ANNOTATION,
  type BindingPlugins,
} from "../../multus/annotation.js";

export const ISTIO_KUBEVIRT_TRAFFIC_ANNOTATION = "traffic.sidecar.istio.io/kubevirtInterfaces";
export const ISTIO_REROUTE_VIRTUAL_INTERFACES_ANNOTATION = "istio.io/reroute-virtual-interfaces";
const DEFAULT_BRIDGE_NAME = "k6t-eth0";

export function generateNetworkAnnotations(
  vmi: VirtualMachineInstance,
  plugins: BindingPlugins = {},
): Record<string, string> {
  const interfaces = vmi.spec.domain.devices.interfaces ?? [];
  const present = interfaces.filter((iface) => iface.state !== "absent");
  const presentNames = new Set(present.map((iface) => iface.name));
  const networks = (vmi.spec.networks ?? []).filter((network) => presentNames.has(network.name));
  const annotations: Record<string, string> = {};
  const multus = generateCNIAnnotation(vmi.metadata?.namespace ?? "", present, networks, plugins);
  if (multus) annotations[NETWORK_ATTACHMENT_ANNOTATION] = multus;
  const defaultNetwork = (vmi.spec.networks ?? []).find((network: Network) => network.multus?.default);
  if (defaultNetwork?.multus) annotations[DEFAULT_NETWORK_CNI_ANNOTATION] = defaultNetwork.multus.networkName;
  if (interfaces.some((iface) => iface.masquerade !== undefined)) {
    // Both say the same; istio reads one or the other depending on its version.
    annotations[ISTIO_KUBEVIRT_TRAFFIC_ANNOTATION] = DEFAULT_BRIDGE_NAME;
    annotations[ISTIO_REROUTE_VIRTUAL_INTERFACES_ANNOTATION] = DEFAULT_BRIDGE_NAME;
  }
  return annotations;
}
