import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { silentLogger, type Clock } from "../controller/index.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { FakeLauncher } from "./testing/fake-launcher-commands.js";
import { FakeVMIs } from "./testing/fake-vmis.js";
import type { VMINetworkSetup } from "./network-setup.js";
import { VirtualMachineController, type VMControllerOptions } from "./vm.js";
import { HotplugMountError, SourceImageMissing } from "./hotplug-disk/mount.js";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const clock: Clock = { now: () => NOW, sleep: async () => undefined };

/** Network setup recording into the launcher's call log, so the order of the two shows. */
class FakeNetwork implements VMINetworkSetup {
  failWith: Error | undefined;
  readonly tornDown: string[] = [];
  constructor(private readonly calls: string[]) {}
  async setup(vmi: VirtualMachineInstance) {
    this.calls.push(`NetworkSetup ${vmi.metadata?.uid}`);
    if (this.failWith) throw this.failWith;
  }
  async teardown(vmi: VirtualMachineInstance) {
    this.tornDown.push(vmi.metadata?.uid ?? "");
  }
}

function vmi(phase: string, node = "node01"): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi", namespace: "default", resourceVersion: "7", uid: "vmi-uid-1" },
    spec: { domain: { devices: {} } },
    status: { phase, nodeName: node },
  };
}

function setup(
  launcher: FakeLauncher | undefined,
  network?: VMINetworkSetup,
  at: Clock = clock,
  more: Partial<VMControllerOptions> = {},
) {
  const vmis = new FakeVMIs();
  const patches: { name: string; patch: object }[] = [];
  const events: { reason: string; type: string; message: string }[] = [];
  const controller = new VirtualMachineController({
    host: "node01",
    vmis,
    launchers: async () => launcher,
    patchStatus: async (_ns, name, patch) => {
      patches.push({ name, patch });
    },
    logger: silentLogger,
    clock: at,
    ...(network ? { network } : {}),
    recorder: { event: (_obj, type, reason, message) => events.push({ type, reason, message }) },
    ...more,
  });
  return { vmis, patches, events, controller };
}

