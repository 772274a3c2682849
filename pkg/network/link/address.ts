import { formatIPv4, maskOf, mustParseIPv4, parseCIDR } from "../netmachinery/ip.js";
import type { IPv4Address } from "../netmachinery/ip.js";

// Addresses KubeVirt gives the links it creates (upstream pkg/network/link/address.go and the
// virtwrap/api defaults).

/** The guest network of the masquerade binding when the pod network sets no vmNetworkCIDR. */
export const DEFAULT_VM_CIDR = "10.0.2.0/24";

/** The bridge binding's bridge holds a link-local /32 so that it can answer DHCP; the last digit is
 * the interface's index in the VMI spec (169.254.75.10 for the first). */
export function bridgeFakeIP(vmiInterfaceIndex: number): IPv4Address {
  return { ip: `169.254.75.1${vmiInterfaceIndex}`, prefixLength: 32 };
}

export interface MasqueradeAddresses {
  /** The bridge's address and the guest's default gateway: the first host address. */
  gateway: IPv4Address;
  /** The address DHCP gives the guest: the second host address. */
  vm: IPv4Address;
}

/** Gateway and guest addresses of a masquerade VM network, with upstream's error messages. */
export function masqueradeAddresses(vmNetworkCIDR: string | undefined): MasqueradeAddresses {
  const cidr = vmNetworkCIDR || DEFAULT_VM_CIDR;
  const parsed = parseCIDR(cidr);
  if (!parsed) throw new Error(`failed to parse VM CIDR: ${cidr}`);
  const minMaskBitsForHostAddresses = 2;
  if (parsed.prefixLength > 32 - minMaskBitsForHostAddresses) {
    throw new Error(`VM CIDR subnet is too small, at least 2 host addresses are required: ${cidr}`);
  }
  const network = (mustParseIPv4(parsed.ip) & maskOf(parsed.prefixLength)) >>> 0;
  return {
    gateway: { ip: formatIPv4(network + 1), prefixLength: parsed.prefixLength },
    vm: { ip: formatIPv4(network + 2), prefixLength: parsed.prefixLength },
  };
}
