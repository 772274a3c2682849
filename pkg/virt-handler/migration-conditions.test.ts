// LiveMigratable, StorageLiveMigratable and migrationMethod as upstream's virt-handler sets them: the
// blockers in upstream's order, with its reasons and messages.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import {
  evictionStrategyWarning,
  checkVolumesForMigration,
  liveMigrationCondition,
  storageLiveMigrationCondition,
  withLiveMigrationConditions,
} from "./migration-conditions.js";

const ctx = { bindingPlugins: {}, hostCpuModel: "" };

function vmi(change: (v: VirtualMachineInstance) => void = () => {}): VirtualMachineInstance {
  const v: VirtualMachineInstance = {
    metadata: { name: "v", namespace: "ns" },
    spec: {
      domain: { devices: { disks: [], interfaces: [{ name: "default", masquerade: {} }] } },
      networks: [{ name: "default", pod: {} }],
      volumes: [],
    },
    status: { nodeName: "node01", volumeStatus: [] },
  };
  change(v);
  return v;
}

type AccessMode = "ReadWriteOnce" | "ReadWriteMany";

function withClaim(v: VirtualMachineInstance, accessModes: AccessMode[] | undefined, name = "disk0"): void {
  v.spec.domain.devices.disks!.push({ name, disk: { bus: "virtio" } });
  v.spec.volumes!.push({ name, persistentVolumeClaim: { claimName: `${name}-pvc` } });
  if (accessModes) {
    v.status!.volumeStatus!.push({
      name,
      target: "",
      persistentVolumeClaimInfo: { claimName: `${name}-pvc`, accessModes },
    });
  }
}

const notShared = (claim: string) =>
  `cannot migrate VMI: PVC ${claim} is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`;

describe("LiveMigratable", () => {
  it("is True for a masquerade VMI on shared claims, and the migration moves memory only", () => {
    const result = liveMigrationCondition(
      vmi((v) => withClaim(v, ["ReadWriteMany"])),
      ctx,
    );
    expect(result).toEqual({ condition: { type: "LiveMigratable", status: "True" }, blockMigration: false });
  });

  it("a ReadWriteOnce claim: DisksNotLiveMigratable with upstream's message", () => {
    expect(
      liveMigrationCondition(
        vmi((v) => withClaim(v, ["ReadWriteOnce"])),
        ctx,
      ),
    ).toEqual({
      condition: {
        type: "LiveMigratable",
        status: "False",
        reason: "DisksNotLiveMigratable",
        message: notShared("disk0-pvc"),
      },
      blockMigration: true,
    });
  });

  it("a claim whose access modes are not known yet", () => {
    expect(
      liveMigrationCondition(
        vmi((v) => withClaim(v, undefined)),
        ctx,
      ).condition.message,
    ).toBe(
      "cannot migrate VMI: Unable to determine if PVC disk0-pvc is shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)",
    );
  });

  it("a Filesystem claim the handler turned into a hostDisk is judged by its claim", () => {
    const v = vmi((x) => withClaim(x, ["ReadWriteOnce"]));
    v.spec.volumes![0] = { name: "disk0", hostDisk: { path: "/p/disk.img", type: "DiskOrCreate" } };
    expect(liveMigrationCondition(v, ctx).condition.message).toBe(notShared("disk0-pvc"));
  });

  it("a hostDisk of its own must be shared", () => {
    const v = vmi((x) => x.spec.volumes!.push({ name: "h", hostDisk: { path: "/h.img", type: "Disk" } }));
    expect(liveMigrationCondition(v, ctx).condition).toMatchObject({
      reason: "DisksNotLiveMigratable",
      message: "cannot migrate VMI with non-shared HostDisk",
    });
    v.spec.volumes![0]!.hostDisk!.shared = true;
    expect(liveMigrationCondition(v, ctx).condition.status).toBe("True");
  });

  it("a containerDisk or cloud-init disk is copied (BlockMigration); a read-only CD-ROM is not", () => {
    const v = vmi((x) => {
      x.spec.domain.devices.disks!.push({ name: "cd", cdrom: {} });
      x.spec.volumes!.push({ name: "cd", containerDisk: { image: "i" } });
    });
    expect(checkVolumesForMigration(v)).toEqual({ blockMigration: false });
    v.spec.volumes!.push({ name: "root", containerDisk: { image: "i" } });
    expect(checkVolumesForMigration(v)).toEqual({ blockMigration: true });
  });

  it("the bridge binding on the pod network: InterfaceNotLiveMigratable, before the disks", () => {
    const v = vmi((x) => {
      x.spec.domain.devices.interfaces = [{ name: "default", bridge: {} }];
      withClaim(x, ["ReadWriteOnce"]);
    });
    expect(liveMigrationCondition(v, ctx).condition).toEqual({
      type: "LiveMigratable",
      status: "False",
      reason: "InterfaceNotLiveMigratable",
      message:
        "cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network",
    });
    v.metadata!.annotations = { "kubevirt.io/allow-pod-bridge-network-live-migration": "" };
    expect(liveMigrationCondition(v, ctx).condition.reason).toBe("DisksNotLiveMigratable");
  });

  it("a binding plugin migrates when the cluster's plugin declares migration", () => {
    const v = vmi((x) => (x.spec.domain.devices.interfaces = [{ name: "default", binding: { name: "p" } }]));
    expect(liveMigrationCondition(v, ctx).condition.status).toBe("False");
    expect(
      liveMigrationCondition(v, { ...ctx, bindingPlugins: { p: { migration: {} } } }).condition.status,
    ).toBe("True");
  });

  it("a pod network without its interface", () => {
    const v = vmi((x) => (x.spec.domain.devices.interfaces = [{ name: "other", masquerade: {} }]));
    expect(liveMigrationCondition(v, ctx).condition.message).toBe(
      "no primary interface found for network default",
    );
  });

  it("host-model CPU on a node without one, host devices, persistent reservation, Hyper-V passthrough", () => {
    const cases: Array<[(v: VirtualMachineInstance) => void, string, string]> = [
      [
        (v) => (v.spec.domain.cpu = { model: "host-model" }),
        "CPUModeLiveMigratable",
        'the node "node01" does not allow migration with host-model',
      ],
      [
        (v) => (v.spec.domain.devices.hostDevices = [{ name: "h", deviceName: "d" }]),
        "HostDeviceNotLiveMigratable",
        "VMI uses a PCI host devices",
      ],
      [
        (v) => v.spec.domain.devices.disks!.push({ name: "l", lun: { reservation: true } }),
        "PersistentReservationNotLiveMigratable",
        "VMI uses SCSI persistent reservation",
      ],
      [
        (v) => (v.spec.domain.features = { hypervPassthrough: { enabled: true } }),
        "HypervPassthroughNotLiveMigratable",
        "VMI uses hyperv passthrough",
      ],
      [
        (v) => (v.spec.domain.features = { hyperv: { reenlightenment: { enabled: true } } }),
        "NoTSCFrequencyNotLiveMigratable",
        "HyperV Reenlightenment VMIs cannot migrate when TSC Frequency is not exposed on the cluster: guest timers might be inconsistent",
      ],
    ];
    for (const [change, reason, message] of cases) {
      expect(liveMigrationCondition(vmi(change), ctx).condition).toMatchObject({
        status: "False",
        reason,
        message,
      });
    }
    expect(
      liveMigrationCondition(
        vmi((v) => (v.spec.domain.cpu = { model: "host-model" })),
        { ...ctx, hostCpuModel: "Skylake" },
      ).condition.status,
    ).toBe("True");
  });
});