describe("VirtualMachineController.sync", () => {
  it("syncs a scheduled VMI to its launcher and reports Running", async () => {
    const launcher = new FakeLauncher();
    const { vmis, patches, controller } = setup(launcher);
    vmis.set(vmi("Scheduled"));
    const result = await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["SyncVirtualMachine"]);
    expect(patches).toEqual([
      {
        name: "testvmi",
        patch: {
          metadata: { resourceVersion: "7" },
          status: {
            phase: "Running",
            phaseTransitionTimestamps: [
              { phase: "Running", phaseTransitionTimestamp: "2026-11-30T12:00:00Z" },
            ],
            conditions: [
              { type: "LiveMigratable", status: "True" },
              { type: "StorageLiveMigratable", status: "True" },
            ],
            migrationMethod: "LiveMigration",
            selinuxContext: "none",
          },
        },
      },
    ]);
    expect(result).toEqual({ requeueAfter: 5_000 });
  });

  it("warns, as upstream, when the eviction strategy wants a migration the VMI cannot make", async () => {
    const hostModel = (strategy?: string) => {
      const v = vmi("Scheduled");
      v.spec.domain.cpu = { model: "host-model" };
      if (strategy) v.spec.evictionStrategy = strategy;
      return v;
    };
    const warned = async (v: VirtualMachineInstance, more: Partial<VMControllerOptions>) => {
      const { vmis, events, controller } = setup(new FakeLauncher(), undefined, clock, more);
      vmis.set(v);
      await controller.sync("default/testvmi");
      return events.filter((event) => event.reason === "Migrated");
    };
    expect(await warned(hostModel("LiveMigrate"), {})).toEqual([
      {
        type: "Warning",
        reason: "Migrated",
        message:
          'EvictionStrategy is set but vmi is not migratable; the node "node01" does not allow migration with host-model',
      },
    ]);
    // The cluster's strategy counts when the VMI has none; a node with a host model can migrate it.
    expect(await warned(hostModel(), { clusterEvictionStrategy: () => "LiveMigrate" })).toHaveLength(1);
    expect(await warned(hostModel("LiveMigrate"), { hostCpuModel: "EPYC" })).toEqual([]);
    expect(await warned(hostModel("None"), { clusterEvictionStrategy: () => "LiveMigrate" })).toEqual([]);
  });

  it("waits for the launcher socket of a scheduled VMI without writing", async () => {
    const { vmis, patches, controller } = setup(undefined);
    vmis.set(vmi("Scheduled"));
    expect(await controller.sync("default/testvmi")).toEqual({ requeueAfter: 1_000 });
    expect(patches).toEqual([]);
  });

  it("fails a scheduled VMI whose launcher never brought its socket up within 3 minutes", async () => {
    let now = NOW;
    const { vmis, patches, controller } = setup(undefined, undefined, {
      now: () => now,
      sleep: async () => undefined,
    });
    vmis.set(vmi("Scheduled"));
    await controller.sync("default/testvmi");
    now += 180_000;
    await controller.sync("default/testvmi");
    expect(patches).toEqual([]);
    now += 1_000;
    await controller.sync("default/testvmi");
    expect(patches).toMatchObject([{ name: "testvmi", patch: { status: { phase: "Failed" } } }]);
  });

  it("fails a running VMI whose launcher is gone", async () => {
    const { vmis, patches, controller } = setup(undefined);
    vmis.set(vmi("Running"));
    await controller.sync("default/testvmi");
    expect(patches).toEqual([
      {
        name: "testvmi",
        patch: {
          metadata: { resourceVersion: "7" },
          status: {
            phase: "Failed",
            phaseTransitionTimestamps: [
              { phase: "Failed", phaseTransitionTimestamp: "2026-11-30T12:00:00Z" },
            ],
          },
        },
      },
    ]);
  });

  it("leaves VMIs of other nodes alone", async () => {
    const launcher = new FakeLauncher();
    const { vmis, patches, controller } = setup(launcher);
    vmis.set(vmi("Scheduled", "node02"));
    expect(await controller.sync("default/testvmi")).toBeUndefined();
    expect(launcher.calls).toEqual([]);
    expect(patches).toEqual([]);
  });

  it("shuts the domain down when the VMI is deleted, then kills it after the grace period", async () => {
    const launcher = new FakeLauncher();
    const { vmis, patches, controller } = setup(launcher);
    const running = vmi("Running");
    vmis.set(running);
    await launcher.syncVirtualMachine(running);
    vmis.remove(running);
    expect(await controller.sync("default/testvmi")).toEqual({ requeueAfter: 1_000 });
    expect(launcher.calls).toEqual(["SyncVirtualMachine", "Shutdown"]);

    const domain = launcher.domain as DomainObject;
    domain.spec.metadata = {
      kubeVirt: {
        uid: "u1",
        gracePeriod: {
          deletionGracePeriodSeconds: 30,
          deletionTimestamp: new Date(NOW - 31_000).toISOString(),
        },
      },
    } as unknown as NonNullable<DomainObject["spec"]["metadata"]>;
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["SyncVirtualMachine", "Shutdown", "Kill"]);

    launcher.domain = { ...domain, status: { status: "Shutoff", reason: "Destroyed" } };
    expect(await controller.sync("default/testvmi")).toBeUndefined();
    expect(await controller.sync("default/testvmi")).toBeUndefined();
    expect(launcher.calls).toHaveLength(3);
    expect(patches).toEqual([]);
  });
});

