import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance, Volume } from "../../api/generated/v1.js";
import type { PersistentVolumeClaim } from "../../api/core/v1/persistentvolumeclaim.js";
import type { Pod } from "../../api/core/v1/pod.js";
import { clusterWith } from "../../defaults/testing.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { renderHotplugAttachmentPod } from "./hotplug-attachment.js";
import { TemplateService } from "./template.js";

// The attachment pod as upstream's template_test.go checks RenderHotplugAttachmentPodTemplate.

const launcherImage = "registry:5000/kubevirt/virt-launcher:devel";

const ownerPod: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "virt-launcher-testvmi-abcde", namespace: "default", uid: "launcher-uid" },
  spec: {
    nodeName: "node01",
    containers: [{ name: "compute" }],
    tolerations: [
      {
        key: "node.kubernetes.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
      // The same as one of the attachment pod's own: it appears once.
      { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
    ],
  },
};

function claim(name: string, volumeMode?: "Block" | "Filesystem"): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: "default", uid: `${name}-uid` },
    spec: { accessModes: ["ReadWriteOnce"], ...(volumeMode ? { volumeMode } : {}) },
    status: { phase: "Bound" },
  };
}

const pvcVolume = (name: string, claimName = `${name}-claim`): Volume => ({
  name,
  persistentVolumeClaim: { claimName, hotpluggable: true },
});

function vmiWith(volumeStatus: NonNullable<VirtualMachineInstance["status"]>["volumeStatus"] = []) {
  const vmi: VirtualMachineInstance = {
    metadata: { name: "testvmi", namespace: "default", uid: "vmi-uid" },
    spec: { domain: { devices: {} } },
    status: { phase: "Running", volumeStatus },
  };
  return vmi;
}

function render(
  volumes: Volume[],
  claims: Record<string, PersistentVolumeClaim>,
  vmi = vmiWith(),
  config: ClusterConfig = clusterWith(),
): Pod {
  return renderHotplugAttachmentPod(volumes, ownerPod, vmi, new Map(Object.entries(claims)), {
    launcherImage,
    config,
  });
}

