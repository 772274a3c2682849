import { runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { IpTool } from "./ip-tool.js";
import { formatCidr, formatIpv4, gatewayOf, parseCidr } from "./ipv4.js";
import type { Ipv4Cidr } from "./ipv4.js";
import { bridgeName } from "./names.js";

// One node's network: a bridge holding the node's first pod address (also the Node's InternalIP and every
// pod's gateway). The address gives the host a connected route to the node's pod CIDR; forwarding on the
// bridge lets pods reach pods on the other node through the host.

export interface NodeNetworkConfig {
  nodeName: string;
  /** The node's pod CIDR, e.g. 10.244.1.0/24. */
  podCidr: string;
  /** The cluster's interface prefix (see ClusterNetworkConfig.interfacePrefix). */
  interfacePrefix: string;
}

export class NodeNetwork {
  readonly bridge: string;
  readonly cidr: Ipv4Cidr;
  /** The node's address on the bridge, e.g. 10.244.1.1. */
  readonly nodeIP: string;
  private readonly ip: IpTool;

  constructor(config: NodeNetworkConfig, run: RunCommand = runCommand) {
    this.cidr = parseCidr(config.podCidr);
    this.bridge = bridgeName(config.interfacePrefix, config.nodeName);
    this.nodeIP = formatIpv4(gatewayOf(this.cidr));
    this.ip = new IpTool(run);
  }

  get prefixLength(): number {
    return this.cidr.prefixLength;
  }

  get podCidr(): string {
    return formatCidr(this.cidr);
  }

  async ensure(): Promise<void> {
    await this.ip.ensureBridge(this.bridge);
    await this.ip.ensureAddress(this.bridge, `${this.nodeIP}/${this.cidr.prefixLength}`);
    await this.ip.enableForwarding(this.bridge);
  }

  /** Removes the bridge, its address and its routes. Pods' veths go with their sandboxes. */
  async teardown(): Promise<void> {
    await this.ip.deleteLink(this.bridge);
  }
}
