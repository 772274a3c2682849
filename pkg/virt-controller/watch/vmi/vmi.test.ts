import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoredVMI } from "../../../controller/resources.js";
import type { Pod, PodStatus } from "../../../api/core/v1/pod.js";
import {
  startControllerEnv,
  syncOnce,
  syncUntilStable as syncUntil,
  Tables,
  TestLauncherSettings,
  vmiFixture,
  type ControllerEnv,
} from "../../testing/controller-env.js";

// The VMI controller against an in-memory apiserver: the launcher Pod it creates and deletes, and the
// phases, conditions and bookkeeping it reports, as upstream's vmi_test.go checks them.

let env: ControllerEnv;
beforeEach(async () => {
  env = await startControllerEnv();
});
afterEach(() => env.stop());

const key = "default/testvmi";
const vmi = () => env.server.get<StoredVMI>(Tables.vmis, "default", "testvmi");
const pods = () => env.server.list<Pod>(Tables.pods);
const onlyPod = (): Pod => {
  const [pod, ...more] = pods();
  if (!pod || more.length > 0) throw new Error(`expected one Pod, found ${pods().length}`);
  return pod;
};

const sync = () => syncOnce(env, "vmi", key);
const syncUntilStable = () => syncUntil(env, "vmi", key);

async function seedVMI(
  status: StoredVMI["status"] = { phase: "Pending" },
  change?: (vmi: StoredVMI) => void,
): Promise<void> {
  const fixture = vmiFixture("testvmi", status);
  change?.(fixture);
  env.server.seed(Tables.vmis, fixture);
  await env.server.settle();
}

/** The kubelet's side: the Pod is bound to a node and reports the given status. */
async function podReports(status: PodStatus, nodeName = "node01"): Promise<void> {
  const pod = onlyPod();
  env.server.mutate<Pod>(Tables.pods, "default", pod.metadata.name ?? "", (obj) => {
    obj.spec.nodeName = nodeName;
    obj.status = { ...obj.status, ...status };
  });
  await env.server.settle();
}

const runningPodStatus: PodStatus = {
  phase: "Running",
  qosClass: "Burstable",
  containerStatuses: [
    { name: "compute", ready: false, state: { running: {} } },
    { name: "volumecontainerdisk", ready: true, state: { running: {} } },
  ],
};

describe("creating the launcher Pod", () => {
  it("creates one Pod for a Pending VMI and moves it to Scheduling", async () => {
    await seedVMI();
    await sync();
    const pod = onlyPod();
    expect(env.server.takeWrites()).toEqual([
      `create pods default/${pod.metadata.name}`,
      `patch pods/status default/${pod.metadata.name}`,
      "update virtualmachineinstances default/testvmi",
    ]);
    expect(pod.metadata.generateName).toBe("virt-launcher-testvmi-");
    expect(pod.metadata.ownerReferences?.[0]).toMatchObject({
      kind: "VirtualMachineInstance",
      uid: vmi()?.metadata?.uid,
      controller: true,
    });
    expect(pod.status?.conditions).toEqual([
      expect.objectContaining({
        type: "kubevirt.io/virtual-machine-unpaused",
        status: "True",
        reason: "NotPaused",
      }),
    ]);
    expect(vmi()?.status).toMatchObject({
      phase: "Scheduling",
      launcherContainerImageVersion: TestLauncherSettings.launcherImage,
      phaseTransitionTimestamps: [{ phase: "Scheduling", phaseTransitionTimestamp: "2026-01-01T00:00:00Z" }],
      conditions: [expect.objectContaining({ type: "Ready", status: "False", reason: "GuestNotRunning" })],
    });
    expect(env.events).toEqual([`Normal SuccessfulCreate Created virtual machine pod ${pod.metadata.name}`]);
  });

  it("records the active Pod, then writes nothing more", async () => {
    await seedVMI();
    await sync();
    env.server.takeWrites();
    await sync();
    expect(env.server.takeWrites()).toEqual(["update virtualmachineinstances default/testvmi"]);
    expect(vmi()?.status?.activePods).toEqual({ [onlyPod().metadata.uid ?? ""]: "" });
    await sync();
    expect(env.server.takeWrites()).toEqual([]);
  });

  it("does not create a second Pod while the cache has not seen the first", async () => {
    await seedVMI();
    env.server.hold();
    for (let round = 0; round < 3; round++) await env.vmiController.execute(key).catch(() => undefined);
    expect(pods()).toHaveLength(1);
    env.server.release();
    await env.server.settle();
    await syncUntilStable();
    expect(pods()).toHaveLength(1);
  });

  it("refuses to render what kubevirt-ts does not support, saying so in Synchronized", async () => {
    await seedVMI({ phase: "Pending" }, (fixture) => {
      fixture.spec.domain.devices.tpm = {};
    });
    await expect(env.vmiController.execute(key)).rejects.toThrow(/failed to render launch manifest: .*tpm/);
    await env.server.settle();
    expect(pods()).toHaveLength(0);
    expect(vmi()?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Synchronized", status: "False", reason: "FailedCreate" }),
    );
  });
});

