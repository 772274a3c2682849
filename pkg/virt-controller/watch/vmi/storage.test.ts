import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance, VolumeStatus } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import type { PersistentVolumeClaim } from "../../../api/core/v1/persistentvolumeclaim.js";
import { updateVolumeStatus, type VMIEvent } from "./storage.js";

// upstream's updateVolumeStatus / processHotplugVolumeStatus, phase by phase.

const launcherPod: Pod = {
  metadata: { name: "virt-launcher-vmi-abcde", namespace: "default", uid: "launcher-uid" },
  spec: {
    containers: [{ name: "compute" }],
    volumes: [{ name: "boot", persistentVolumeClaim: { claimName: "boot-claim" } }],
  },
};

function attachmentPod(
  volumes: string[],
  options: { ready?: boolean; deleting?: boolean; name?: string } = {},
): Pod {
  const name = options.name ?? "hp-volume-aaaaa";
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `${name}-uid`,
      ...(options.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: {
      containers: [{ name: "hotplug-disk" }],
      volumes: [
        { name: "hotplug-disks", emptyDir: {} },
        ...volumes.map((volume) => ({
          name: volume,
          persistentVolumeClaim: { claimName: `${volume}-claim` },
        })),
      ],
    },
    status: options.ready
      ? { phase: "Running", containerStatuses: [{ name: "hotplug-disk", ready: true }] }
      : { phase: "Pending" },
  };
}

function claim(name: string, phase = "Bound", volumeMode = "Filesystem"): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], volumeMode, resources: { requests: { storage: "1Gi" } } },
    status: { phase, capacity: { storage: "1Gi" } },
  };
}

function vmiWith(hotplugged: string[], volumeStatus: VolumeStatus[] = []): VirtualMachineInstance {
  return {
    metadata: { name: "vmi", namespace: "default" },
    spec: {
      domain: { devices: {} },
      volumes: [
        { name: "boot", persistentVolumeClaim: { claimName: "boot-claim" } },
        ...hotplugged.map((name) => ({
          name,
          persistentVolumeClaim: { claimName: `${name}-claim`, hotpluggable: true },
        })),
      ],
    },
    status: { phase: "Running", volumeStatus },
  };
}

function update(
  vmi: VirtualMachineInstance,
  attachmentPods: Pod[],
  claims: PersistentVolumeClaim[] = [claim("boot-claim"), claim("hp1-claim"), claim("hp2-claim")],
) {
  const events: VMIEvent[] = [];
  updateVolumeStatus(vmi, {
    launcherPod,
    attachmentPods,
    pvcs: (namespace, name) =>
      claims.find((pvc) => pvc.metadata.namespace === namespace && pvc.metadata.name === name),
    events,
  });
  const byName = new Map((vmi.status?.volumeStatus ?? []).map((entry) => [entry.name, entry]));
  return { statuses: vmi.status?.volumeStatus ?? [], get: (name: string) => byName.get(name), events };
}

const hotplugStatus = (name: string, phase: string, attachPodName = "hp-volume-aaaaa"): VolumeStatus => ({
  name,
  target: "",
  phase,
  hotplugVolume: { attachPodName, attachPodUID: `${attachPodName}-uid` },
});

describe("a hotplugged volume without its attachment pod", () => {
  it.each([
    ["Bound", [claim("hp1-claim", "Bound")], "Bound", "PVCNotReady", "PVC is in phase Bound"],
    ["Pending", [claim("hp1-claim", "Pending")], "Pending", "PVCNotReady", "PVC is in phase ClaimPending"],
    ["Lost", [claim("hp1-claim", "Lost")], "Pending", "PVCNotReady", "PVC is in phase Lost"],
    ["missing", [], "Pending", "FailedPvcNotFound", "PVC hp1-claim not found"],
  ])("takes its phase from a %s claim", (_, claims, phase, reason, message) => {
    const { get } = update(vmiWith(["hp1"]), [], claims);
    expect(get("hp1")).toMatchObject({ name: "hp1", target: "", hotplugVolume: {}, phase, reason, message });
  });

  it("keeps Ready, and drops the pod uid of any other phase", () => {
    const { get } = update(
      vmiWith(["hp1", "hp2"], [hotplugStatus("hp1", "Ready"), hotplugStatus("hp2", "AttachedToNode")]),
      [],
    );
    expect(get("hp1")).toMatchObject(hotplugStatus("hp1", "Ready"));
    expect(get("hp2")?.hotplugVolume).toEqual({ attachPodName: "hp-volume-aaaaa" });
    expect(get("hp2")?.phase).toBe("Bound");
  });
});

