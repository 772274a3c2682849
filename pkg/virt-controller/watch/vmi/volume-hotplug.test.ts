import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Volume } from "../../../api/generated/v1.js";
import type { Pod, PodStatus } from "../../../api/core/v1/pod.js";
import type { StoredVMI } from "../../../controller/resources.js";
import {
  startControllerEnv,
  syncOnce,
  syncUntilStable as syncUntil,
  Tables,
  vmiFixture,
  type ControllerEnv,
} from "../../testing/controller-env.js";
import {
  getActiveAndOldAttachmentPods,
  needsHandleHotplug,
  podVolumesMatchesReadyVolumes,
  volumeReadyToAttachToNode,
} from "./volume-hotplug.js";

// The VMI controller's attachment pods against an in-memory apiserver, as upstream's vmi_test.go checks
// handleHotplugVolumes: one pod for the ready hotplugged claims, replaced when they change, deleted when
// none is left, and the volume status that follows.

let env: ControllerEnv;
beforeEach(async () => {
  env = await startControllerEnv();
});
afterEach(() => env.stop());

const key = "default/testvmi";
const vmi = () => env.server.get<StoredVMI>(Tables.vmis, "default", "testvmi");
const pods = () => env.server.list<Pod>(Tables.pods);
const launcherPod = (): Pod => {
  const pod = pods().find((candidate) => candidate.metadata.generateName === "virt-launcher-testvmi-");
  if (!pod) throw new Error("no launcher Pod");
  return pod;
};
const attachmentPods = (): Pod[] =>
  pods().filter((pod) => pod.metadata.labels?.["kubevirt.io"] === "hotplug-disk");
const onlyAttachmentPod = (): Pod => {
  const [pod, ...more] = attachmentPods();
  if (!pod || more.length > 0)
    throw new Error(`expected one attachment pod, found ${attachmentPods().length}`);
  return pod;
};
const volumeStatus = (name: string) => vmi()?.status?.volumeStatus?.find((entry) => entry.name === name);

const sync = () => syncOnce(env, "vmi", key);
const syncUntilStable = () => syncUntil(env, "vmi", key);

function seedPVC(name: string, volumeMode: "Block" | "Filesystem" = "Filesystem", phase = "Bound"): void {
  env.server.seed(Tables.pvcs, {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode },
    status: { phase, capacity: { storage: "1Gi" } },
  });
}

const hotplugVolume = (name: string): Volume => ({
  name,
  persistentVolumeClaim: { claimName: `${name}-claim`, hotpluggable: true },
});

/** A Running VMI whose launcher Pod runs on node01, as the controller created it. */
async function runningVMI(): Promise<void> {
  env.server.seed(Tables.vmis, vmiFixture("testvmi"));
  await env.server.settle();
  await syncUntilStable();
  env.server.mutate<Pod>(Tables.pods, "default", launcherPod().metadata.name ?? "", (pod) => {
    pod.spec.nodeName = "node01";
    pod.status = {
      phase: "Running",
      containerStatuses: [
        { name: "compute", ready: true, state: { running: {} } },
        { name: "volumecontainerdisk", ready: true, state: { running: {} } },
      ],
      conditions: [{ type: "Ready", status: "True" }],
    };
  });
  await env.server.settle();
  await syncUntilStable();
  // virt-handler started the guest.
  env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi", (obj) => {
    obj.status = { ...obj.status, phase: "Running" };
  });
  await env.server.settle();
  await syncUntilStable();
  env.events.splice(0);
  env.server.takeWrites();
}

/** What the VM controller does for an addvolume/removevolume: the running VMI's spec changes. */
async function setHotplugVolumes(...names: string[]): Promise<void> {
  env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi", (obj) => {
    const others = (obj.spec.volumes ?? []).filter((volume) => !volume.persistentVolumeClaim?.hotpluggable);
    obj.spec.volumes = [...others, ...names.map(hotplugVolume)];
    const disks = (obj.spec.domain.devices.disks ?? []).filter((disk) => !disk.name.startsWith("hp"));
    obj.spec.domain.devices.disks = [
      ...disks,
      ...names.map((name) => ({ name, disk: { bus: "scsi" as const } })),
    ];
  });
  await env.server.settle();
}

