// Every process the cluster runs, in start order, and which of them are running now: lets a caller
// (the integration tests' global setup) stop only what it started itself.
import { controlPlane } from "./components.js";
import type { Layout } from "./layout.js";
import { kubeProxy, nodeAgent } from "./nodes.js";
import { runningPid } from "./supervisor.js";
import { topology } from "./topology.js";

export function knownProcesses(l: Layout): string[] {
  return [
    ...controlPlane(l).map((spec) => spec.name),
    ...topology.nodes.map((node) => nodeAgent(l, node).name),
    kubeProxy(l).name,
  ];
}

export async function runningProcesses(l: Layout): Promise<string[]> {
  const running: string[] = [];
  for (const name of knownProcesses(l)) {
    if ((await runningPid(l, name)) !== undefined) running.push(name);
  }
  return running;
}
