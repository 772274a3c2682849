// The launcher Pod's `k8s.v1.cni.cncf.io/networks` annotation (upstream
// pkg/network/multus/annotation.go): one network selection element per secondary multus network,
// naming the pod interface KubeVirt expects and the MAC the user asked for, plus one per network
// binding plugin that needs its own NAD. Serialised as Go's json.Marshal writes multus'
// NetworkSelectionElement: its field order, empty fields left out.
import type { Interface, InterfaceBindingPlugin, Network } from "../../api/generated/v1.js";
import { createHashedNetworkNameScheme, isSecondaryMultusNetwork } from "../namescheme/namescheme.js";
import { netAttachDefNamespacedName } from "./nad.js";

export const NETWORK_ATTACHMENT_ANNOTATION = "k8s.v1.cni.cncf.io/networks";
export const DEFAULT_NETWORK_CNI_ANNOTATION = "v1.multus-cni.io/default-network";

/** The members KubeVirt sets, in the order of the Go struct's fields. */
export interface NetworkSelectionElement {
  name: string;
  namespace?: string;
  mac?: string;
  interface?: string;
  "cni-args"?: Record<string, string>;
}

export type BindingPlugins = Readonly<Record<string, InterfaceBindingPlugin>>;

function selectionElement(
  namespace: string,
  iface: Interface | undefined,
  network: Network,
  podInterfaceName: string | undefined,
): NetworkSelectionElement {
  const nad = netAttachDefNamespacedName(namespace, network.multus?.networkName ?? "");
  // Built in field order; undefined members are dropped by JSON.stringify, like omitempty.
  return {
    name: nad.name,
    namespace: nad.namespace || undefined,
    mac: iface?.macAddress || undefined,
    interface: podInterfaceName || undefined,
  };
}

function bindingPluginElement(
  plugins: BindingPlugins,
  pluginName: string,
  namespace: string,
  networkName: string,
): NetworkSelectionElement | undefined {
  const plugin = plugins[pluginName];
  if (!plugin) {
    throw new Error(`unable to find the network binding plugin '${pluginName}' in Kubevirt configuration`);
  }
  if (!plugin.networkAttachmentDefinition) return undefined;
  const nad = netAttachDefNamespacedName(namespace, plugin.networkAttachmentDefinition);
  // The plugin's CNI learns which VMI network it serves from this argument.
  return {
    name: nad.name,
    namespace: nad.namespace || undefined,
    "cni-args": { logicNetworkName: networkName },
  };
}

/** The annotation's value for the given pod interface names; "" when there is nothing to attach. */
export function generateCNIAnnotationFromNameScheme(
  namespace: string,
  interfaces: readonly Interface[],
  networks: readonly Network[],
  podIfaceNames: ReadonlyMap<string, string>,
  plugins: BindingPlugins = {},
): string {
  const elements: NetworkSelectionElement[] = [];
  for (const network of networks) {
    const iface = interfaces.find((candidate) => candidate.name === network.name);
    if (isSecondaryMultusNetwork(network)) {
      elements.push(selectionElement(namespace, iface, network, podIfaceNames.get(network.name)));
    }
    if (iface?.binding) {
      const element = bindingPluginElement(plugins, iface.binding.name, namespace, network.name);
      if (element) elements.push(element);
    }
  }
  return elements.length === 0 ? "" : JSON.stringify(elements);
}

export function generateCNIAnnotation(
  namespace: string,
  interfaces: readonly Interface[],
  networks: readonly Network[],
  plugins: BindingPlugins = {},
): string {
  return generateCNIAnnotationFromNameScheme(
    namespace,
    interfaces,
    networks,
    createHashedNetworkNameScheme(networks),
    plugins,
  );
}