/** The kubelet's side: the attachment pod runs (its one container ready) or is still pending. */
async function attachmentPodReports(name: string, status: PodStatus): Promise<void> {
  env.server.mutate<Pod>(Tables.pods, "default", name, (pod) => {
    pod.spec.nodeName = "node01";
    pod.status = status;
  });
  await env.server.settle();
}
const runningAttachment: PodStatus = {
  phase: "Running",
  containerStatuses: [{ name: "hotplug-disk", ready: true, state: { running: {} } }],
};

/** virt-handler's side of the volume status. */
async function handlerReports(volume: string, phase: string): Promise<void> {
  env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi", (obj) => {
    const entry = obj.status?.volumeStatus?.find((candidate) => candidate.name === volume);
    if (!entry) throw new Error(`no status for ${volume}`);
    entry.phase = phase;
  });
  await env.server.settle();
}

describe("creating the attachment pod", () => {
  it("creates one attachment pod on the launcher's node, controlled by the launcher Pod", async () => {
    await runningVMI();
    seedPVC("hp1-claim", "Filesystem");
    seedPVC("hp2-claim", "Block");
    await setHotplugVolumes("hp1", "hp2");
    await sync();
    const pod = onlyAttachmentPod();
    const launcher = launcherPod();
    expect(pod.metadata.generateName).toBe("hp-volume-");
    expect(pod.metadata.ownerReferences).toEqual([
      {
        apiVersion: "v1",
        kind: "Pod",
        name: launcher.metadata.name,
        uid: launcher.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [
        { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node01"] }] },
      ],
    });
    expect(pod.spec.volumes?.map((volume) => volume.name)).toEqual(["hotplug-disks", "hp1", "hp2"]);
    const hp2 = env.server.get<{ metadata: { uid: string } }>(Tables.pvcs, "default", "hp2-claim");
    expect(pod.spec.containers[0]?.volumeDevices).toEqual([
      { name: "hp2", devicePath: `/path/hp2/${hp2?.metadata.uid}` },
    ]);
    expect(env.events).toContain(`Normal SuccessfulCreate Created attachment pod ${pod.metadata.name}`);
  });

  it("creates exactly one pod under repeated syncs before the cache sees it", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    env.server.hold();
    for (let round = 0; round < 3; round++) await env.vmiController.execute(key).catch(() => undefined);
    expect(attachmentPods()).toHaveLength(1);
    env.server.release();
    await env.server.settle();
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(1);
    expect(env.events.filter((event) => event.includes("Created attachment pod"))).toHaveLength(1);
  });

  it("waits for a claim that does not exist yet: no pod, the volume Pending with upstream's reason", async () => {
    await runningVMI();
    await setHotplugVolumes("hp1");
    await expect(env.vmiController.execute(key)).rejects.toThrow(
      "Error determining volume status didn't find PVC hp1-claim",
    );
    await env.server.settle();
    expect(attachmentPods()).toHaveLength(0);
    expect(volumeStatus("hp1")).toEqual({
      name: "hp1",
      target: "",
      hotplugVolume: {},
      phase: "Pending",
      reason: "FailedPvcNotFound",
      message: "PVC hp1-claim not found",
    });
    seedPVC("hp1-claim");
    await env.server.settle();
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(1);
  });

  it("does nothing for a VMI whose launcher Pod is not ready", async () => {
    env.server.seed(Tables.vmis, vmiFixture("testvmi"));
    await env.server.settle();
    await syncUntilStable();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(0);
  });
});

describe("the volume status", () => {
  it("moves Bound → AttachedToNode once the pod exists, and gives its uid once it runs", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await sync();
    // The cache had not seen the new pod yet: the phase comes from the claim.
    expect(volumeStatus("hp1")).toMatchObject({
      phase: "Bound",
      reason: "PVCNotReady",
      message: "PVC is in phase Bound",
      hotplugVolume: {},
    });
    await syncUntilStable();
    const pod = onlyAttachmentPod();
    const message = `Created hotplug attachment pod ${pod.metadata.name}, for volume hp1`;
    expect(volumeStatus("hp1")).toEqual({
      name: "hp1",
      target: "",
      phase: "AttachedToNode",
      reason: "SuccessfulCreate",
      message,
      hotplugVolume: { attachPodName: pod.metadata.name },
      persistentVolumeClaimInfo: expect.objectContaining({
        claimName: "hp1-claim",
        volumeMode: "Filesystem",
      }),
    });
    expect(env.events).toContain(`Normal SuccessfulCreate ${message}`);
    await attachmentPodReports(pod.metadata.name ?? "", runningAttachment);
    await syncUntilStable();
    expect(volumeStatus("hp1")?.hotplugVolume).toEqual({
      attachPodName: pod.metadata.name,
      attachPodUID: pod.metadata.uid,
    });
  });

  it("leaves virt-handler's phases alone, patching volumeStatus guarded by a test of what it read", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    await attachmentPodReports(onlyAttachmentPod().metadata.name ?? "", runningAttachment);
    await syncUntilStable();
    for (const phase of ["MountedToPod", "Ready"]) {
      await handlerReports("hp1", phase);
      expect(await syncUntilStable()).toEqual([]);
      expect(volumeStatus("hp1")?.phase).toBe(phase);
    }
    // A second volume: the patch replaces volumeStatus only if it still is what the controller read.
    seedPVC("hp2-claim");
    await setHotplugVolumes("hp1", "hp2");
    env.server.takeWrites();
    await sync();
    const patch = env.server.writeBodies.find(
      (body) =>
        Array.isArray(body) && body.some((op: { path?: string }) => op.path === "/status/volumeStatus"),
    ) as Array<{ op: string; path: string; value: unknown }>;
    expect(patch.filter((op) => op.path === "/status/volumeStatus").map((op) => op.op)).toEqual([
      "test",
      "replace",
    ]);
    expect(volumeStatus("hp1")?.phase).toBe("Ready");
  });

  it("does not overwrite a phase virt-handler wrote after the controller read the VMI", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    // The pod runs: the controller will want to give its uid.
    await attachmentPodReports(onlyAttachmentPod().metadata.name ?? "", runningAttachment);
    // virt-handler's write lands after the controller's cache was read, before its patch.
    env.server.hold();
    await handlerReports("hp1", "MountedToPod");
    await expect(env.vmiController.execute(key)).rejects.toThrow();
    expect(volumeStatus("hp1")?.phase).toBe("MountedToPod");
    expect(volumeStatus("hp1")?.hotplugVolume?.attachPodUID).toBeUndefined();
    env.server.release();
    await env.server.settle();
    await syncUntilStable();
    expect(volumeStatus("hp1")?.hotplugVolume?.attachPodUID).toBe(onlyAttachmentPod().metadata.uid);
    expect(volumeStatus("hp1")?.phase).toBe("MountedToPod");
  });
});

