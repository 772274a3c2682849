// The launcher Pod's multus parts, as upstream's template.go renders them: the networks annotation,
// multus' default network, and the device-plugin resources the NADs name (read through the apiserver).
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { clusterWith } from "../../defaults/testing.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { RESOURCE_NAME_ANNOTATION } from "../../network/multus/nad.js";
import { TestLauncherSettings } from "../testing/controller-env.js";
import { LaunchManifestError, TemplateService } from "./template.js";
import { podAndTwoBridgeNetworks } from "../../network/testing/multus-fixture.js";

function multusVMI(): VirtualMachineInstance {
  const { interfaces, networks } = podAndTwoBridgeNetworks();
  interfaces[2]!.macAddress = "02:00:00:00:00:02";
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi", namespace: "default", uid: "1234" },
    spec: {
      domain: { devices: { interfaces }, memory: { guest: "128Mi" } },
      networks,
    },
  };
}

/** NADs by namespace/name; a missing one answers like the apiserver's 404. */
function serviceWith(nads: Record<string, Record<string, string>>, config: ClusterConfig = clusterWith()) {
  const asked: string[] = [];
  const service = new TemplateService(
    TestLauncherSettings,
    () => config,
    () => undefined,
    () => 0,
    async (namespace, name) => {
      asked.push(`${namespace}/${name}`);
      const annotations = nads[`${namespace}/${name}`];
      if (!annotations) throw new Error(`network-attachment-definitions "${name}" not found`);
      return { metadata: { name, namespace, annotations } };
    },
  );
  return { service, asked };
}

describe("launcher Pod of a VMI on multus networks", () => {
  it("asks multus for each secondary network on its hashed pod interface", async () => {
    const { service, asked } = serviceWith({ "ns1/attachnet1": {}, "default/attachnet2": {} });
    const pod = await service.renderLaunchManifest(multusVMI());
    expect(asked).toEqual(["ns1/attachnet1", "default/attachnet2"]);
    expect(pod.metadata.annotations?.["k8s.v1.cni.cncf.io/networks"]).toBe(
      '[{"name":"attachnet1","namespace":"ns1","interface":"pod17274e5ba35"},' +
        '{"name":"attachnet2","namespace":"default","mac":"02:00:00:00:00:02","interface":"pode937a4d0f8b"}]',
    );
    expect(pod.metadata.annotations?.["v1.multus-cni.io/default-network"]).toBeUndefined();
  });

  it("requests one of a NAD's resource per network using it", async () => {
    const sriov = { [RESOURCE_NAME_ANNOTATION]: "intel.com/sriov" };
    const { service } = serviceWith({ "ns1/attachnet1": sriov, "default/attachnet2": sriov });
    const compute = (await service.renderLaunchManifest(multusVMI())).spec.containers[0];
    expect(compute?.resources?.requests?.["intel.com/sriov"]).toBe("2");
    expect(compute?.resources?.limits?.["intel.com/sriov"]).toBe("2");
  });

  it("leaves NADs alone when ExternalNetResourceInjection is on", async () => {
    const gated = clusterWith({ developerConfiguration: { featureGates: ["ExternalNetResourceInjection"] } });
    const { service, asked } = serviceWith({}, gated);
    const pod = await service.renderLaunchManifest(multusVMI());
    expect(asked).toEqual([]);
    expect(pod.metadata.annotations?.["k8s.v1.cni.cncf.io/networks"]).toContain("attachnet2");
  });

  it("fails with upstream's message when a NAD is missing", async () => {
    const { service } = serviceWith({ "ns1/attachnet1": {} });
    const rendering = service.renderLaunchManifest(multusVMI());
    await expect(rendering).rejects.toBeInstanceOf(LaunchManifestError);
    await expect(rendering).rejects.toThrow(
      "failed to render launch manifest: failed to locate network attachment definition default/attachnet2",
    );
  });

  it("names a multus default network for multus, with no networks list for it", async () => {
    const vmi = multusVMI();
    vmi.spec.domain.devices.interfaces = [{ name: "blue", bridge: {} }];
    vmi.spec.networks = [{ name: "blue", multus: { networkName: "ns1/blue", default: true } }];
    const { service } = serviceWith({ "ns1/blue": {} });
    const annotations = (await service.renderLaunchManifest(vmi)).metadata.annotations ?? {};
    expect(annotations["v1.multus-cni.io/default-network"]).toBe("ns1/blue");
    expect(annotations["k8s.v1.cni.cncf.io/networks"]).toBeUndefined();
  });
});
