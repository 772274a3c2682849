import { describe, expect, it } from "vitest";
import { isNotFound } from "../../controller/api-error.js";
import { KubeClient } from "../../controller/client.js";
import { FakeApiServer, tableOf } from "../../controller/testing/fake-apiserver.js";
import { controllerRevisionsGVR } from "../../controller/resources.js";
import { FaultyTransport } from "../../controller/testing/faulty-transport.js";
import { cachedSources, type InstancetypeObject } from "./client.js";
import { clusterInstancetypesGVR, instancetypesGVR } from "./resources.js";

const instancetype = (name: string, namespace: string | undefined, guest: number): InstancetypeObject => ({
  apiVersion: "instancetype.kubevirt.io/v1beta1",
  kind: namespace ? "VirtualMachineInstancetype" : "VirtualMachineClusterInstancetype",
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { cpu: { guest }, memory: { guest: "1Gi" } },
});

function setup(cached: InstancetypeObject[]) {
  const server = new FakeApiServer();
  const transport = new FaultyTransport(server);
  const byKey = new Map(cached.map((obj) => [`${obj.metadata?.namespace ?? ""}/${obj.metadata?.name}`, obj]));
  const sources = cachedSources(new KubeClient(transport), {
    instancetypes: (namespace, name) => byKey.get(`${namespace}/${name}`),
    clusterInstancetypes: (_namespace, name) => byKey.get(`/${name}`),
  });
  return { server, transport, sources };
}

describe("cachedSources", () => {
  it("answers from the cache without asking the apiserver", async () => {
    const { transport, sources } = setup([instancetype("small", undefined, 2), instancetype("it", "ns", 4)]);
    transport.failNth("GET", clusterInstancetypesGVR.resource, 0);
    transport.failNth("GET", instancetypesGVR.resource, 0);
    expect((await sources.clusterInstancetypes("", "small")).spec?.cpu.guest).toBe(2);
    expect((await sources.instancetypes("ns", "it")).spec?.cpu.guest).toBe(4);
  });

  it("hands out copies, so a caller's changes never reach the cache", async () => {
    const cached = instancetype("small", undefined, 2);
    const { sources } = setup([cached]);
    const found = await sources.clusterInstancetypes("", "small");
    found.spec!.cpu.guest = 16;
    expect(cached.spec?.cpu.guest).toBe(2);
  });

  it("reads the apiserver on a miss, its NotFound as it is", async () => {
    const { server, sources } = setup([]);
    server.seed(tableOf(clusterInstancetypesGVR), instancetype("fresh", undefined, 8));
    expect((await sources.clusterInstancetypes("", "fresh")).spec?.cpu.guest).toBe(8);
    const missing = await sources.instancetypes("ns", "gone").catch((err: unknown) => err);
    expect(isNotFound(missing)).toBe(true);
  });

  it("reads a kind without a cache from the apiserver", async () => {
    const { server, sources } = setup([]);
    server.seed(tableOf(controllerRevisionsGVR), {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: { name: "stored", namespace: "ns" },
      data: instancetype("small", undefined, 2),
      revision: 1,
    });
    expect((await sources.revisions("ns", "stored")).metadata?.name).toBe("stored");
  });
});