describe("replacing the attachment pod", () => {
  it("creates a pod for the new set of volumes and deletes the old one once the new one runs", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    seedPVC("hp2-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    const first = onlyAttachmentPod();
    await attachmentPodReports(first.metadata.name ?? "", runningAttachment);
    await syncUntilStable();

    await setHotplugVolumes("hp1", "hp2");
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(2);
    const second = attachmentPods().find((pod) => pod.metadata.name !== first.metadata.name);
    expect(second?.spec.volumes?.map((volume) => volume.name)).toEqual(["hotplug-disks", "hp1", "hp2"]);
    // The old pod keeps running while the new one is pending.
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(2);

    await attachmentPodReports(second?.metadata.name ?? "", runningAttachment);
    env.server.takeWrites();
    await sync();
    const writes = env.server.takeWrites();
    expect(writes).toContain(`delete pods default/${first.metadata.name}`);
    expect(env.events).toContain(`Normal SuccessfulDelete Deleted attachment pod ${first.metadata.name}`);
    await syncUntilStable();
    expect(attachmentPods().map((pod) => pod.metadata.name)).toEqual([second?.metadata.name]);
  });

  it("deletes an attachment pod with grace period 0", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    await setHotplugVolumes();
    await sync();
    const index = env.server.writes.findIndex((write) => write.startsWith("delete pods"));
    expect(env.server.writeBodies[index]).toMatchObject({ gracePeriodSeconds: 0 });
  });
});

