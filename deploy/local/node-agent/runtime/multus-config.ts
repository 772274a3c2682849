import path from "node:path";
import { CNI_VERSION, CniConfigError } from "./cni-config.js";
import type { Conflist } from "./cni-config.js";

// The node's primary CNI configuration: multus's thin plugin, as its thin entrypoint would write it to a
// node's /etc/cni/net.d (00-multus.conf), with the node conflist as its cluster network. Multus runs that
// conflist for eth0, then each NetworkAttachmentDefinition a pod's k8s.v1.cni.cncf.io/networks
// annotation names (net1, net2, ...), and writes the pod's k8s.v1.cni.cncf.io/network-status annotation.
// Every directory it keeps state in lies under the node's own state directory: two nodes on one machine
// must not share multus's per-sandbox cache or its delegates' libcni results.

/** The network name of multus's configuration (upstream's thin entrypoint names it so). */
export const MULTUS_NETWORK_NAME = "multus-cni-network";
export const MULTUS_PLUGIN_TYPE = "multus";

export interface MultusConfig {
  /**
   * The folder holding the node conflist and nothing else, multus's `clusterNetwork` (it takes the folder's
   * first configuration for eth0). A folder rather than the file itself: multus v4.2.2 keeps a `.conflist`
   * file's plugins only as far as it parses them, so its DEL would run bridge and host-local without their
   * settings (and fail; upstream's k8snetworkplumbingwg/multus-cni#1521 fixes that after v4.2.2); a
   * folder's configuration is kept as written.
   */
  clusterNetworkDir: string;
  /** The node conflist: without a kubeconfig multus resolves no clusterNetwork, so it is given inline as
   * the one delegate (upstream's `delegates` form). */
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
    ["clusterNetworkDir", config.clusterNetworkDir],
    ["stateDir", config.stateDir],
    ["binDir", config.binDir],
    ...(config.kubeconfig !== undefined ? [["kubeconfig", config.kubeconfig]] : []),
  ] as const) {
    if (!path.isAbsolute(value))
      throw new CniConfigError(`multus ${field} "${value}" must be an absolute path`);
  }
  if (path.resolve(config.clusterNetworkDir) === path.resolve(config.stateDir, "net.d")) {
    throw new CniConfigError("multus's own configuration folder cannot be its cluster network's");
  }
  return {
    cniVersion: CNI_VERSION,
    name: MULTUS_NETWORK_NAME,
    plugins: [
      {
        type: MULTUS_PLUGIN_TYPE,
        ...(config.kubeconfig !== undefined
          ? { kubeconfig: config.kubeconfig, clusterNetwork: config.clusterNetworkDir }
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
