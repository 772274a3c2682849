import { describe, expect, it } from "vitest";
import { KubeClient } from "../../controller/client.js";
import { controllerRevisionsGVR, virtualMachinesGVR, type StoredVM } from "../../controller/resources.js";
import { FakeApiServer, tableOf } from "../../controller/testing/fake-apiserver.js";
import type { InstancetypeControllerRevision } from "../compatibility/compatibility.js";
import { clientSources } from "../find/client.js";
import { RevisionUpgrader } from "./handler.js";

const revisionTable = tableOf(controllerRevisionsGVR);
const vmTable = tableOf(virtualMachinesGVR);

const stashed = (
  name: string,
  labels: Record<string, string>,
  apiVersion = "instancetype.kubevirt.io/v1beta1",
) => ({
  metadata: { name, namespace: "ns", labels },
  data: {
    apiVersion,
    kind: "VirtualMachineClusterInstancetype",
    metadata: { name: "u1", uid: "it-uid", generation: 3 },
    spec: { cpu: { guest: 2 }, memory: { guest: "1Gi" } },
  },
});

function setup(revision: InstancetypeControllerRevision) {
  const server = new FakeApiServer();
  server.seed(revisionTable, revision);
  const vm = server.seed<StoredVM>(vmTable, {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm", namespace: "ns", uid: "vm-uid" },
    spec: { template: {}, instancetype: { name: "u1" } },
    status: {
      instancetypeRef: { name: "u1", controllerRevisionRef: { name: revision.metadata?.name ?? "" } },
    },
  });
  const client = new KubeClient(server);
  const logs: string[] = [];
  return {
    server,
    vm,
    logs,
    upgrader: new RevisionUpgrader(client, clientSources(client).revisions, (m) => logs.push(m)),
  };
}

describe("instancetype revision upgrade", () => {
  it("leaves a revision labelled with the latest version", async () => {
    const { server, vm, upgrader } = setup(
      stashed("current", { "instancetype.kubevirt.io/object-version": "v1beta1" }),
    );
    await upgrader.upgrade(vm);
    expect(server.get<StoredVM>(vmTable, "ns", "vm")?.status?.instancetypeRef?.controllerRevisionRef).toEqual(
      {
        name: "current",
      },
    );
    expect(server.get(revisionTable, "ns", "current")).toBeDefined();
  });

  it("stores an unlabelled revision again under the current name, repoints the status and deletes the old one", async () => {
    const { server, vm, logs, upgrader } = setup(stashed("vm-u1-it-uid-3", {}));
    await upgrader.upgrade(vm);
    const name = "vm-u1-v1beta1-it-uid-3";
    expect(server.get<StoredVM>(vmTable, "ns", "vm")?.status?.instancetypeRef?.controllerRevisionRef).toEqual(
      { name },
    );
    expect(vm.status?.instancetypeRef?.controllerRevisionRef?.name).toBe(name);
    expect(
      server.get<InstancetypeControllerRevision>(revisionTable, "ns", name)?.metadata?.labels,
    ).toMatchObject({
      "instancetype.kubevirt.io/object-version": "v1beta1",
      "instancetype.kubevirt.io/object-name": "u1",
    });
    expect(server.get(revisionTable, "ns", "vm-u1-it-uid-3")).toBeUndefined();
    expect(logs).toContain("instancetype.kubevirt.io ControllerRevisions upgrade successful");
  });

  it("refuses stored objects of a version it cannot decode", async () => {
    const { upgrader, vm } = setup(stashed("alpha", {}, "instancetype.kubevirt.io/v1alpha1"));
    await expect(upgrader.upgrade(vm)).rejects.toThrow(
      'failed to decode object in ControllerRevision: no kind "VirtualMachineClusterInstancetype" is registered for version "instancetype.kubevirt.io/v1alpha1" in scheme',
    );
  });
});