describe("unplugging", () => {
  it("keeps the pod while virt-handler still has the volume, then deletes it and drops the status", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    const pod = onlyAttachmentPod();
    await attachmentPodReports(pod.metadata.name ?? "", runningAttachment);
    await syncUntilStable();
    await handlerReports("hp1", "Ready");

    await setHotplugVolumes();
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(1);
    expect(volumeStatus("hp1")).toMatchObject({
      phase: "Ready",
      hotplugVolume: { attachPodName: pod.metadata.name, attachPodUID: pod.metadata.uid },
    });

    // virt-handler took the volume out of the launcher.
    await handlerReports("hp1", "UnMountedFromPod");
    await sync();
    expect(attachmentPods()).toHaveLength(0);
    expect(env.events).toContain(`Normal SuccessfulDelete Deleted attachment pod ${pod.metadata.name}`);
    await syncUntilStable();
    expect(volumeStatus("hp1")).toBeUndefined();
    expect(vmi()?.status?.volumeStatus?.map((entry) => entry.name)).toEqual(["containerdisk"]);
  });

  it("reports Detaching for an unplugged volume virt-handler never mounted", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    // The kubelet is slow to remove the pod (a finalizer holds it).
    const pod = onlyAttachmentPod();
    env.server.mutate<Pod>(Tables.pods, "default", pod.metadata.name ?? "", (obj) => {
      obj.metadata.finalizers = ["test/hold"];
    });
    await env.server.settle();
    await setHotplugVolumes();
    await sync();
    expect(volumeStatus("hp1")).toMatchObject({ phase: "Detaching" });
    await syncUntilStable();
    const message = `Deleted hotplug attachment pod ${pod.metadata.name}, for volume hp1`;
    expect(volumeStatus("hp1")).toMatchObject({ phase: "Detaching", reason: "SuccessfulDelete", message });
    env.server.remove(Tables.pods, "default", pod.metadata.name ?? "");
    await env.server.settle();
    await syncUntilStable();
    expect(volumeStatus("hp1")).toBeUndefined();
  });

  it("a final VMI's attachment pods are deleted", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi", (obj) => {
      obj.status = { ...obj.status, phase: "Succeeded" };
    });
    await env.server.settle();
    await syncUntilStable();
    expect(attachmentPods()).toHaveLength(0);
  });

  it("the attachment pods of a launcher Pod that ended are deleted", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    await syncUntilStable();
    env.server.mutate<Pod>(Tables.pods, "default", launcherPod().metadata.name ?? "", (pod) => {
      pod.status = { ...pod.status, phase: "Failed" };
    });
    await env.server.settle();
    await sync();
    expect(attachmentPods()).toHaveLength(0);
  });
});

describe("waking the VMI", () => {
  async function drain(): Promise<string[]> {
    const keys: string[] = [];
    while (env.vmiController.queue.len() > 0) {
      const item = await env.vmiController.queue.get();
      if (item === undefined) break;
      keys.push(item);
      env.vmiController.queue.done(item);
    }
    return keys;
  }

  it("an attachment pod's events reach its VMI through the launcher Pod", async () => {
    await runningVMI();
    seedPVC("hp1-claim");
    await setHotplugVolumes("hp1");
    env.server.hold();
    await env.vmiController.execute(key);
    // The creation is expected until the pod's add event, resolved through its owner Pod, arrives.
    expect(env.vmiController.podExpectations.satisfiedExpectations(key)).toBe(false);
    env.server.release();
    await env.server.settle();
    expect(env.vmiController.podExpectations.satisfiedExpectations(key)).toBe(true);

    await drain();
    await attachmentPodReports(onlyAttachmentPod().metadata.name ?? "", runningAttachment);
    expect(await drain()).toEqual([key]);

    await setHotplugVolumes();
    await drain();
    env.server.hold();
    await env.vmiController.execute(key);
    expect(env.vmiController.podExpectations.satisfiedExpectations(key)).toBe(false);
    env.server.release();
    await env.server.settle();
    expect(env.vmiController.podExpectations.satisfiedExpectations(key)).toBe(true);
    expect(await drain()).toContain(key);
  });

  it("a Pod controlled by a Pod that is not a launcher wakes nothing", async () => {
    await runningVMI();
    await drain();
    env.server.seed(Tables.pods, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "stray",
        namespace: "default",
        labels: { "kubevirt.io": "hotplug-disk" },
        ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "unknown", uid: "x", controller: true }],
      },
      spec: { containers: [{ name: "c" }] },
    });
    await env.server.settle();
    expect(await drain()).toEqual([]);
  });
});

