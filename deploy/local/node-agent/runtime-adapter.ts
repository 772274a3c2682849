import type { AgentFlags } from "./flags.js";
import { NodeLayout } from "./runtime/node-layout.js";
import type { Logger } from "./logger.js";
import type { PodRuntime } from "./pod-runtime.js";

// Connects the agent's PodRuntime interface to the pod runtime in ./runtime (network, processes,
// volumes, image store). Placeholder until the runtime's top-level API lands.

export interface RuntimeHandle {
  runtime: PodRuntime;
  nodeRoot: string;
  close(): Promise<void>;
}

export async function createPodRuntime(_flags: AgentFlags, _log: Logger): Promise<RuntimeHandle> {
  throw new Error("the pod runtime (deploy/local/node-agent/runtime) is not wired into the agent yet");
}

/** The node's stand-in for "/" under the agent's state directory, where kubelet's directories live. */
export function nodeRootOf(stateDir: string, node: string): string {
  return new NodeLayout(stateDir, node).root;
}
