import path from "node:path";
import { CNI_VERSION, CniConfigError } from "./cni-config.js";
import type { Conflist } from "./cni-config.js";

// The node's primary CNI configuration: multus's thin plugin, as its thin entrypoint would write it to a
// node's /etc/cni/net.d (00-multus.conf), with the node conflist as `clusterNetwork`. Multus runs that
// conflist for eth0, then each NetworkAttachmentDefinition a pod's k8s.v1.cni.cncf.io/networks
// annotation names (net1, net2, ...), and writes the pod's k8s.v1.cni.cncf.io/network-status annotation.
// Every directory it keeps state in lies under the node's own state directory: two nodes on one machine
// must not share multus's per-sandbox cache or its delegates' libcni results.

/** The network name of multus's configuration (upstream's thin entrypoint names it so). */
export const MULTUS_NETWORK_NAME = "multus-cni-network";
export const MULTUS_PLUGIN_TYPE = "multus";

export interface MultusConfig {
  /** The node conflist multus delegates the cluster network (eth0) to: an absolute `.conflist` path. */
  clusterNetworkFile: string;
  /** That file's content: without a kubeconfig multus resolves no clusterNetwork, so it is given inline
   * as the one delegate (upstream's `delegates` form). */
  clusterNetwork: Conflist;
  /** Multus's identity towards the apiserver; without it multus reads no annotation and runs only the
   * cluster network. */
  kubeconfig?: string;
  /** Multus's own state: per-sandbox delegate cache, the delegates' libcni results (`results/`), its
   * log and a CNI configuration directory of its own (`net.d/`, empty: no host file is consulted). */
  stateDir: string;
  /** Where multus finds the delegates' plugins (also passed as CNI_PATH). */
  binDir: string;
}

export function renderMultusConflist(config: MultusConfig): Conflist {
  for (const [field, value] of [
    ["clusterNetworkFile", config.clusterNetworkFile],
    ["stateDir", config.stateDir],
    ["binDir", config.binDir],
    ...(config.kubeconfig !== undefined ? [["kubeconfig", config.kubeconfig]] : []),
  ] as const) {
    if (!path.isAbsolute(value))
      throw new CniConfigError(`multus ${field} "${value}" must be an absolute path`);
  }
  // multus loads a path ending in .conflist as a list; any other file as a single plugin's configuration
  if (!config.clusterNetworkFile.endsWith(".conflist")) {
    throw new CniConfigError(`multus clusterNetwork "${config.clusterNetworkFile}" must be a .conflist file`);
  }
  return {
    cniVersion: CNI_VERSION,
    name: MULTUS_NETWORK_NAME,
    plugins: [
      {
        type: MULTUS_PLUGIN_TYPE,
        ...(config.kubeconfig !== undefined
          ? { kubeconfig: config.kubeconfig, clusterNetwork: config.clusterNetworkFile }
          : { delegates: [config.clusterNetwork] }),
        cniDir: config.stateDir,
        confDir: path.join(config.stateDir, "net.d"),
        binDir: config.binDir,
        logFile: path.join(config.stateDir, "multus.log"),
        logLevel: "verbose",
        logToStderr: false,
      },
    ],
  };
}
