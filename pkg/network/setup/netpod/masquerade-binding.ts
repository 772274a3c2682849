import type { Interface as VMIInterface, Network } from "../../../api/generated/v1.js";
import type { DHCPConfig } from "../../cache/dhcpconfig.js";
import type { DiscoveredPodInterface } from "../../cache/podinterface.js";
import type { Interface, TapDevice } from "../../driver/nmstate/types.js";
import { IfaceStateUp, TypeBridge, TypeTap } from "../../driver/nmstate/types.js";
import { masqueradeAddresses } from "../../link/address.js";
import { STATIC_MASQUERADE_BRIDGE_MAC, normalizeMacAddress } from "../../link/mac.js";
import { generateBridgeName } from "../../link/names.js";
import { formatCIDR } from "../../netmachinery/ip.js";
import type { BindingLinkNames } from "./bridge.js";
import { firstIPv4GlobalUnicast } from "./ipaddress.js";

// The masquerade binding (upstream netpod.masqueradeBindingSpec and dhcp/masquerade.go): the pod
// interface stays as it is; bridge k6t-<name> with a fixed MAC holds the VM network's gateway
// (10.0.2.1/24 unless the network sets vmNetworkCIDR) and the VM's tap; the guest gets the second
// address by DHCP, and NAT joins the two networks. This port configures IPv4 only.

export function masqueradeBindingSpec(
  names: BindingLinkNames,
  pod: DiscoveredPodInterface,
  network: Network,
  tap: TapDevice,
): Interface[] {
  const bridge: Interface = {
    name: generateBridgeName(names.podIfaceName),
    typeName: TypeBridge,
    state: IfaceStateUp,
    macAddress: STATIC_MASQUERADE_BRIDGE_MAC,
    mtu: pod.mtu,
    ipv4: { enabled: false },
    ipv6: { enabled: false },
    networkName: names.networkName,
  };
  if (firstIPv4GlobalUnicast(pod.ipv4)) {
    bridge.ipv4 = { enabled: true, address: [masqueradeAddresses(network.pod?.vmNetworkCIDR).gateway] };
    bridge.linuxStack = { ip4RouteLocalNet: true };
  }
  const tapLink: Interface = {
    name: names.tapName,
    typeName: TypeTap,
    state: IfaceStateUp,
    mtu: pod.mtu,
    controller: bridge.name,
    tap,
    networkName: names.networkName,
  };
  return [bridge, tapLink];
}

/** What the guest's DHCP server offers: the VM network's second address, the bridge as gateway. */
export function masqueradeDhcpConfig(
  names: BindingLinkNames,
  pod: DiscoveredPodInterface,
  vmiIface: VMIInterface,
  network: Network,
): DHCPConfig {
  if (!firstIPv4GlobalUnicast(pod.ipv4)) return { ipamDisabled: true };
  const { gateway, vm } = masqueradeAddresses(network.pod?.vmNetworkCIDR);
  const config: DHCPConfig = {
    name: names.podIfaceName,
    ip: formatCIDR(vm),
    advertisingIPAddr: gateway.ip,
    gateway: gateway.ip,
    mtu: pod.mtu,
    ipamDisabled: false,
    tapName: names.tapName,
    bridgeName: generateBridgeName(names.podIfaceName),
  };
  if (vmiIface.macAddress) config.mac = normalizeMacAddress(vmiIface.macAddress);
  return config;
}
