import { describe, expect, it } from "vitest";
import {
  COMMON_INSTANCETYPES_VERSION,
  newClusterInstancetypes,
  newClusterPreferences,
} from "./instancetypes.js";

const instancetypes = newClusterInstancetypes();
const preferences = newClusterPreferences();
const instancetype = (name: string) => instancetypes.find((i) => i.metadata?.name === name);
const preference = (name: string) => preferences.find((p) => p.metadata?.name === name);
const seriesSizes = (series: string) =>
  instancetypes
    .map((i) => i.metadata?.name ?? "")
    .filter((n) => n.startsWith(`${series}.`))
    .map((n) => n.slice(series.length + 1));

describe("common cluster instancetypes", () => {
  it("has every size of every series of the bundle", () => {
    expect(seriesSizes("u1").sort()).toEqual(
      [
        "2xlarge",
        "2xmedium",
        "4xlarge",
        "8xlarge",
        "large",
        "medium",
        "micro",
        "nano",
        "small",
        "xlarge",
      ].sort(),
    );
    expect(seriesSizes("o1")).toHaveLength(9);
    expect(seriesSizes("cx1")).toHaveLength(12);
    expect(seriesSizes("m1")).toEqual(expect.arrayContaining(["large", "large1gi", "8xlarge", "8xlarge1gi"]));
    expect(seriesSizes("n1")).toHaveLength(6);
    expect(seriesSizes("d1")).toHaveLength(10);
    expect(seriesSizes("rt1")).toHaveLength(8);
    expect(instancetypes).toHaveLength(65);
  });

  it("labels sizes as upstream: vendor, class, cpu, memory, size, feature flags and bundle version", () => {
    expect(instancetype("u1.medium")?.metadata?.labels).toEqual({
      "instancetype.kubevirt.io/class": "general.purpose",
      "instancetype.kubevirt.io/common-instancetypes-version": COMMON_INSTANCETYPES_VERSION,
      "instancetype.kubevirt.io/cpu": "1",
      "instancetype.kubevirt.io/icon-pf": "pficon-server-group",
      "instancetype.kubevirt.io/memory": "4Gi",
      "instancetype.kubevirt.io/size": "medium",
      "instancetype.kubevirt.io/vendor": "kubevirt.io",
      "instancetype.kubevirt.io/version": "1",
    });
    expect(instancetype("cx1.large1gi")?.metadata?.labels).toMatchObject({
      "instancetype.kubevirt.io/dedicatedCPUPlacement": "true",
      "instancetype.kubevirt.io/hugepages": "1Gi",
      "instancetype.kubevirt.io/isolateEmulatorThread": "true",
      "instancetype.kubevirt.io/numa": "true",
      "instancetype.kubevirt.io/size": "large1gi",
    });
    expect(instancetype("rt1.small")?.metadata?.labels?.["instancetype.kubevirt.io/realtime"]).toBe("true");
    expect(instancetype("u1.medium")?.metadata?.annotations?.["instancetype.kubevirt.io/displayName"]).toBe(
      "General Purpose",
    );
  });

  it("carries upstream's specs", () => {
    expect(instancetype("cx1.2xlarge")?.spec).toEqual({
      cpu: {
        dedicatedCPUPlacement: true,
        guest: 8,
        isolateEmulatorThread: true,
        maxSockets: 8,
        numa: { guestMappingPassthrough: {} },
      },
      ioThreadsPolicy: "auto",
      memory: { guest: "16Gi", hugepages: { pageSize: "2Mi" } },
    });
    expect(instancetype("o1.nano")?.spec).toEqual({
      cpu: { guest: 1 },
      memory: { guest: "512Mi", overcommitPercent: 50 },
    });
    expect(instancetype("n1.medium")?.spec.annotations).toEqual({
      "cpu-load-balancing.crio.io": "disable",
      "cpu-quota.crio.io": "disable",
      "irq-load-balancing.crio.io": "disable",
    });
    expect(instancetype("m1.8xlarge")?.spec.memory).toEqual({
      guest: "256Gi",
      hugepages: { pageSize: "2Mi" },
    });
  });
});

describe("common cluster preferences", () => {
  it("has the bundle's guest OSes", () => {
    const names = preferences.map((p) => p.metadata?.name);
    for (const name of [
      "cirros",
      "alpine",
      "fedora",
      "centos.stream9",
      "rhel.9",
      "ubuntu",
      "windows.11",
      "legacy",
    ]) {
      expect(names).toContain(name);
    }
    expect(preferences).toHaveLength(54);
  });

  it("labels os type, requirements and architecture as upstream", () => {
    expect(preference("fedora")?.metadata?.labels).toEqual({
      "instancetype.kubevirt.io/arch": "amd64",
      "instancetype.kubevirt.io/common-instancetypes-version": COMMON_INSTANCETYPES_VERSION,
      "instancetype.kubevirt.io/os-type": "linux",
      "instancetype.kubevirt.io/required-cpu": "1",
      "instancetype.kubevirt.io/required-memory": "2Gi",
      "instancetype.kubevirt.io/vendor": "kubevirt.io",
    });
    expect(preference("legacy")?.metadata?.labels).toEqual({
      "instancetype.kubevirt.io/common-instancetypes-version": COMMON_INSTANCETYPES_VERSION,
      "instancetype.kubevirt.io/os-type": "legacy",
      "instancetype.kubevirt.io/vendor": "kubevirt.io",
    });
    expect(preference("windows.2k22")?.metadata?.annotations).toMatchObject({
      iconClass: "icon-windows",
      "openshift.io/display-name": "Microsoft Windows Server 2022",
      "openshift.io/provider-display-name": "KubeVirt",
      tags: "hidden,kubevirt,windows",
    });
  });

  it("carries upstream's specs", () => {
    expect(preference("cirros")?.spec).toEqual({
      annotations: { "vm.kubevirt.io/os": "linux" },
      devices: { preferredDiskBus: "virtio", preferredInterfaceModel: "virtio", preferredRng: {} },
      requirements: { cpu: { guest: 1 }, memory: { guest: "256Mi" } },
    });
    const win11 = preference("windows.11")?.spec;
    expect(win11?.devices?.preferredTPM).toEqual({ persistent: true });
    expect(win11?.firmware?.preferredEfi).toEqual({ persistent: true, secureBoot: true });
    expect(win11?.features?.preferredHyperv?.spinlocks).toEqual({ spinlocks: 8191 });
    expect(win11?.preferredTerminationGracePeriodSeconds).toBe(3600);
  });

  it("hands out copies: a caller's change does not reach the next call", () => {
    const first = newClusterPreferences()[0];
    if (first?.spec.annotations) first.spec.annotations["x"] = "y";
    expect(newClusterPreferences()[0]?.spec.annotations).not.toHaveProperty("x");
  });
});