describe("a VMI on multus networks", () => {
  const nads = "k8s.cni.cncf.io/network-attachment-definitions";
  const withSecondaryNetwork = (fixture: StoredVMI) => {
    fixture.spec.domain.devices.interfaces?.push({ name: "attachnet1", bridge: {} });
    fixture.spec.networks?.push({ name: "attachnet1", multus: { networkName: "ns1/attachnet1" } });
  };

  it("fails to render while the NAD is missing: Synchronized=False with upstream's message, no Pod", async () => {
    await seedVMI({ phase: "Pending" }, withSecondaryNetwork);
    const message =
      "failed to render launch manifest: failed to locate network attachment definition ns1/attachnet1";
    await expect(env.vmiController.execute(key)).rejects.toThrow(message);
    await env.server.settle();
    expect(pods()).toHaveLength(0);
    expect(vmi()?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Synchronized", status: "False", reason: "FailedCreate", message }),
    );
  });

  it("asks multus for the network once the NAD exists, and reports the pod interfaces multus made", async () => {
    env.server.seed(nads, {
      apiVersion: "k8s.cni.cncf.io/v1",
      kind: "NetworkAttachmentDefinition",
      metadata: { name: "attachnet1", namespace: "ns1" },
    });
    await seedVMI({ phase: "Pending" }, withSecondaryNetwork);
    await syncUntilStable();
    expect(onlyPod().metadata.annotations?.["k8s.v1.cni.cncf.io/networks"]).toBe(
      '[{"name":"attachnet1","namespace":"ns1","interface":"pod17274e5ba35"}]',
    );
    env.server.mutate<Pod>(Tables.pods, "default", onlyPod().metadata.name ?? "", (pod) => {
      pod.metadata.annotations = {
        ...pod.metadata.annotations,
        "k8s.v1.cni.cncf.io/network-status": JSON.stringify([
          { name: "kindnet", interface: "eth0", default: true },
          { name: "ns1/attachnet1", interface: "pod17274e5ba35" },
        ]),
      };
    });
    await podReports(runningPodStatus);
    await sync();
    expect(vmi()?.status?.interfaces).toEqual([
      { name: "default", podInterfaceName: "eth0" },
      { name: "attachnet1", infoSource: "multus-status", podInterfaceName: "pod17274e5ba35" },
    ]);
  });
});

/** A claim as the apiserver stores it; `Pending` is a WaitForFirstConsumer claim before scheduling. */
function seedPVC(name: string, phase: "Bound" | "Pending", volumeMode?: "Block" | "Filesystem"): void {
  env.server.seed(Tables.pvcs, {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, namespace: "default" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "1Gi" } },
      ...(volumeMode ? { volumeMode } : {}),
    },
    status: { phase, ...(phase === "Bound" ? { capacity: { storage: "2Gi" } } : {}) },
  });
}

const withClaim = (claimName: string) => (fixture: StoredVMI) => {
  fixture.spec.domain.devices.disks?.push({ name: "data", disk: { bus: "virtio" } });
  fixture.spec.volumes?.push({ name: "data", persistentVolumeClaim: { claimName } });
};

describe("waiting for claims", () => {
  it("creates no Pod while a claim does not exist, saying so as upstream", async () => {
    await seedVMI({ phase: "Pending" }, withClaim("missing"));
    await sync();
    expect(pods()).toHaveLength(0);
    const message = "PVC default/missing does not exist, waiting for it to appear";
    expect(env.events).toEqual([`Normal FailedPvcNotFound ${message}`]);
    expect(vmi()?.status?.phase).toBe("Pending");
    expect(vmi()?.status?.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "Synchronized",
          status: "False",
          reason: "FailedPvcNotFound",
          message,
        }),
        expect.objectContaining({ type: "PodScheduled", status: "False", reason: "Unschedulable", message }),
      ]),
    );
  });

  it("creates the Pod once the claim appears, even before it is bound (WaitForFirstConsumer)", async () => {
    await seedVMI({ phase: "Pending" }, withClaim("late"));
    await sync();
    expect(pods()).toHaveLength(0);
    seedPVC("late", "Pending");
    await env.server.settle();
    await sync();
    const pod = onlyPod();
    expect(pod.spec.volumes).toContainEqual({ name: "data", persistentVolumeClaim: { claimName: "late" } });
    expect(pod.spec.containers[0]?.volumeMounts).toContainEqual({
      name: "data",
      mountPath: "/var/run/kubevirt-private/vmi-disks/data",
    });
    expect(vmi()?.status?.phase).toBe("Scheduling");
  });

  it("passes a Block claim as a device and fills the claim's info when handing over", async () => {
    seedPVC("bootpvc", "Bound", "Block");
    await seedVMI({ phase: "Pending" }, withClaim("bootpvc"));
    await syncUntilStable();
    expect(onlyPod().spec.containers[0]?.volumeDevices).toEqual([{ name: "data", devicePath: "/dev/data" }]);
    await podReports({
      ...runningPodStatus,
      containerStatuses: [{ name: "compute", ready: true, state: { running: {} } }],
      conditions: [{ type: "Ready", status: "True" }],
    });
    await sync();
    expect(vmi()?.status?.phase).toBe("Scheduled");
    expect(vmi()?.status?.volumeStatus).toContainEqual({
      name: "data",
      target: "",
      persistentVolumeClaimInfo: {
        claimName: "bootpvc",
        accessModes: ["ReadWriteOnce"],
        volumeMode: "Block",
        capacity: { storage: "2Gi" },
        requests: { storage: "1Gi" },
        filesystemOverhead: "0.055",
      },
    });
  });
});

