import { describe, expect, it } from "vitest";
import { nodeAgent } from "./nodes.js";
import { layout } from "./layout.js";
import { defaultNodeSize, nodeSizeFlags, nodeSizeFromEnv } from "./node-size.js";
import { topology } from "./topology.js";
import { parseFlags } from "../node-agent/flags.js";

describe("nodeSizeFromEnv", () => {
  it("declares 8 CPUs, 16Gi and 110 pods when nothing is set", () => {
    expect(nodeSizeFromEnv({})).toEqual({ cpus: 8, memory: "16Gi", maxPods: 110 });
    expect(nodeSizeFromEnv({ NODE_CPUS: "", NODE_MEMORY: "" })).toEqual(defaultNodeSize);
  });

  it("takes make up's overrides", () => {
    expect(nodeSizeFromEnv({ NODE_CPUS: "16", NODE_MEMORY: "32Gi", NODE_MAX_PODS: "250" })).toEqual({
      cpus: 16,
      memory: "32Gi",
      maxPods: 250,
    });
  });

  it.each([
    [{ NODE_CPUS: "two" }, /NODE_CPUS: /],
    [{ NODE_CPUS: "1.5" }, /NODE_CPUS: must be a whole number of CPUs/],
    [{ NODE_MEMORY: "much" }, /NODE_MEMORY: must be a memory quantity such as 16Gi/],
    [{ NODE_MAX_PODS: "0" }, /NODE_MAX_PODS: /],
  ])("refuses %j", (env, message) => {
    expect(() => nodeSizeFromEnv(env)).toThrow(message);
  });
});

describe("the node agent's command line", () => {
  it("carries the declared size and the cluster DNS, and the agent reads them back", () => {
    const size = { cpus: 16, memory: "32Gi", maxPods: 250 };
    const spec = nodeAgent(layout("/repo", {}), topology.nodes[0], size);
    expect(spec.args).toEqual(expect.arrayContaining(nodeSizeFlags(size)));
    const main = spec.args.indexOf("/repo/deploy/local/node-agent/main.ts");
    expect(parseFlags(spec.args.slice(main + 1))).toMatchObject({
      cpus: 16,
      memory: 32 * 1024 ** 3,
      maxPods: 250,
      clusterDNS: ["10.96.0.10"],
      clusterDomain: "cluster.local",
      componentImages: "built",
    });
  });

  it("runs component Pods from this checkout's bundles with COMPONENT_IMAGES=checkout, and refuses other values", () => {
    const spec = nodeAgent(layout("/repo", { COMPONENT_IMAGES: "checkout" }), topology.nodes[0]);
    const main = spec.args.indexOf("/repo/deploy/local/node-agent/main.ts");
    expect(parseFlags(spec.args.slice(main + 1)).componentImages).toBe("checkout");
    expect(() => layout("/repo", { COMPONENT_IMAGES: "docker" })).toThrow(
      'COMPONENT_IMAGES: must be "built" or "checkout", not "docker"',
    );
  });
});