describe("VirtualMachineController and the guest agent", () => {
  const agentDomain = (state: string) =>
    ({
      objectMeta: { name: "default_testvmi", namespace: "default" },
      spec: {
        devices: {
          channels: [{ type: "unix", target: { type: "virtio", name: "org.qemu.guest_agent.0", state } }],
        },
      },
      status: { status: "Running", reason: "Unknown" },
    }) as unknown as DomainObject;

  it("asks the launcher about the agent only while its channel is connected, and reports what it says", async () => {
    const launcher = new FakeLauncher();
    const { vmis, patches, controller } = setup(launcher);
    vmis.set(vmi("Running"));
    launcher.domain = agentDomain("disconnected");
    await controller.sync("default/testvmi");
    expect(launcher.calls).not.toContain("GetGuestInfo");

    launcher.domain = agentDomain("connected");
    launcher.guestInfo = { guestAgentVersion: "1.0" }; // no command list: the version decides, and 1.0 is too old
    await controller.sync("default/testvmi");
    expect(launcher.calls).toContain("GetGuestInfo");
    expect(patches.at(-1)?.patch).toMatchObject({
      status: {
        conditions: [
          { type: "LiveMigratable", status: "True" },
          { type: "StorageLiveMigratable", status: "True" },
          { type: "AgentConnected", status: "True" },
          {
            type: "AgentVersionNotSupported",
            status: "True",
            reason: "Guest agent version '1.0' is not supported",
          },
        ],
      },
    });
  });
});

describe("VirtualMachineController pod network step", () => {
  function withNetwork() {
    const launcher = new FakeLauncher();
    const network = new FakeNetwork(launcher.calls);
    return { launcher, network, ...setup(launcher, network) };
  }

  it("prepares the pod network before the first SyncVirtualMachine, and only once per VMI", async () => {
    const { launcher, vmis, controller } = withNetwork();
    vmis.set(vmi("Scheduled"));
    await controller.sync("default/testvmi");
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["NetworkSetup vmi-uid-1", "SyncVirtualMachine", "SyncVirtualMachine"]);
  });

  it("reports a failed setup as upstream does, does not sync, and retries until it succeeds", async () => {
    const { launcher, network, vmis, patches, events, controller } = withNetwork();
    network.failWith = new Error("setup failed, err: pod link (eth0) is missing");
    vmis.set(vmi("Scheduled"));
    const message = "failed to configure vmi network: setup failed, err: pod link (eth0) is missing";
    await expect(controller.sync("default/testvmi")).rejects.toThrow(message);
    expect(launcher.calls).toEqual(["NetworkSetup vmi-uid-1"]);
    expect(events).toEqual([{ type: "Warning", reason: "SyncFailed", message }]);
    expect(patches).toEqual([
      {
        name: "testvmi",
        patch: {
          metadata: { resourceVersion: "7" },
          status: {
            conditions: [
              {
                type: "Synchronized",
                status: "False",
                reason: "Synchronizing with the Domain failed.",
                message,
                lastTransitionTime: "2026-11-30T12:00:00Z",
              },
            ],
          },
        },
      },
    ]);

    network.failWith = undefined;
    vmis.set({ ...vmi("Scheduled"), status: { ...vmi("Scheduled").status, conditions: [] } });
    expect(await controller.sync("default/testvmi")).toEqual({ requeueAfter: 5_000 });
    expect(launcher.calls).toEqual([
      "NetworkSetup vmi-uid-1",
      "NetworkSetup vmi-uid-1",
      "SyncVirtualMachine",
    ]);
  });

  it.each([
    ["of another node", vmi("Scheduled", "node02")],
    ["that finished", vmi("Succeeded")],
    ["that failed", vmi("Failed")],
    ["that already runs (prepared before, maybe by an earlier handler)", vmi("Running")],
  ])("is not run for a VMI %s", async (_case, subject) => {
    const { launcher, vmis, controller } = withNetwork();
    vmis.set(subject);
    await controller.sync("default/testvmi");
    expect(launcher.calls.filter((call) => call.startsWith("NetworkSetup"))).toEqual([]);
  });

  it("waits for the launcher before preparing anything", async () => {
    const calls: string[] = [];
    const network = new FakeNetwork(calls);
    const { vmis, controller } = setup(undefined, network);
    vmis.set(vmi("Scheduled"));
    expect(await controller.sync("default/testvmi")).toEqual({ requeueAfter: 1_000 });
    expect(calls).toEqual([]);
  });

  it("forgets a deleted VMI once its domain is gone, so a new VMI of that name is prepared again", async () => {
    const { launcher, network, vmis, controller } = withNetwork();
    const scheduled = vmi("Scheduled");
    vmis.set(scheduled);
    await controller.sync("default/testvmi");
    launcher.domain = undefined;
    vmis.remove(scheduled);
    await controller.sync("default/testvmi");
    expect(network.tornDown).toEqual(["vmi-uid-1"]);
    vmis.set(scheduled);
    await controller.sync("default/testvmi");
    expect(launcher.calls.filter((call) => call.startsWith("NetworkSetup"))).toHaveLength(2);
  });
});

