// The live source over a fake list/watch: what every component sees as the KubeVirt CR changes.
import { afterEach, describe, expect, it } from "vitest";
import { Informer } from "../controller/informer.js";
import { FakeListWatch } from "../controller/testing/fake-list-watch.js";
import { ClusterConfigSource, type KubeVirtObject } from "./cluster-config-source.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function kubeVirt(
  resourceVersion: string,
  developerConfiguration: Record<string, unknown>,
  phase = "Deployed",
): KubeVirtObject {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "KubeVirt",
    metadata: { name: "kubevirt", namespace: "kubevirt", resourceVersion },
    spec: { configuration: { developerConfiguration } },
    status: { phase },
  };
}

let stop = new AbortController();
afterEach(() => {
  stop.abort();
  stop = new AbortController();
});

async function started(initial: KubeVirtObject[] = []) {
  const source = new FakeListWatch<KubeVirtObject>();
  source.listResult = { items: initial, resourceVersion: "1" };
  const config = new ClusterConfigSource(new Informer(source, { logger: silent }), silent);
  void config.run(stop.signal);
  expect(await config.waitForSync(stop.signal)).toBe(true);
  await source.untilWatching();
  return { source, config };
}

describe("ClusterConfigSource", () => {
  it("serves the defaults while no KubeVirt CR exists", async () => {
    const { config } = await started();
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(false);
    expect(config.configResourceVersion()).toBe("");
  });

  it("follows feature gates switched on and off in the CR, without being rebuilt", async () => {
    const { source, config } = await started([kubeVirt("10", { featureGates: [] })]);
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(false);
    source.emit("MODIFIED", kubeVirt("11", { featureGates: ["HostDisk"] }));
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(true);
    expect(config.configResourceVersion()).toBe("11");
    source.emit("MODIFIED", kubeVirt("12", { featureGates: [], useEmulation: true }));
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(false);
    expect(config.current().allowEmulation()).toBe(true);
  });

  it("ignores a CR that is not deployed yet, as upstream does", async () => {
    const { config } = await started([kubeVirt("5", { featureGates: ["HostDisk"] }, "")]);
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(false);
    expect(config.configResourceVersion()).toBe("");
  });

  it("keeps the last valid configuration when the CR's becomes invalid", async () => {
    const { source, config } = await started([kubeVirt("20", { featureGates: ["HostDisk"] })]);
    source.emit("MODIFIED", kubeVirt("21", { featureGates: [], memoryOvercommit: -1 }));
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(true);
    expect(config.configResourceVersion()).toBe("20");
  });

  it("falls back to the defaults when the CR is deleted", async () => {
    const { source, config } = await started([kubeVirt("30", { featureGates: ["HostDisk"] })]);
    source.emit("DELETED", kubeVirt("31", { featureGates: ["HostDisk"] }));
    expect(config.current().isFeatureGateEnabled("HostDisk")).toBe(false);
    expect(config.configResourceVersion()).toBe("");
  });
});