describe("the pure rules", () => {
  const pod = (name: string, volumes: string[], extra: Partial<Pod["metadata"]> = {}): Pod => ({
    metadata: { name, ...extra },
    spec: {
      containers: [],
      volumes: [
        { name: "hotplug-disks", emptyDir: {} },
        ...volumes.map((volume) => ({
          name: volume,
          persistentVolumeClaim: { claimName: `${volume}-claim` },
        })),
      ],
    },
  });

  it("matches a pod to the ready volumes by its claims", () => {
    expect(
      podVolumesMatchesReadyVolumes(pod("p", ["a", "b"]), [hotplugVolume("b"), hotplugVolume("a")]),
    ).toBe(true);
    expect(podVolumesMatchesReadyVolumes(pod("p", ["a"]), [hotplugVolume("a"), hotplugVolume("b")])).toBe(
      false,
    );
    expect(
      podVolumesMatchesReadyVolumes(pod("p", ["a", "c"]), [hotplugVolume("a"), hotplugVolume("b")]),
    ).toBe(false);
  });

  it("needs handling unless the only pod holds exactly the hotplugged volumes", () => {
    expect(needsHandleHotplug([], [])).toBe(false);
    expect(needsHandleHotplug([hotplugVolume("a")], [])).toBe(true);
    expect(needsHandleHotplug([hotplugVolume("a")], [pod("p", ["a"])])).toBe(false);
    expect(needsHandleHotplug([], [pod("p", ["a"])])).toBe(true);
    expect(needsHandleHotplug([hotplugVolume("a")], [pod("p", ["a"]), pod("q", ["a"])])).toBe(true);
  });

  it("the active pod holds the ready volumes and is not being deleted; old pods come newest first", () => {
    const active = pod("active", ["a"]);
    const going = pod("going", ["a"], { deletionTimestamp: "2026-01-01T00:00:00Z" });
    const older = pod("older", [], { creationTimestamp: "2026-01-01T00:00:00Z" });
    const newer = pod("newer", ["b"], { creationTimestamp: "2026-01-01T00:01:00Z" });
    const { current, old } = getActiveAndOldAttachmentPods(
      [hotplugVolume("a")],
      [older, active, going, newer],
    );
    expect(current?.metadata.name).toBe("active");
    expect(old.map((p) => p.metadata.name)).toEqual(["newer", "older"]);
  });

  it("a claim is ready once it exists, unless a DataVolume controls it and has not succeeded", () => {
    const claim = (ownerKind?: string) => () => ({
      metadata: {
        name: "c",
        namespace: "ns",
        ...(ownerKind
          ? {
              ownerReferences: [{ apiVersion: "x", kind: ownerKind, name: "dv", uid: "u", controller: true }],
            }
          : {}),
      },
      spec: {},
      status: { phase: "Pending" },
    });
    const volume = { name: "v", persistentVolumeClaim: { claimName: "c" } };
    expect(volumeReadyToAttachToNode("ns", volume, claim())).toEqual({ ready: true, wffc: false });
    expect(() => volumeReadyToAttachToNode("ns", volume, () => undefined)).toThrow("didn't find PVC c");
    // Without CDI no DataVolume is ever found.
    expect(() => volumeReadyToAttachToNode("ns", volume, claim("DataVolume"))).toThrow(
      "unable to find datavolume ns/dv",
    );
    const dv = (phase: string) => () => ({ metadata: { name: "dv" }, spec: {}, status: { phase } });
    expect(volumeReadyToAttachToNode("ns", volume, claim("DataVolume"), dv("Succeeded"))).toEqual({
      ready: true,
      wffc: false,
    });
    expect(volumeReadyToAttachToNode("ns", volume, claim("DataVolume"), dv("WaitForFirstConsumer"))).toEqual({
      ready: false,
      wffc: true,
    });
  });
});
