import { describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { KubeClient } from "../../../controller/client.js";
import { controllerRevisionsGVR, virtualMachinesGVR, type StoredVM } from "../../../controller/resources.js";
import { FakeApiServer, tableOf } from "../../../controller/testing/fake-apiserver.js";
import { ClusterConfig } from "../../../virt-config/cluster-config.js";
import { clientSources } from "../../find/client.js";
import { clusterInstancetypesGVR } from "../../find/resources.js";
import { InstancetypeVMHandler } from "./controller.js";

const handler = (config = ClusterConfig.defaults()) => {
  const client = new KubeClient(new FakeApiServer());
  return new InstancetypeVMHandler(client, clientSources(client), () => config, { event: () => undefined });
};

const vm = (spec: Partial<VirtualMachine["spec"]>): VirtualMachine => ({
  metadata: { name: "vm", namespace: "ns" },
  spec: { template: {}, ...spec },
});

describe("instancetype VM handler", () => {
  it("words a VMI conflict as upstream and names the VMI's paths", () => {
    const vmi: VirtualMachineInstance = {
      metadata: {},
      spec: { domain: { devices: {}, cpu: { sockets: 2 } } },
    };
    expect(() =>
      handler().applyToVMI(
        vm({ instancetype: { name: "it", kind: "VirtualMachineInstancetype" } }),
        { instancetype: { cpu: { guest: 2 }, memory: { guest: "1Gi" } } },
        vmi,
      ),
    ).toThrow("VMI conflicts with instancetype spec in fields: [spec.domain.cpu.sockets]");
    expect(vmi.metadata?.annotations).toEqual({ "kubevirt.io/instancetype-name": "it" });
  });

  it("leaves VMs without references alone", async () => {
    const plain = vm({});
    await expect(handler().sync(plain)).resolves.toBe(plain);
    expect(await handler().specsFor(plain)).toEqual({});
  });

  describe("reference policies expand and expandAll", () => {
    const policy = (referencePolicy: string) =>
      ClusterConfig.fromKubeVirt({
        metadata: { name: "kubevirt", namespace: "kubevirt" },
        spec: { configuration: { instancetype: { referencePolicy } } },
      });
    function setup(referencePolicy: string, status: StoredVM["status"] = {}) {
      const server = new FakeApiServer();
      server.seed(tableOf(clusterInstancetypesGVR), {
        metadata: { name: "it" },
        spec: { cpu: { guest: 2 }, memory: { guest: "1Gi" } },
      });
      server.seed(tableOf(controllerRevisionsGVR), { metadata: { name: "old", namespace: "ns" } });
      const stored = server.seed<StoredVM>(tableOf(virtualMachinesGVR), {
        apiVersion: "kubevirt.io/v1",
        kind: "VirtualMachine",
        ...vm({ instancetype: { name: "it" } }),
        status,
      });
      const client = new KubeClient(server);
      const config = policy(referencePolicy);
      const expanding = new InstancetypeVMHandler(client, clientSources(client), () => config, {
        event: () => undefined,
      });
      return { server, stored, expanding };
    }

    it("writes the instance type into the VM and drops the reference", async () => {
      const { server, stored, expanding } = setup("expand");
      const synced = await expanding.sync(stored);
      const written = server.get<StoredVM>(tableOf(virtualMachinesGVR), "ns", "vm");
      expect(written?.spec.instancetype).toBeUndefined();
      expect(written?.spec.template.spec?.domain.cpu).toMatchObject({ sockets: 2, cores: 1, threads: 1 });
      expect(written?.spec.template.spec?.domain.memory).toEqual({ guest: "1Gi" });
      expect(synced.spec.instancetype).toBeUndefined();
    });

    it("expand leaves a VM that already holds a revision; expandAll rewrites it and deletes the revision", async () => {
      const recorded = { instancetypeRef: { name: "it", controllerRevisionRef: { name: "old" } } };
      const kept = setup("expand", recorded);
      await expect(kept.expanding.sync(kept.stored)).resolves.toBe(kept.stored);
      expect(kept.server.get<StoredVM>(tableOf(virtualMachinesGVR), "ns", "vm")?.spec.instancetype).toEqual({
        name: "it",
      });
      const all = setup("expandAll", recorded);
      await all.expanding.sync(all.stored);
      const written = all.server.get<StoredVM>(tableOf(virtualMachinesGVR), "ns", "vm");
      expect(written?.spec.instancetype).toBeUndefined();
      expect(written?.status?.instancetypeRef).toBeUndefined();
      expect(all.server.get(tableOf(controllerRevisionsGVR), "ns", "old")).toBeUndefined();
    });
  });
});
