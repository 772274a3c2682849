import { runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import type { IpAllocator } from "./ipam.js";
import { IpTool } from "./ip-tool.js";
import { hostVethName, netnsName } from "./names.js";
import type { NodeNetwork } from "./node-network.js";

// A pod's network: a named network namespace with `lo` up and an `eth0` veth whose host end sits on the
// node bridge, an address from the node's block and a default route via the node address. Everything is
// derived from the pod UID plus the persisted address, so `ensure` after an agent restart re-adopts what
// exists and completes what is missing.

export interface SandboxRequest {
  podUID: string;
  hostNetwork?: boolean;
}

export interface PodSandbox {
  podUID: string;
  hostNetwork: boolean;
  podIP: string;
  /** The network namespace's name and file; absent for hostNetwork pods. */
  netnsName?: string;
  netnsPath?: string;
  /** The host end of the veth pair; absent for hostNetwork pods. */
  hostVeth?: string;
}

export const POD_INTERFACE = "eth0";

export class PodSandboxes {
  private readonly ip: IpTool;

  constructor(
    private readonly network: NodeNetwork,
    private readonly ipam: IpAllocator,
    private readonly netnsPrefix: string,
    run: RunCommand = runCommand,
  ) {
    this.ip = new IpTool(run);
  }

  async ensure(request: SandboxRequest): Promise<PodSandbox> {
    if (request.hostNetwork) return { podUID: request.podUID, hostNetwork: true, podIP: this.network.nodeIP };
    const podIP = await this.ipam.allocate(request.podUID);
    const netns = netnsName(this.netnsPrefix, request.podUID);
    const hostVeth = hostVethName(request.podUID);
    await this.ip.addNetns(netns);
    if (!(await this.ip.linkExists(POD_INTERFACE, netns))) {
      // A host end without its pod end is a leftover of an interrupted setup.
      await this.ip.deleteLink(hostVeth);
      await this.ip.command([
        "link",
        "add",
        hostVeth,
        "type",
        "veth",
        "peer",
        "name",
        POD_INTERFACE,
        "netns",
        netns,
      ]);
    }
    await this.ip.command(["link", "set", hostVeth, "master", this.network.bridge, "up"]);
    await this.ip.inNetns(netns, ["link", "set", "lo", "up"]);
    await this.ip.ensureAddress(POD_INTERFACE, `${podIP}/${this.network.prefixLength}`, netns);
    await this.ip.inNetns(netns, ["link", "set", POD_INTERFACE, "up"]);
    await this.ip.inNetns(netns, [
      "route",
      "replace",
      "default",
      "via",
      this.network.nodeIP,
      "dev",
      POD_INTERFACE,
    ]);
    return {
      podUID: request.podUID,
      hostNetwork: false,
      podIP,
      netnsName: netns,
      netnsPath: netnsFile(netns),
      hostVeth,
    };
  }

  /** Removes the namespace and veth and frees the address; harmless when already gone. */
  async teardown(podUID: string): Promise<void> {
    // Deleting the veth explicitly: a namespace can outlive `ip netns del` while sockets in TIME_WAIT hold it.
    await this.ip.deleteLink(hostVethName(podUID));
    await this.ip.deleteNetns(netnsName(this.netnsPrefix, podUID));
    await this.ipam.release(podUID);
  }

  /** UIDs of the pods that hold an address here, so a restarted agent can adopt or remove them. */
  async recordedPods(): Promise<string[]> {
    return [...new Set((await this.ipam.allocations()).values())];
  }
}

export function netnsFile(name: string): string {
  return `/run/netns/${name}`;
}
