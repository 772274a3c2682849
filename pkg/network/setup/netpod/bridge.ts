import type {
  Interface as VMIInterface,
  VirtualMachineInstanceNetworkInterface,
} from "../../../api/generated/v1.js";
import type { DHCPConfig } from "../../cache/dhcpconfig.js";
import type { DiscoveredPodInterface } from "../../cache/podinterface.js";
import type { Interface, TapDevice } from "../../driver/nmstate/types.js";
import { IfaceStateUp, TypeBridge, TypeDummy, TypeTap } from "../../driver/nmstate/types.js";
import { bridgeFakeIP } from "../../link/address.js";
import { normalizeMacAddress } from "../../link/mac.js";
import { generateBridgeName, generateNewBridgedVmiInterfaceName } from "../../link/names.js";
import { formatCIDR, networkAddress } from "../../netmachinery/ip.js";
import { firstIPv4GlobalUnicast, withoutIPv6LinkLocal } from "./ipaddress.js";

// The bridge binding (upstream netpod.bridgeBindingSpec and discoverbridge.go): the pod interface,
// renamed <name>-nic and stripped of its addresses, joins bridge k6t-<name> with the VM's tap; the
// guest takes over the pod's MAC and IP (offered by DHCP); a placeholder link keeps the pod
// interface's name, MAC and addresses for CNI; the bridge holds a link-local /32 to serve DHCP.

export interface BindingLinkNames {
  podIfaceName: string;
  tapName: string;
  /** Position of the interface in the VMI spec. */
  vmiIfaceIndex: number;
  networkName: string;
}

export function bridgeBindingSpec(
  names: BindingLinkNames,
  pod: DiscoveredPodInterface,
  tap: TapDevice,
): Interface[] {
  const bridgeName = generateBridgeName(names.podIfaceName);
  const bridge: Interface = {
    name: bridgeName,
    typeName: TypeBridge,
    state: IfaceStateUp,
    networkName: names.networkName,
  };
  if (firstIPv4GlobalUnicast(pod.ipv4))
    bridge.ipv4 = { enabled: true, address: [bridgeFakeIP(names.vmiIfaceIndex)] };

  const podLink: Interface = {
    index: pod.index,
    name: generateNewBridgedVmiInterfaceName(names.podIfaceName),
    state: IfaceStateUp,
    copyMacFrom: bridgeName,
    controller: bridgeName,
    ipv4: { enabled: false },
    ipv6: { enabled: false },
    linuxStack: { portLearning: false },
    networkName: names.networkName,
  };
  const tapLink: Interface = {
    name: names.tapName,
    typeName: TypeTap,
    state: IfaceStateUp,
    mtu: pod.mtu,
    controller: bridgeName,
    tap,
    networkName: names.networkName,
  };
  const ipv6 = withoutIPv6LinkLocal(pod.ipv6);
  const placeholder: Interface = {
    name: names.podIfaceName,
    typeName: TypeDummy,
    macAddress: pod.macAddress,
    mtu: pod.mtu,
    ipv4: { enabled: pod.ipv4.length > 0, address: pod.ipv4 },
    ipv6: { enabled: ipv6.length > 0, address: ipv6 },
    networkName: names.networkName,
  };
  return [bridge, podLink, tapLink, placeholder];
}

/**
 * What the guest's DHCP server offers: the pod IP with its prefix, the pod's MAC (unless the VMI
 * asks for one), the gateway of the pod interface's first route, and its other routes except the
 * local subnet's as classless static routes. No IPv4 on the pod interface: no DHCP.
 */
export function bridgeBindingDhcpConfig(
  names: BindingLinkNames,
  pod: DiscoveredPodInterface,
  vmiIface: VMIInterface,
  vmiIfaceStatus: VirtualMachineInstanceNetworkInterface | undefined,
): DHCPConfig {
  const address = firstIPv4GlobalUnicast(pod.ipv4);
  if (!address) return { ipamDisabled: true };
  const firstRoute = pod.routes[0];
  if (!firstRoute) throw new Error(`no gateway address found in routes for ${names.podIfaceName}`);
  const localNetwork = `${networkAddress(address)}/${address.prefixLength}`;
  const otherRoutes = pod.routes
    .filter((route) => route.destination === "0.0.0.0/0" || route.destination !== localNetwork)
    .map((route) => ({ destination: route.destination, gateway: route.nextHopAddress }));
  const config: DHCPConfig = {
    name: names.podIfaceName,
    ip: formatCIDR(address),
    mac: normalizeMacAddress(vmiIface.macAddress || vmiIfaceStatus?.mac || pod.macAddress),
    advertisingIPAddr: bridgeFakeIP(names.vmiIfaceIndex).ip,
    mtu: pod.mtu,
    ipamDisabled: false,
    tapName: names.tapName,
    bridgeName: generateBridgeName(names.podIfaceName),
  };
  if (firstRoute.nextHopAddress) config.gateway = firstRoute.nextHopAddress;
  if (otherRoutes.length > 0) config.routes = otherRoutes;
  return config;
}

/** The pod interface as CNI made it, for the teardown: out of the bridge, its name, MAC and addresses back. */
export function restoredPodLinkSpec(pod: DiscoveredPodInterface): Interface {
  const ipv6 = withoutIPv6LinkLocal(pod.ipv6);
  return {
    index: pod.index,
    name: pod.name,
    state: IfaceStateUp,
    macAddress: pod.macAddress,
    mtu: pod.mtu,
    controller: "",
    ipv4: { enabled: pod.ipv4.length > 0, address: pod.ipv4 },
    ipv6: { enabled: ipv6.length > 0, address: ipv6 },
  };
}
