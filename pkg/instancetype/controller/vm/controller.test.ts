import { describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { KubeClient } from "../../../controller/client.js";
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

  it("leaves VMs without references alone and refuses the expand reference policies it cannot follow", async () => {
    const plain = vm({});
    await expect(handler().sync(plain)).resolves.toBe(plain);
    expect(await handler().specsFor(plain)).toEqual({});
    const server = new FakeApiServer();
    server.seed(tableOf(clusterInstancetypesGVR), {
      metadata: { name: "it" },
      spec: { cpu: { guest: 1 }, memory: { guest: "1Gi" } },
    });
    const config = ClusterConfig.fromKubeVirt({
      metadata: { name: "kubevirt", namespace: "kubevirt" },
      spec: { configuration: { instancetype: { referencePolicy: "expand" } } },
    });
    const client = new KubeClient(server);
    const expanding = new InstancetypeVMHandler(client, clientSources(client), () => config, {
      event: () => undefined,
    });
    await expect(expanding.sync(vm({ instancetype: { name: "it" } }))).rejects.toThrow(
      "instancetype referencePolicy expand is not supported by kubevirt-ts yet",
    );
  });
});