describe("StorageLiveMigratable", () => {
  it("ignores the disks and joins every other blocker", () => {
    const v = vmi((x) => {
      withClaim(x, ["ReadWriteOnce"]);
      x.spec.domain.devices.interfaces = [{ name: "default", bridge: {} }];
      x.spec.domain.features = { hypervPassthrough: { enabled: true } };
    });
    expect(storageLiveMigrationCondition(v, ctx)).toEqual({
      type: "StorageLiveMigratable",
      status: "False",
      reason: "NotMigratable",
      message:
        "InterfaceNotLiveMigratable: cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network, HypervPassthroughNotLiveMigratable: VMI uses hyperv passthrough",
    });
    expect(
      storageLiveMigrationCondition(
        vmi((x) => withClaim(x, ["ReadWriteOnce"])),
        ctx,
      ).status,
    ).toBe("True");
  });
});

describe("withLiveMigrationConditions", () => {
  it("adds both, keeps a stored one that did not change, and moves a changed LiveMigratable last", () => {
    const rwo = vmi((x) => withClaim(x, ["ReadWriteOnce"]));
    const first = withLiveMigrationConditions([{ type: "Ready", status: "True" }], rwo, ctx);
    expect(first.migrationMethod).toBe("BlockMigration");
    expect(first.conditions.map((c) => [c.type, c.status])).toEqual([
      ["Ready", "True"],
      ["LiveMigratable", "False"],
      ["StorageLiveMigratable", "True"],
    ]);
    // as read back from the apiserver: null times
    const stored = first.conditions.map((c) => ({ ...c, lastProbeTime: null, lastTransitionTime: null }));
    expect(withLiveMigrationConditions(stored as never, rwo, ctx).conditions).toEqual(stored);

    const rwx = vmi((x) => withClaim(x, ["ReadWriteMany"]));
    const next = withLiveMigrationConditions(stored as never, rwx, ctx);
    expect(next.migrationMethod).toBe("LiveMigration");
    expect(next.conditions.map((c) => [c.type, c.status])).toEqual([
      ["Ready", "True"],
      ["StorageLiveMigratable", "True"],
      ["LiveMigratable", "True"],
    ]);
  });
});

describe("evictionStrategyWarning", () => {
  const notMigratable = [{ type: "LiveMigratable", status: "False", message: "cannot migrate VMI: why" }];
  const withStatus = (strategy: string | undefined, migratable?: string): VirtualMachineInstance => ({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "v" },
    spec: { domain: { devices: {} }, ...(strategy ? { evictionStrategy: strategy } : {}) },
    status: migratable ? { conditions: [{ type: "LiveMigratable", status: migratable }] } : {},
  });

  it("warns for LiveMigrate, the VMI's or else the cluster's, when the VMI cannot migrate", () => {
    expect(evictionStrategyWarning(withStatus("LiveMigrate"), notMigratable, undefined)).toBe(
      "EvictionStrategy is set but vmi is not migratable; cannot migrate VMI: why",
    );
    expect(evictionStrategyWarning(withStatus(undefined), notMigratable, "LiveMigrate")).toBeDefined();
    expect(evictionStrategyWarning(withStatus("External"), notMigratable, "LiveMigrate")).toBeUndefined();
    expect(
      evictionStrategyWarning(
        withStatus("LiveMigrate"),
        [{ type: "LiveMigratable", status: "True" }],
        undefined,
      ),
    ).toBeUndefined();
  });

  it("warns for LiveMigrateIfPossible only while the VMI still read as migratable", () => {
    expect(
      evictionStrategyWarning(withStatus("LiveMigrateIfPossible", "True"), notMigratable, undefined),
    ).toBeDefined();
    expect(
      evictionStrategyWarning(withStatus("LiveMigrateIfPossible", "False"), notMigratable, undefined),
    ).toBeUndefined();
  });
});
