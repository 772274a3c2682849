// The pod network's state as data (upstream pkg/network/driver/nmstate): the setup reads a Status,
// composes the desired Spec with pure functions, and applies it. Names follow upstream's nmstate types.

export const TypeBridge = "bridge";
export const TypeDummy = "dummy";
export const TypeTap = "tap";

export const IfaceStateUp = "up";
export const IfaceStateDown = "down";
export const IfaceStateAbsent = "absent";

export interface IPAddress {
  ip: string;
  prefixLength: number;
}

export interface IP {
  enabled: boolean;
  address?: IPAddress[];
}

export interface TapDevice {
  /** Queues of a multi-queue tap; 0 or 1 is a single-queue tap. */
  queues: number;
  uid: number;
  gid: number;
}

export interface LinuxIfaceStack {
  /** net.ipv4.conf.<link>.route_localnet: lets the masquerade NAT rewrite 127.0.0.1 towards the guest. */
  ip4RouteLocalNet?: boolean;
  /** Whether the bridge learns source MACs on this port. */
  portLearning?: boolean;
}

export interface Interface {
  name: string;
  /** Finds the link by kernel index rather than name: the bridge binding renames the pod's link. */
  index?: number;
  typeName?: string;
  state?: string;
  macAddress?: string;
  /** Take the MAC of this other link (the bridge) when the link is set up. */
  copyMacFrom?: string;
  mtu?: number;
  /** The bridge this link is a port of; "" for none (releases the link from its bridge). */
  controller?: string;
  tap?: TapDevice;
  ipv4?: IP;
  ipv6?: IP;
  linuxStack?: LinuxIfaceStack;
  /** The VMI network the link serves. */
  networkName?: string;
}

export interface Route {
  /** `0.0.0.0/0` for the default route. */
  destination: string;
  nextHopInterface: string;
  nextHopAddress?: string;
  /** The route's origin; `kernel` routes come and go with their addresses. */
  protocol?: string;
}

export interface LinuxStack {
  ipv4: {
    /** net.ipv4.conf.all.arp_ignore */
    arpIgnore?: number;
    /** net.ipv4.ip_forward */
    forwarding?: boolean;
  };
}

export interface Spec {
  interfaces: Interface[];
  linuxStack: LinuxStack;
}

export interface Status {
  interfaces: Interface[];
  /** IPv4 routes of the main table. */
  routes: Route[];
  linuxStack: LinuxStack;
}

/** ARP reply mode 1: answer only for addresses configured on the asking interface. */
export const ARP_REPLY_MODE_1 = 1;