describe("VirtualMachineController and Filesystem PVCs", () => {
  function withClaim(phase: string): VirtualMachineInstance {
    const subject = vmi(phase);
    subject.spec.volumes = [{ name: "rootdisk", persistentVolumeClaim: { claimName: "rootdisk" } }];
    subject.status = {
      ...subject.status,
      volumeStatus: [
        {
          name: "rootdisk",
          target: "",
          persistentVolumeClaimInfo: { claimName: "rootdisk", capacity: { storage: "1Gi" } },
        },
      ],
    };
    return subject;
  }

  function withHostDisks(failWith?: Error) {
    const launcher = new FakeLauncher();
    const hostDisks = {
      created: [] as VirtualMachineInstance[],
      create: async (subject: VirtualMachineInstance) => {
        launcher.calls.push("CreateHostDisks");
        hostDisks.created.push(subject);
        if (failWith) throw failWith;
      },
    };
    return { launcher, hostDisks, ...setup(launcher, undefined, clock, { hostDisks }) };
  }

  it("sends the launcher a hostDisk in place of the claim, created before the sync; the cache keeps the claim", async () => {
    const { launcher, hostDisks, vmis, controller } = withHostDisks();
    vmis.set(withClaim("Scheduled"));
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["CreateHostDisks", "SyncVirtualMachine"]);
    const expected = [
      {
        name: "rootdisk",
        hostDisk: {
          path: "/var/run/kubevirt-private/vmi-disks/rootdisk/disk.img",
          type: "DiskOrCreate",
          capacity: "1Gi",
          shared: false,
        },
      },
    ];
    expect(launcher.synced[0]?.spec.volumes).toEqual(expected);
    expect(hostDisks.created[0]?.spec.volumes).toEqual(expected);
    expect(vmis.get("default/testvmi")?.spec.volumes).toEqual(withClaim("Scheduled").spec.volumes);
  });

  it("does not create images for a running VMI, but still sends it the hostDisk", async () => {
    const { launcher, vmis, controller } = withHostDisks();
    vmis.set(withClaim("Running"));
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["SyncVirtualMachine"]);
    expect(launcher.synced[0]?.spec.volumes?.[0]?.hostDisk).toBeDefined();
  });

  it("reports a failed image creation as SyncFailed and does not sync", async () => {
    const message = "preparing host-disks failed: unable to create disk.img, not enough space";
    const { launcher, events, vmis, controller } = withHostDisks(new Error(message));
    vmis.set(withClaim("Scheduled"));
    await expect(controller.sync("default/testvmi")).rejects.toThrow(message);
    expect(launcher.calls).toEqual(["CreateHostDisks"]);
    expect(events).toEqual([{ type: "Warning", reason: "SyncFailed", message }]);
  });
});

