// The whole local cluster, one idempotent step after the other: what `make up` runs, and what the
// end-to-end tests' global setup runs (without the demo VM).
import { bundleComponents } from "../../../hack/bundle-components/bundle.js";
import { installClusterDNS } from "./cluster-dns.js";
import { installKubeVirt, startDemoVM } from "./kubevirt.js";
import type { Layout } from "./layout.js";
import { installLocalBlockStorage } from "./local-block-storage.js";
import { installLocalPathStorage } from "./local-path-storage.js";
import type { NodeSize } from "./node-size.js";
import type { Say } from "./start.js";
import { startControlPlane, startKubeProxy, startNodeAgents, waitForReadyNodes } from "./start.js";
import { linkVirtctl } from "./virtctl.js";

export interface BringUpOptions {
  demoVM: boolean;
  /** What each node declares; default 8 CPUs, 16Gi, 110 pods. */
  nodeSize?: NodeSize;
}

/** True when nothing had to be started (everything was already running). */
export async function bringUp(l: Layout, say: Say, options: BringUpOptions): Promise<boolean> {
  const controlPlane = await startControlPlane(l, say);
  say(controlPlane.alreadyRunning ? "control plane already running and healthy" : "control plane ready");
  // The compiled component binaries the nodes run KubeVirt's Pods from, current with this checkout (cached:
  // nothing to do after `make binaries`), so a Pod never runs code older than the sources.
  await bundleComponents({ root: l.repoRoot, log: say });
  const nodes = await startNodeAgents(l, say, options.nodeSize);
  if (!nodes.started)
    throw new Error("the node agent (deploy/local/node-agent/main.ts) is not in this checkout");
  await waitForReadyNodes(l, say);
  await startKubeProxy(l, say);
  await installClusterDNS(l, say);
  await installLocalPathStorage(l, say);
  await installLocalBlockStorage(l, say);
  await linkVirtctl(l);
  await installKubeVirt(l, say);
  if (options.demoVM) await startDemoVM(l, say);
  return controlPlane.alreadyRunning;
}
