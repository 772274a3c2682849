// A node of the local cluster losing its power and getting it back, for tests of node failure: the node
// agent (the node's kubelet) and every container it runs die at once, with no signal they could act on, so
// neither the Node's heartbeat nor virt-handler's goes on; powering on starts the agent again, which adopts
// or cleans up what the dead one left, as a rebooted kubelet does.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TREE_NAME } from "../node-agent/runtime/cgroup.js";
import { cgroup2Mount } from "./cgroup.js";
import type { Layout } from "./layout.js";
import { nodeAgent } from "./nodes.js";
import { startNodeAgents, type Say } from "./start.js";
import { stopProcess } from "./supervisor.js";
import { topology, type NodeSpec } from "./topology.js";

function nodeSpec(name: string): NodeSpec {
  const node = topology.nodes.find((candidate) => candidate.name === name);
  if (!node)
    throw new Error(`no node ${name} in the local cluster (${topology.nodes.map((n) => n.name).join(", ")})`);
  return node;
}

/** The cgroup holding every container of `node`; undefined where the agents fall back to process groups. */
async function containersCgroup(node: string): Promise<string | undefined> {
  const mount = await cgroup2Mount();
  const dir = mount && join(mount, TREE_NAME, node);
  return dir && existsSync(join(dir, "cgroup.kill")) ? dir : undefined;
}

/** SIGKILLs the node's agent, then every process of its containers. */
export async function powerOffNode(l: Layout, name: string): Promise<void> {
  const containers = await containersCgroup(name);
  // Without the cgroup (cgroup.kill needs Linux 5.14) the containers could not all be found: refuse.
  if (!containers)
    throw new Error(`cannot power ${name} off: no cgroup2 tree with cgroup.kill for its containers`);
  // The agent first: alive, it would start the containers again.
  await stopProcess(l, nodeAgent(l, nodeSpec(name)).name, 0);
  await writeFile(join(containers, "cgroup.kill"), "1");
}

/** Starts the agents of nodes that are off (with the default node size, as the e2e cluster has). */
export async function powerOnNodes(l: Layout, say: Say): Promise<void> {
  await startNodeAgents(l, say);
}