describe("VirtualMachineController and hotplugged volumes", () => {
  function withHotplug(phase: string, volumePhase: string, inSpec = true): VirtualMachineInstance {
    const subject = vmi(phase);
    subject.spec.volumes = inSpec
      ? [{ name: "hp", persistentVolumeClaim: { claimName: "hp-claim", hotpluggable: true } }]
      : [];
    subject.status = {
      ...subject.status,
      volumeStatus: [
        {
          name: "hp",
          target: "",
          phase: volumePhase,
          hotplugVolume: { attachPodName: "hp-volume-abcde", attachPodUID: "attach-uid" },
          persistentVolumeClaimInfo: { claimName: "hp-claim", volumeMode: "Block" },
        },
      ],
    };
    return subject;
  }

  function withMounter(mounted: boolean, mountError?: Error) {
    const launcher = new FakeLauncher();
    const hotplugVolumes = {
      mount: async () => {
        launcher.calls.push("Mount");
        if (mountError) throw mountError;
      },
      unmount: async () => {
        launcher.calls.push("Unmount");
      },
      unmountAll: async () => {
        launcher.calls.push("UnmountAll");
      },
      isMounted: async () => mounted,
    };
    return { launcher, ...setup(launcher, undefined, clock, { hotplugVolumes }) };
  }

  const volumeStatusOf = (patches: { patch: object }[]) =>
    (patches.at(-1)?.patch as { status?: { volumeStatus?: unknown[] } } | undefined)?.status?.volumeStatus;

  it("mounts a running VMI's hotplug volume before the sync and reports MountedToPod with its event", async () => {
    const { launcher, patches, events, vmis, controller } = withMounter(true);
    vmis.set(withHotplug("Running", "AttachedToNode"));
    const result = await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["Mount", "SyncVirtualMachine", "Unmount"]);
    expect(volumeStatusOf(patches)).toEqual([
      expect.objectContaining({
        name: "hp",
        target: "",
        phase: "MountedToPod",
        reason: "VolumeMountedToPod",
        message: "Volume hp has been mounted in virt-launcher pod",
      }),
    ]);
    expect(events).toContainEqual({
      type: "Normal",
      reason: "VolumeMountedToPod",
      message: "Volume hp has been mounted in virt-launcher pod",
    });
    // It waits for the launcher to attach it: looked at again within a second.
    expect(result).toEqual({ requeueAfter: 1_000 });
  });

  it("reports Ready with the domain disk's target once the domain has it", async () => {
    const { launcher, patches, vmis, controller } = withMounter(true);
    launcher.domain = {
      objectMeta: { name: "default_testvmi", namespace: "default" },
      spec: {
        devices: {
          disks: [
            {
              device: "disk",
              type: "block",
              source: { dev: "/var/run/kubevirt/hotplug-disks/hp" },
              target: { bus: "scsi", device: "sda" },
              alias: { name: "hp", userDefined: true },
            },
          ],
        },
      },
      status: { status: "Running", reason: "Unknown" },
    } as unknown as DomainObject;
    vmis.set(withHotplug("Running", "MountedToPod"));
    const result = await controller.sync("default/testvmi");
    expect(volumeStatusOf(patches)).toEqual([
      expect.objectContaining({
        name: "hp",
        target: "sda",
        phase: "Ready",
        reason: "VolumeReady",
        message: "Successfully attach hotplugged volume hp to VM",
      }),
    ]);
    expect(result).toEqual({ requeueAfter: 5_000 });
  });

  it("reports UnMountedFromPod once a volume that left the spec is out of the pod", async () => {
    const { launcher, patches, vmis, controller } = withMounter(false);
    vmis.set(withHotplug("Running", "Ready", false));
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["Mount", "SyncVirtualMachine", "Unmount"]);
    expect(volumeStatusOf(patches)).toEqual([
      expect.objectContaining({ phase: "UnMountedFromPod", reason: "VolumeUnMountedFromPod" }),
    ]);
  });

  it("does not start a VMI until its hotplug volumes are in the pod", async () => {
    const { launcher, vmis, controller } = withMounter(false);
    vmis.set(withHotplug("Scheduled", "AttachedToNode"));
    expect(await controller.sync("default/testvmi")).toEqual({ requeueAfter: 1_000 });
    expect(launcher.calls).toEqual(["Mount"]);
    vmis.set(withHotplug("Scheduled", "MountedToPod"));
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["Mount", "Mount", "SyncVirtualMachine"]);
  });

  it("reports a claim without its disk image as HotplugFailed and still syncs", async () => {
    const missing = new HotplugMountError(
      "failed to mount filesystem hotplug volume hp: /hp/disk.img not found in pod attach-uid",
      new SourceImageMissing("/hp/disk.img not found in pod attach-uid"),
    );
    const { launcher, events, vmis, controller } = withMounter(false, missing);
    vmis.set(withHotplug("Running", "AttachedToNode"));
    await controller.sync("default/testvmi");
    expect(launcher.calls).toContain("SyncVirtualMachine");
    expect(events).toContainEqual({ type: "Warning", reason: "HotplugFailed", message: missing.message });
  });

  it("fails the sync on any other mount failure", async () => {
    const { launcher, vmis, controller } = withMounter(false, new Error("mount: permission denied"));
    vmis.set(withHotplug("Running", "AttachedToNode"));
    await expect(controller.sync("default/testvmi")).rejects.toThrow("mount: permission denied");
    expect(launcher.calls).toEqual(["Mount"]);
  });

  it("takes every hotplug volume back when the VMI is gone", async () => {
    const { launcher, vmis, controller } = withMounter(false);
    const subject = withHotplug("Running", "Ready");
    vmis.set(subject);
    await controller.sync("default/testvmi");
    launcher.domain = undefined;
    vmis.remove(subject);
    await controller.sync("default/testvmi");
    expect(launcher.calls).toContain("UnmountAll");
  });
});

