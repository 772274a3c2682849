// Removes what the node agents made on the host once every node process is gone: pod network
// namespaces, node bridges, the cluster-wide guard table, blackhole routes, the service sink and the
// secondary networks' bridges.
// The names come from the node runtime's own definitions, so only this cluster's objects match.
import { ClusterNetwork } from "../node-agent/runtime/cluster-network.js";
import { LOCAL_CLUSTER_NETWORK } from "../node-agent/runtime/cluster-network-config.js";
import { NodeNetwork } from "../node-agent/runtime/node-network.js";
import { mustRun, runCommand } from "./run-command.js";
import { topology } from "./topology.js";

export async function removeNodeNetworks(): Promise<void> {
  await removePodNetns(LOCAL_CLUSTER_NETWORK.interfacePrefix);
  for (const node of topology.nodes) {
    const network = new NodeNetwork({
      nodeName: node.name,
      podCidr: node.podCIDR,
      interfacePrefix: LOCAL_CLUSTER_NETWORK.interfacePrefix,
    });
    await network.teardown();
  }
  await new ClusterNetwork(LOCAL_CLUSTER_NETWORK).teardown();
}

/** Network namespaces named with the cluster's prefix; anything still inside one is killed by PID. */
async function removePodNetns(prefix: string): Promise<void> {
  for (const name of await netnsNames()) {
    if (!name.startsWith(prefix)) continue;
    const pids = (await runCommand("ip", ["netns", "pids", name])).stdout.split("\n").filter(Boolean);
    for (const pid of pids) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone already
      }
    }
    await mustRun("ip", ["netns", "delete", name]);
  }
}

export async function netnsNames(): Promise<string[]> {
  const listing = await runCommand("ip", ["netns", "list"]);
  // lines look like "kvts-0f3c9d2e7a1b (id: 3)" or just the name
  return listing.stdout
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter(Boolean);
}