describe("renderHotplugAttachmentPod", () => {
  it("renders upstream's pod: owned by the launcher Pod, pinned to its node, one container holding the claims", () => {
    const pod = render([pvcVolume("fs"), pvcVolume("blk")], {
      fs: claim("fs-claim", "Filesystem"),
      blk: claim("blk-claim", "Block"),
    });
    expect(pod).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        generateName: "hp-volume-",
        ownerReferences: [
          {
            apiVersion: "v1",
            kind: "Pod",
            name: "virt-launcher-testvmi-abcde",
            uid: "launcher-uid",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        labels: { "kubevirt.io": "hotplug-disk" },
      },
      spec: {
        containers: [
          {
            name: "hotplug-disk",
            image: launcherImage,
            command: ["/bin/sh", "-c", "/usr/bin/container-disk --copy-path /path/hp"],
            resources: {
              limits: { cpu: "100m", memory: "80M" },
              requests: { cpu: "10m", memory: "2M" },
            },
            securityContext: {
              allowPrivilegeEscalation: false,
              runAsNonRoot: true,
              runAsUser: 107,
              seccompProfile: { type: "RuntimeDefault" },
              capabilities: { drop: ["ALL"] },
              seLinuxOptions: { level: "s0" },
            },
            volumeMounts: [
              { name: "hotplug-disks", mountPath: "/path", mountPropagation: "HostToContainer" },
              { name: "fs", mountPath: "/fs" },
            ],
            volumeDevices: [{ name: "blk", devicePath: "/path/blk/blk-claim-uid" }],
          },
        ],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node01"] }] },
              ],
            },
          },
        },
        tolerations: [
          { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
          { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
          { key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" },
          {
            key: "node.kubernetes.io/not-ready",
            operator: "Exists",
            effect: "NoExecute",
            tolerationSeconds: 300,
          },
          { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
          { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
        ],
        volumes: [
          { name: "hotplug-disks", emptyDir: {} },
          { name: "fs", persistentVolumeClaim: { claimName: "fs-claim" } },
          { name: "blk", persistentVolumeClaim: { claimName: "blk-claim" } },
        ],
        terminationGracePeriodSeconds: 0,
      },
    });
  });

  it("treats a claim without volumeMode as Filesystem, and a DataVolume by its claim", () => {
    const pod = render([{ name: "dv", dataVolume: { name: "dv1", hotpluggable: true } }], {
      dv: claim("dv1"),
    });
    expect(pod.spec.volumes).toContainEqual({ name: "dv", persistentVolumeClaim: { claimName: "dv1" } });
    expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: "dv", mountPath: "/dv" });
    expect(pod.spec.containers[0]?.volumeDevices).toBeUndefined();
  });

  it.each(["MountedToPod", "Ready"])(
    "keeps a Filesystem claim virt-handler reports %s in the pod without mounting it again",
    (phase) => {
      const vmi = vmiWith([
        { name: "fs", target: "", phase, hotplugVolume: { attachPodName: "hp-volume-old" } },
        { name: "blk", target: "", phase, hotplugVolume: { attachPodName: "hp-volume-old" } },
      ]);
      const pod = render(
        [pvcVolume("fs"), pvcVolume("blk"), pvcVolume("new")],
        { fs: claim("fs-claim"), blk: claim("blk-claim", "Block"), new: claim("new-claim") },
        vmi,
      );
      expect(pod.spec.volumes?.map((volume) => volume.name)).toEqual(["hotplug-disks", "fs", "blk", "new"]);
      expect(pod.spec.containers[0]?.volumeMounts?.map((mount) => mount.name)).toEqual([
        "hotplug-disks",
        "new",
      ]);
      // A Block claim is a device, not a mount: it stays.
      expect(pod.spec.containers[0]?.volumeDevices).toEqual([
        { name: "blk", devicePath: "/path/blk/blk-claim-uid" },
      ]);
    },
  );

  it("mounts a volume whose status is not a hotplug status, whatever its phase", () => {
    const pod = render(
      [pvcVolume("fs")],
      { fs: claim("fs-claim") },
      vmiWith([{ name: "fs", target: "", phase: "Ready" }]),
    );
    expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({ name: "fs", mountPath: "/fs" });
  });

  it("lists a volume whose claim is not in the map without mounting it; skips one without a claim", () => {
    const pod = render([pvcVolume("fs"), { name: "cd", containerDisk: { image: "x" } }], {});
    expect(pod.spec.volumes).toEqual([
      { name: "hotplug-disks", emptyDir: {} },
      { name: "fs", persistentVolumeClaim: { claimName: "fs-claim" } },
    ]);
    expect(pod.spec.containers[0]?.volumeMounts).toHaveLength(1);
  });

  it("takes resources from supportContainerResources (hotplug-disk) and the SELinux type from the config", () => {
    const config = clusterWith({
      selinuxLauncherType: "virt_launcher.process",
      supportContainerResources: [
        { type: "hotplug-disk", resources: { limits: { memory: "100M" }, requests: { cpu: "20m" } } },
      ],
    });
    const container = render([], {}, vmiWith(), config).spec.containers[0];
    expect(container?.resources).toEqual({
      limits: { cpu: "100m", memory: "100M" },
      requests: { cpu: "20m", memory: "2M" },
    });
    expect(container?.securityContext?.seLinuxOptions).toEqual({
      type: "virt_launcher.process",
      level: "s0",
    });
  });

  it("is what TemplateService.renderHotplugAttachmentPod renders with virt-controller's launcher image", () => {
    const config = clusterWith();
    const service = new TemplateService(
      {
        launcherImage,
        launcherQemuTimeoutSeconds: 240,
        virtShareDir: "/var/run/kubevirt",
        ephemeralDiskDir: "/var/run/kubevirt-ephemeral-disks",
        containerDiskDir: "/var/run/kubevirt/container-disks",
        hotplugDiskDir: "/var/run/kubevirt/hotplug-disks",
        imagePullSecret: "",
      },
      () => config,
      () => undefined,
    );
    const claims = new Map([["fs", claim("fs-claim")]]);
    expect(service.renderHotplugAttachmentPod([pvcVolume("fs")], ownerPod, vmiWith(), claims)).toEqual(
      render([pvcVolume("fs")], { fs: claim("fs-claim") }, vmiWith(), config),
    );
  });
});