describe("a hotplugged volume with its attachment pod", () => {
  it("moves to AttachedToNode with upstream's message and event, the uid only once the pod is ready", () => {
    const { get, events } = update(vmiWith(["hp1"]), [attachmentPod(["hp1"])]);
    const message = "Created hotplug attachment pod hp-volume-aaaaa, for volume hp1";
    expect(get("hp1")).toMatchObject({
      phase: "AttachedToNode",
      reason: "SuccessfulCreate",
      message,
      hotplugVolume: { attachPodName: "hp-volume-aaaaa" },
    });
    expect(get("hp1")?.hotplugVolume?.attachPodUID).toBeUndefined();
    expect(events).toEqual([{ type: "Normal", reason: "SuccessfulCreate", message }]);

    const ready = update(vmiWith(["hp1"]), [attachmentPod(["hp1"], { ready: true })]);
    expect(ready.get("hp1")?.hotplugVolume).toEqual({
      attachPodName: "hp-volume-aaaaa",
      attachPodUID: "hp-volume-aaaaa-uid",
    });
  });

  it.each(["AttachedToNode", "MountedToPod", "Ready", "UnMountedFromPod"])(
    "leaves %s as it is, without an event",
    (phase) => {
      const status = { ...hotplugStatus("hp1", phase), reason: "Other", message: "kept" };
      const { get, events } = update(vmiWith(["hp1"], [status]), [attachmentPod(["hp1"], { ready: true })]);
      expect(get("hp1")).toMatchObject({ phase, reason: "Other", message: "kept" });
      expect(events).toEqual([]);
    },
  );

  it("starts a volume plugged again while Detaching over from its claim", () => {
    const { get } = update(vmiWith(["hp1"], [hotplugStatus("hp1", "Detaching")]), [attachmentPod(["hp1"])]);
    expect(get("hp1")).toMatchObject({ phase: "Bound", reason: "PVCNotReady" });
  });

  it("only the pod holding exactly the hotplugged volumes counts", () => {
    const { get } = update(vmiWith(["hp1", "hp2"]), [attachmentPod(["hp1"])]);
    expect(get("hp1")?.phase).toBe("Bound");
    expect(get("hp2")?.phase).toBe("Bound");
  });
});

describe("an unplugged volume", () => {
  it.each([
    ["Ready", "Ready"],
    ["MountedToPod", "MountedToPod"],
    ["AttachedToNode", "Detaching"],
    ["UnMountedFromPod", "Detaching"],
  ])("keeps its entry while a pod holds it: %s stays %s", (phase, next) => {
    const { get } = update(vmiWith([], [hotplugStatus("hp1", phase, "old")]), [
      attachmentPod(["hp1"], { name: "old" }),
    ]);
    expect(get("hp1")).toMatchObject({
      phase: next,
      hotplugVolume: { attachPodName: "old", attachPodUID: "old-uid" },
    });
  });

  it("says the pod was deleted once it is going", () => {
    const pod = attachmentPod(["hp1"], { name: "old", deleting: true });
    const { get, events } = update(vmiWith([], [hotplugStatus("hp1", "UnMountedFromPod", "old")]), [pod]);
    const message = "Deleted hotplug attachment pod old, for volume hp1";
    expect(get("hp1")).toMatchObject({ phase: "Detaching", reason: "SuccessfulDelete", message });
    expect(events).toEqual([{ type: "Normal", reason: "SuccessfulDelete", message }]);
  });

  it("loses its entry once no pod holds it", () => {
    const { statuses } = update(vmiWith([], [hotplugStatus("hp1", "Detaching", "old")]), []);
    expect(statuses.map((entry) => entry.name)).toEqual(["boot"]);
  });
});

describe("every volume", () => {
  it("gets its claim's info, keeps what virt-handler wrote, and is sorted by name", () => {
    const vmi = vmiWith(["a-hp"], [{ name: "boot", target: "vda" }]);
    vmi.spec.volumes?.push({ name: "0-cd", containerDisk: { image: "x" } });
    const { statuses } = update(vmi, [], [claim("boot-claim", "Bound", "Block"), claim("a-hp-claim")]);
    expect(statuses.map((entry) => entry.name)).toEqual(["0-cd", "a-hp", "boot"]);
    expect(statuses[0]).toEqual({ name: "0-cd", target: "" });
    expect(statuses[2]).toEqual({
      name: "boot",
      target: "vda",
      persistentVolumeClaimInfo: {
        claimName: "boot-claim",
        accessModes: ["ReadWriteOnce"],
        volumeMode: "Block",
        capacity: { storage: "1Gi" },
        requests: { storage: "1Gi" },
        filesystemOverhead: "0.055",
      },
    });
    // The launcher's own claim is no hotplugged volume.
    expect(statuses[2]?.hotplugVolume).toBeUndefined();
    expect(statuses[1]?.persistentVolumeClaimInfo?.claimName).toBe("a-hp-claim");
  });

  it("a memory dump volume names its claim after the volume", () => {
    const vmi = vmiWith([]);
    vmi.spec.volumes?.push({ name: "dump", memoryDump: { claimName: "dump-claim", hotpluggable: true } });
    const { get } = update(vmi, [], [claim("boot-claim"), claim("dump-claim")]);
    expect(get("dump")).toMatchObject({
      memoryDumpVolume: { claimName: "dump" },
      phase: "Bound",
      persistentVolumeClaimInfo: expect.objectContaining({ claimName: "dump-claim" }),
    });
  });

  it("a utility volume on a Block claim is Pending with upstream's message", () => {
    const vmi = vmiWith([]);
    vmi.spec.utilityVolumes = [{ name: "util", claimName: "util-claim" }];
    const { get } = update(vmi, [], [claim("boot-claim"), claim("util-claim", "Bound", "Block")]);
    expect(get("util")).toMatchObject({
      phase: "Pending",
      reason: "PVCNotReady",
      message: "Utility volume PVC util-claim must be filesystem mode, not block mode",
    });
    expect(get("util")?.persistentVolumeClaimInfo).toBeUndefined();
  });
});