describe("handing over to virt-handler", () => {
  it("a running Pod makes the VMI Scheduled on its node", async () => {
    await seedVMI();
    await syncUntilStable();
    await podReports(runningPodStatus);
    await sync();
    expect(vmi()?.status).toMatchObject({
      phase: "Scheduled",
      nodeName: "node01",
      qosClass: "Burstable",
      migrationTransport: "Unix",
      interfaces: [{ name: "default", podInterfaceName: "eth0" }],
      volumeStatus: [{ name: "containerdisk", target: "" }],
    });
    expect(vmi()?.metadata?.labels?.["kubevirt.io/nodeName"]).toBe("node01");
    await syncUntilStable();
    // The node label follows onto the Pod.
    expect(onlyPod().metadata.labels?.["kubevirt.io/nodeName"]).toBe("node01");
  });

  it("an unschedulable Pod shows as PodScheduled=False on the VMI", async () => {
    await seedVMI();
    await syncUntilStable();
    await podReports(
      {
        phase: "Pending",
        conditions: [
          {
            type: "PodScheduled",
            status: "False",
            reason: "Unschedulable",
            message: "0/2 nodes are available",
          },
        ],
      },
      "",
    );
    await sync();
    expect(vmi()?.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: "PodScheduled",
        status: "False",
        reason: "Unschedulable",
        message: "0/2 nodes are available",
      }),
    );
    expect(vmi()?.status?.phase).toBe("Scheduling");
  });

  it("an image pull error becomes the Synchronized condition", async () => {
    await seedVMI();
    await syncUntilStable();
    await podReports({
      phase: "Pending",
      initContainerStatuses: [
        {
          name: "volumecontainerdisk-init",
          state: { waiting: { reason: "ErrImagePull", message: "not found" } },
        },
      ],
    });
    await env.vmiController.execute(key).catch(() => undefined);
    await env.server.settle();
    expect(vmi()?.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: "Synchronized",
        status: "False",
        reason: "ErrImagePull",
        message: "not found",
      }),
    );
  });
});

describe("failure paths", () => {
  it("a Pod that fails before virt-handler took over fails the VMI", async () => {
    await seedVMI();
    await syncUntilStable();
    await podReports({
      phase: "Failed",
      containerStatuses: [{ name: "compute", state: { terminated: { exitCode: 1 } } }],
    });
    await sync();
    expect(vmi()?.status?.phase).toBe("Failed");
  });

  it("a Pod deleted while scheduling fails the VMI", async () => {
    await seedVMI();
    await syncUntilStable();
    env.server.remove(Tables.pods, "default", onlyPod().metadata.name ?? "");
    await env.server.settle();
    await sync();
    expect(vmi()?.status?.phase).toBe("Failed");
  });

  it("a Running VMI whose Pod vanished is failed with a guarded JSON patch", async () => {
    await seedVMI({ phase: "Running", nodeName: "node01" });
    await sync();
    const body = env.server.writeBodies[0];
    expect(env.server.takeWrites()).toEqual(["patch virtualmachineinstances default/testvmi"]);
    // virt-handler owns the VMI now: each change is guarded by a test of what it was computed from.
    expect(body).toContainEqual({ op: "test", path: "/status/phase", value: "Running" });
    expect(body).toContainEqual({ op: "replace", path: "/status/phase", value: "Failed" });
    expect(vmi()?.status?.phase).toBe("Failed");
  });
});

describe("deletion", () => {
  it("deleting the VMI deletes its Pod, and the finalizer goes once no Pod is left", async () => {
    await seedVMI();
    await syncUntilStable();
    await podReports(runningPodStatus);
    await syncUntilStable();
    const pod = onlyPod();
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi", (obj) => {
      obj.metadata = { ...obj.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    });
    await env.server.settle();
    await sync();
    expect(env.server.takeWrites()).toContain(`delete pods default/${pod.metadata.name}`);
    expect(env.events).toContain(`Normal SuccessfulDelete Deleted virtual machine pod ${pod.metadata.name}`);
    // virt-handler ends the guest and reports the VMI final; the kubelet removes the Pod.
    env.server.mutate<StoredVMI>(Tables.vmis, "default", "testvmi", (obj) => {
      obj.status = { ...obj.status, phase: "Succeeded" };
    });
    env.server.remove(Tables.pods, "default", pod.metadata.name ?? "");
    await env.server.settle();
    await syncUntilStable();
    expect(vmi()).toBeUndefined();
  });
});