describe("VirtualMachineController leaves migrations to the migration controllers", () => {
  const migrating = (domainStatus: string, reason: string) => {
    const launcher = new FakeLauncher();
    launcher.domain = {
      objectMeta: { name: "default_testvmi", namespace: "default" },
      spec: { devices: {} },
      status: { status: domainStatus, reason },
    } as unknown as DomainObject;
    const running = vmi("Running");
    running.status!.migrationState = {
      migrationUid: "mig-uid",
      sourceNode: "node01",
      targetNode: "node02",
      startTimestamp: "2026-11-30T11:59:00Z",
    };
    return { launcher, running };
  };

  it("does not sync or report a VMI whose migration is in progress", async () => {
    const { launcher, running } = migrating("Paused", "Migration");
    const { vmis, patches, controller } = setup(launcher);
    vmis.set(running);
    expect(await controller.sync("default/testvmi")).toEqual({ requeueAfter: 5_000 });
    expect(launcher.calls).toEqual([]);
    expect(patches).toEqual([]);
  });

  it("undefines the domain of a guest that migrated away and cleans up this node's state, without touching the VMI", async () => {
    const { launcher, running } = migrating("Shutoff", "Migrated");
    running.status!.migrationState!.endTimestamp = "2026-11-30T11:59:30Z";
    const network = new FakeNetwork([]);
    const stopped: string[] = [];
    const { vmis, patches, controller } = setup(launcher, network, clock, {
      migrationProxy: {
        stopSourceListener: async (key) => void stopped.push(`source ${key}`),
        stopTargetListener: async (key) => void stopped.push(`target ${key}`),
      },
    });
    vmis.set(running);
    await controller.sync("default/testvmi");
    // Undefined, the source launcher gets its final notification and exits: its pod completes.
    expect(launcher.calls).toEqual(["DeleteDomain"]);
    expect(patches).toEqual([]);
    expect(network.tornDown).toEqual(["vmi-uid-1"]);
    expect(stopped).toEqual(["target vmi-uid-1", "source vmi-uid-1"]);
  });

  it("forgets a VMI that left this node's cache for another node, only undefining the domain left behind", async () => {
    const launcher = new FakeLauncher();
    const network = new FakeNetwork([]);
    const { vmis, patches, controller } = setup(launcher, network);
    const moved = vmi("Running", "node02");
    vmis.set(moved);
    vmis.remove(moved);
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["DeleteDomain"]);
    expect(patches).toEqual([]);
    expect(network.tornDown).toEqual(["vmi-uid-1"]);
  });
});
