import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { hostCpuModelSelectors, migrationTargetPod, type TargetPodInput } from "./target-pod.js";

const template = (): Pod =>
  ({
    metadata: { labels: { "kubevirt.io": "virt-launcher" }, annotations: {} },
    spec: {
      containers: [{ name: "compute", image: "launcher" }],
      nodeSelector: { "kubevirt.io/schedulable": "true" },
    },
  }) as unknown as Pod;

function input(
  overrides: Partial<TargetPodInput> = {},
  cpuModel?: string,
  selinuxContext = "none",
): TargetPodInput {
  const vmi = {
    metadata: { name: "vmi", uid: "vmi-uid" },
    spec: { domain: { devices: {}, ...(cpuModel ? { cpu: { model: cpuModel } } : {}) } },
    status: { nodeName: "node01", selinuxContext },
  } as VirtualMachineInstance;
  return {
    template: template(),
    vmi,
    migration: { metadata: { name: "mig", uid: "mig-uid" }, spec: { addedNodeSelector: { zone: "b" } } },
    sourcePod: { metadata: {}, spec: { containers: [] } } as unknown as Pod,
    sourceNode: { metadata: { name: "node01", labels: { "cpu-vendor.node.kubevirt.io/AMD": "true" } } },
    matchSELinuxLevel: true,
    ...overrides,
  };
}

describe("migrationTargetPod", () => {
  it("adds the migration's label and annotation, the added selector, the vendor and anti-affinity", () => {
    const pod = migrationTargetPod(input());
    expect(pod.metadata.labels?.["kubevirt.io/migrationJobUID"]).toBe("mig-uid");
    expect(pod.metadata.annotations?.["kubevirt.io/migrationJobName"]).toBe("mig");
    expect(pod.spec.nodeSelector).toEqual({
      zone: "b",
      "kubevirt.io/schedulable": "true",
      "cpu-vendor.node.kubevirt.io/AMD": "true",
    });
    expect(
      pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.topologyKey,
    ).toBe("kubernetes.io/hostname");
    expect(pod.spec.securityContext).toBeUndefined();
  });

  it.each([
    { context: "system_u:system_r:container_t:s0:c1,c2", want: { seLinuxOptions: { level: "s0:c1,c2" } } },
    { context: "none", want: undefined },
  ])("SELinux context $context", ({ context, want }) => {
    expect(migrationTargetPod(input({}, undefined, context)).spec.securityContext).toEqual(want);
  });

  it("refuses without an SELinux context on the VMI, unless told not to match levels", () => {
    expect(() => migrationTargetPod(input({}, undefined, ""))).toThrow(
      "SELinux context not set on VMI status",
    );
    expect(() => migrationTargetPod(input({ matchSELinuxLevel: false }, undefined, ""))).not.toThrow();
  });

  it("requires the source node's host model for a host-model CPU", () => {
    const node = {
      metadata: {
        name: "node01",
        labels: {
          "host-model-cpu.node.kubevirt.io/EPYC": "true",
          "host-model-required-features.node.kubevirt.io/svm": "true",
        },
      },
    };
    const pod = migrationTargetPod(input({ sourceNode: node }, "host-model"));
    expect(pod.spec.nodeSelector).toMatchObject({
      "cpu-model-migration.node.kubevirt.io/EPYC": "true",
      "cpu-feature.node.kubevirt.io/svm": "true",
    });
    expect(() => hostCpuModelSelectors({})).toThrow("unable to locate host cpu model");
    expect(() => migrationTargetPod(input({ sourceNode: undefined }))).toThrow(
      'node "node01" associated with vmi "vmi" does not exist',
    );
  });
});
