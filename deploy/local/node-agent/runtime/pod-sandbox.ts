import type { Cni, CniRuntimeConf } from "./cni.js";
import type { Conflist } from "./cni-config.js";
import { podAddresses } from "./cni-result.js";
import { runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { IpTool } from "./ip-tool.js";
import { netnsName } from "./names.js";
import type { NodeNetwork } from "./node-network.js";

// A pod's network, set up as kubelet's container runtime does it: a named network namespace, then CNI ADD
// of the node's primary network list (multus, multus-config.ts, which delegates eth0 to the node conflist
// and the pod's attachments to their NetworkAttachmentDefinitions) with the pod UID as the sandbox ID, and
// the pod IP taken from the result (multus answers with the cluster network's). The result is cached with
// the configuration used (cni.ts), so `ensure` after an agent restart adopts a sandbox that is still whole,
// and teardown's DEL undoes exactly what ADD did, through whichever list ADD ran.

export interface SandboxRequest {
  podUID: string;
  namespace?: string;
  name?: string;
  hostNetwork?: boolean;
}

export interface PodSandbox {
  podUID: string;
  hostNetwork: boolean;
  podIPs: string[];
  /** The network namespace's name and file; absent for hostNetwork pods. */
  netnsName?: string;
  netnsPath?: string;
}

export const POD_INTERFACE = "eth0";

/** A sandbox's network failing, worded as kubelet shows containerd's error. */
export class PodSandboxSetupError extends Error {
  override readonly name = "PodSandboxSetupError";
  constructor(detail: string) {
    super(`rpc error: code = Unknown desc = ${detail}`);
  }
}

export class PodSandboxes {
  private readonly ip: IpTool;

  constructor(
    private readonly network: NodeNetwork,
    private readonly cni: Cni,
    private readonly conflist: Conflist,
    private readonly netnsPrefix: string,
    run: RunCommand = runCommand,
  ) {
    this.ip = new IpTool(run);
  }

  async ensure(request: SandboxRequest): Promise<PodSandbox> {
    if (request.hostNetwork) {
      return { podUID: request.podUID, hostNetwork: true, podIPs: [this.network.nodeIP] };
    }
    const netns = netnsName(this.netnsPrefix, request.podUID);
    const rt = this.runtimeConf(request, netns);
    const hadNetns = await this.ip.netnsExists(netns);
    const cached = await this.cni.cached(this.conflist.name, rt.containerID, rt.ifName);
    if (cached && hadNetns && (await this.ip.linkExists(POD_INTERFACE, netns))) {
      return this.sandbox(request.podUID, netns, podAddresses(cached.result, POD_INTERFACE));
    }
    // Leftovers of an interrupted setup (or of a namespace lost with a reboot) go before a fresh ADD,
    // which would refuse an eth0 that exists already.
    if (cached || hadNetns) await this.del(rt);
    await this.ip.addNetns(netns);
    try {
      const result = await this.cni.add(this.conflist, rt);
      return this.sandbox(request.podUID, netns, podAddresses(result, POD_INTERFACE));
    } catch (error) {
      // as containerd does after a failed setup: DEL releases whatever the plugins got to, and the
      // namespace goes with the sandbox (the next attempt makes a fresh one)
      await this.del(rt).catch(() => undefined);
      await this.ip.deleteNetns(netns).catch(() => undefined);
      throw new PodSandboxSetupError(
        `failed to setup network for sandbox "${request.podUID}": ${(error as Error).message}`,
      );
    }
  }

  /** CNI DEL, then the namespace; harmless when either is already gone. */
  async teardown(podUID: string): Promise<void> {
    const netns = netnsName(this.netnsPrefix, podUID);
    await this.del(this.runtimeConf({ podUID }, netns));
    await this.ip.deleteNetns(netns);
  }

  /** UIDs of the pods with a cached network here, so a restarted agent can remove them. */
  async recordedPods(): Promise<string[]> {
    const networks = await this.cni.cachedNetworks();
    return [...new Set(networks.map((n) => n.containerID))];
  }

  /**
   * DEL of every network list ADD ran for the sandbox, each with its cached configuration (also a list an
   * earlier agent ran, e.g. the bare node conflist before multus), or of the current list when none is
   * cached (an ADD that never finished: multus then undoes what its own cache says it started).
   */
  private async del(rt: CniRuntimeConf): Promise<void> {
    try {
      const cached = (await this.cni.cachedNetworks()).filter((n) => n.containerID === rt.containerID);
      for (const network of cached) await this.cni.del(network.config, { ...rt, ifName: network.ifName });
      if (cached.length === 0) await this.cni.del(this.conflist, rt);
    } catch (error) {
      throw new PodSandboxSetupError(
        `failed to destroy network for sandbox "${rt.containerID}": ${(error as Error).message}`,
      );
    }
  }

  /** kubelet's CNI_ARGS (K8S_POD_INFRA_CONTAINER_ID is the sandbox, here the pod UID). */
  private runtimeConf(request: SandboxRequest, netns: string): CniRuntimeConf {
    const args: Array<[string, string]> = [["IgnoreUnknown", "1"]];
    if (request.namespace !== undefined) args.push(["K8S_POD_NAMESPACE", request.namespace]);
    if (request.name !== undefined) args.push(["K8S_POD_NAME", request.name]);
    args.push(["K8S_POD_INFRA_CONTAINER_ID", request.podUID], ["K8S_POD_UID", request.podUID]);
    return { containerID: request.podUID, netns: netnsFile(netns), ifName: POD_INTERFACE, args };
  }

  private sandbox(podUID: string, netns: string, podIPs: string[]): PodSandbox {
    return { podUID, hostNetwork: false, podIPs, netnsName: netns, netnsPath: netnsFile(netns) };
  }
}

export function netnsFile(name: string): string {
  return `/run/netns/${name}`;
}
