import path from "node:path";
import type { AgentFlags } from "./flags.js";
import type { Logger } from "./logger.js";
import type { PodRuntime } from "./pod-runtime.js";
import { NodeLayout } from "./runtime/node-layout.js";
import { NodeRuntime } from "./runtime/node-runtime.js";

// Connects the agent to the pod runtime in ./runtime: sets the node up (bridge with the node address,
// cluster routes and guard, node root) before the agent binds to the node address.

export interface RuntimeHandle {
  runtime: PodRuntime;
  /** The node's stand-in for "/", where kubelet's directories live. */
  nodeRoot: string;
  close(): Promise<void>;
}

export async function createPodRuntime(flags: AgentFlags, log: Logger): Promise<RuntimeHandle> {
  const runtime = await NodeRuntime.create({
    nodeName: flags.node,
    stateDir: flags.stateDir,
    podCidr: flags.podCIDR,
    images: { componentImages: flags.componentImages },
    ...(flags.multusKubeconfig !== undefined
      ? { multusKubeconfig: path.resolve(flags.multusKubeconfig) }
      : {}),
  });
  if (runtime.nodeIP !== flags.nodeIP) {
    throw new Error(`--node-ip ${flags.nodeIP} differs from the node bridge's address ${runtime.nodeIP}`);
  }
  log.info({ nodeRoot: runtime.layout.root, nodeIP: runtime.nodeIP }, "pod runtime ready");
  // Nothing to release: pods keep running while the agent is away, and `make down` removes the node.
  return { runtime, nodeRoot: runtime.layout.root, close: async () => {} };
}

/** The node's stand-in for "/" under the agent's state directory (as the runtime lays it out). */
export function nodeRootOf(stateDir: string): string {
  return new NodeLayout(stateDir).root;
}
