import { describe, expect, it } from "vitest";
import { MULTUS_NETWORK_NAME, renderMultusConflist } from "./multus-config.js";

const NODE_CONFLIST = { cniVersion: "1.0.0", name: "kvts-node01", plugins: [{ type: "bridge" }] };

const CONFIG = {
  clusterNetworkDir: "/state/node01/runtime/cni/net.d",
  clusterNetwork: NODE_CONFLIST,
  kubeconfig: "/repo/.local/config/multus.kubeconfig",
  stateDir: "/state/node01/runtime/cni/multus",
  binDir: "/cache/kubevirt-ts/bin/cni",
};

describe("renderMultusConflist", () => {
  it("runs the thin plugin with the node conflist's folder as cluster network and all its state in the node's dir", () => {
    expect(renderMultusConflist(CONFIG)).toEqual({
      cniVersion: "1.0.0",
      name: MULTUS_NETWORK_NAME,
      plugins: [
        {
          type: "multus",
          kubeconfig: "/repo/.local/config/multus.kubeconfig",
          clusterNetwork: "/state/node01/runtime/cni/net.d",
          cniDir: "/state/node01/runtime/cni/multus",
          confDir: "/state/node01/runtime/cni/multus/net.d",
          binDir: "/cache/kubevirt-ts/bin/cni",
          logFile: "/state/node01/runtime/cni/multus/multus.log",
          logLevel: "verbose",
          logToStderr: false,
        },
      ],
    });
  });

  it("gives the node conflist inline when there is no kubeconfig (multus then runs it alone)", () => {
    const { kubeconfig: _, ...withoutKubeconfig } = CONFIG;
    const plugin = renderMultusConflist(withoutKubeconfig).plugins[0];
    expect(plugin).not.toHaveProperty("kubeconfig");
    expect(plugin).not.toHaveProperty("clusterNetwork");
    expect(plugin?.["delegates"]).toEqual([NODE_CONFLIST]);
  });

  it("keeps two nodes' multus state apart", () => {
    const node02 = renderMultusConflist({ ...CONFIG, stateDir: "/state/node02/runtime/cni/multus" });
    expect(node02.plugins[0]?.["cniDir"]).not.toBe(renderMultusConflist(CONFIG).plugins[0]?.["cniDir"]);
  });

  it.each([
    [{ clusterNetworkDir: "net.d" }, /clusterNetworkDir "net.d" must be an absolute path/],
    [
      { clusterNetworkDir: "/state/node01/runtime/cni/multus/net.d" },
      /multus's own configuration folder cannot be its cluster network's/,
    ],
    [{ stateDir: "state" }, /stateDir "state" must be an absolute path/],
    [{ kubeconfig: "multus.kubeconfig" }, /kubeconfig "multus.kubeconfig" must be an absolute path/],
  ])("refuses %j", (override, message) => {
    expect(() => renderMultusConflist({ ...CONFIG, ...override })).toThrow(message);
  });
});
