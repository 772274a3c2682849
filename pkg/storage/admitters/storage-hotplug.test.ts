// Upstream's storage hotplug admitter (storagehotplug_test.go): which volume and disk changes a running VMI
// takes from KubeVirt's own accounts, and which utility volumes.
import { describe, expect, it } from "vitest";
import type {
  Disk,
  Filesystem,
  VirtualMachineInstanceSpec,
  Volume,
  VolumeStatus,
} from "../../api/generated/v1.js";
import { clusterWith, minimalVMI } from "../../defaults/testing.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { FeatureGate } from "../../virt-config/featuregate/feature-gates.js";
import {
  admitHotplugStorage,
  admitUtilityVolumes,
  getHotplugVolumes,
  getPermanentVolumes,
} from "./storage-hotplug.js";

const name = (index: number) => `volume-name-${index}`;

const volumes = (...indexes: number[]): Volume[] =>
  indexes.map((index) => ({ name: name(index), dataVolume: { name: `dv-name-${index}` } }));

/** `count` statuses, the last `hotplugged` of them hotplug ones. */
function statuses(count: number, hotplugged: number): VolumeStatus[] {
  return Array.from({ length: count }, (_, index) => {
    const status: VolumeStatus = { name: name(index), target: `volume-target-${index}` };
    if (index >= count - hotplugged) {
      status.hotplugVolume = { attachPodName: `test-pod-${index}` };
      status.phase = "Ready";
    }
    return status;
  });
}

const disksWithBus = (bus: string, ...indexes: number[]): Disk[] =>
  indexes.map((index) => ({ name: name(index), disk: { bus }, bootOrder: index + 1 }));
const disks = (...indexes: number[]): Disk[] => disksWithBus("scsi", ...indexes);
const lunDisks = (...indexes: number[]): Disk[] =>
  indexes.map((index) => ({ name: name(index), lun: { bus: "scsi" }, bootOrder: index + 1 }));
const cdromDisks = (...indexes: number[]): Disk[] =>
  indexes.map((index) => ({ name: name(index), cdrom: { bus: "scsi" }, bootOrder: index + 1 }));
const filesystems = (...indexes: number[]): Filesystem[] =>
  indexes.map((index) => ({ name: name(index), virtiofs: {} }));

/** `total` volumes, those at `containerDisks` containerDisks (neither claim nor DataVolume). */
const withContainerDisks = (total: number, ...containerDisks: number[]): Volume[] =>
  volumes(...Array.from({ length: total }, (_, index) => index)).map((volume, index) =>
    containerDisks.includes(index) ? { name: volume.name, containerDisk: { image: "disk" } } : volume,
  );

/** `total` volumes, those at `dumps` memory dump volumes. */
const withMemoryDumps = (total: number, ...dumps: number[]): Volume[] =>
  volumes(...Array.from({ length: total }, (_, index) => index)).map((volume, index) =>
    dumps.includes(index) ? { name: volume.name, memoryDump: { claimName: volume.name } } : volume,
  );

const lastDisk = (list: Disk[], change: (disk: Disk) => void): Disk[] => {
  const last = list.at(-1);
  if (last) change(last);
  return list;
};

const invalid = (message: string, field?: string) =>
  field === undefined
    ? [{ reason: "FieldValueInvalid", message }]
    : [{ reason: "FieldValueInvalid", message, field }];

interface Row {
  newVolumes: Volume[];
  oldVolumes: Volume[];
  newDisks: Disk[];
  oldDisks: Disk[];
  statuses: VolumeStatus[];
  filesystems?: Filesystem[];
  config?: ClusterConfig;
}

const withoutDeclarativeHotplug = () =>
  clusterWith({ developerConfiguration: { disabledFeatureGates: [FeatureGate.DeclarativeHotplugVolumes] } });
const withGates = (...featureGates: string[]) => clusterWith({ developerConfiguration: { featureGates } });

function admit(row: Row) {
  const newVMI = minimalVMI();
  newVMI.spec.volumes = row.newVolumes;
  newVMI.spec.domain.devices.disks = row.newDisks;
  if (row.filesystems) newVMI.spec.domain.devices.filesystems = row.filesystems;
  return admitHotplugStorage(
    {
      newVolumes: row.newVolumes,
      oldVolumes: row.oldVolumes,
      newDisks: row.newDisks,
      oldDisks: row.oldDisks,
      volumeStatuses: row.statuses,
      newVMI,
    },
    row.config ?? withoutDeclarativeHotplug(),
  );
}

describe("the hotplug and permanent volumes, from the volume statuses", () => {
  const byName = (list: Volume[]) => new Map(list.map((volume) => [volume.name, volume]));

  it.each<[string, Volume[], VolumeStatus[], Volume[]]>([
    ["no statuses, no volumes", [], [], []],
    ["statuses without hotplug", [], statuses(2, 0), []],
    ["one hotplug status", volumes(0, 1), statuses(2, 1), volumes(1)],
    ["several hotplug statuses", volumes(0, 1, 2, 3), statuses(4, 2), volumes(2, 3)],
    ["a volume without a status yet", volumes(0, 1), statuses(1, 0), volumes(1)],
  ])("hotplug: %s", (_, list, volumeStatuses, expected) => {
    expect(getHotplugVolumes(list, volumeStatuses)).toEqual(byName(expected));
  });

  it.each<[string, Volume[], VolumeStatus[], Volume[]]>([
    ["no volumes", [], [], []],
    ["all hotplugged", volumes(0, 1, 2, 3), statuses(4, 4), []],
    ["none hotplugged", volumes(0, 1, 2, 3), statuses(4, 0), volumes(0, 1, 2, 3)],
    ["a single one, not hotplugged", volumes(0), statuses(1, 0), volumes(0)],
    ["one of four hotplugged", volumes(0, 1, 2, 3), statuses(4, 1), volumes(0, 1, 2)],
  ])("permanent: %s", (_, list, volumeStatuses, expected) => {
    expect(getPermanentVolumes(list, volumeStatuses)).toEqual(byName(expected));
  });
});

describe("admitHotplugStorage", () => {
  it.each<[string, Row]>([
    [
      "nothing there and nothing added",
      { newVolumes: [], oldVolumes: [], newDisks: [], oldDisks: [], statuses: [] },
    ],
    [
      "a new DataVolume with a scsi disk",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: disks(0, 1),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
    ],
    [
      "a new claim with a scsi disk",
      {
        newVolumes: [
          ...volumes(0),
          { name: name(1), persistentVolumeClaim: { claimName: "pvc", hotpluggable: true } },
        ],
        oldVolumes: volumes(0),
        newDisks: disks(0, 1),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
    ],
    [
      "a hotplugged volume that stays as it is",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0, 1),
        newDisks: disks(0, 1),
        oldDisks: disks(0, 1),
        statuses: statuses(2, 1),
      },
    ],
    [
      "a new volume with a virtio disk",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: disksWithBus("virtio", 0, 1),
        oldDisks: disksWithBus("virtio", 0),
        statuses: statuses(1, 0),
      },
    ],
    [
      "a new virtio disk with a dedicated IOThread",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: lastDisk(disksWithBus("virtio", 0, 1), (disk) => (disk.dedicatedIOThread = true)),
        oldDisks: disksWithBus("virtio", 0),
        statuses: statuses(1, 0),
      },
    ],
    [
      "hotplugged LUNs on scsi",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0, 1),
        newDisks: lunDisks(0, 1),
        oldDisks: lunDisks(0, 1),
        statuses: statuses(2, 1),
      },
    ],
    [
      "a volume injected into a CD-ROM",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: cdromDisks(0, 1),
        oldDisks: cdromDisks(0, 1),
        statuses: statuses(1, 0),
      },
    ],
    [
      "a CD-ROM ejected with DeclarativeHotplugVolumes",
      {
        newVolumes: volumes(0),
        oldVolumes: volumes(0, 1),
        newDisks: cdromDisks(0, 1),
        oldDisks: cdromDisks(0, 1),
        statuses: statuses(1, 0),
        config: withGates(FeatureGate.DeclarativeHotplugVolumes),
      },
    ],
    [
      "a hotplugged volume removed together with its disk",
      {
        newVolumes: volumes(0),
        oldVolumes: volumes(0, 1),
        newDisks: disks(0),
        oldDisks: disks(0, 1),
        statuses: statuses(2, 1),
      },
    ],
    [
      "a new memory dump volume without a disk",
      {
        newVolumes: withMemoryDumps(3, 2),
        oldVolumes: volumes(0, 1),
        newDisks: disks(0, 1),
        oldDisks: disks(0, 1),
        statuses: statuses(3, 1),
      },
    ],
    [
      "a new volume used by a filesystem",
      {
        newVolumes: volumes(0, 1, 2),
        oldVolumes: volumes(0, 1),
        newDisks: disks(0, 2),
        oldDisks: disks(0),
        filesystems: filesystems(1),
        statuses: statuses(3, 1),
        config: withGates(FeatureGate.VirtIOFSStorageVolumes),
      },
    ],
  ])("admits %s", (_, row) => {
    expect(admit(row)).toEqual([]);
  });

  it.each<[string, Row, ReturnType<typeof invalid>]>([
    [
      "more volumes than disks",
      {
        newVolumes: volumes(1, 2),
        oldVolumes: volumes(1, 2),
        newDisks: disks(1),
        oldDisks: disks(1),
        statuses: [],
      },
      invalid("mismatch between volumes declared (2) and required (1)"),
    ],
    [
      "more volumes than disks besides a memory dump",
      {
        newVolumes: withMemoryDumps(3, 2),
        oldVolumes: withMemoryDumps(3, 2),
        newDisks: disks(1),
        oldDisks: disks(1),
        statuses: [],
      },
      invalid("mismatch between volumes declared (2) and required (1)"),
    ],
    [
      "more volumes than disks and filesystems",
      {
        newVolumes: volumes(0, 1, 2),
        oldVolumes: volumes(0, 1, 2),
        newDisks: disks(0),
        oldDisks: disks(0),
        filesystems: filesystems(1),
        statuses: statuses(2, 0),
        config: withGates(FeatureGate.VirtIOFSStorageVolumes),
      },
      invalid("mismatch between volumes declared (3) and required (2)"),
    ],
    [
      "a CD-ROM ejected without DeclarativeHotplugVolumes",
      {
        newVolumes: volumes(0),
        oldVolumes: volumes(0, 1),
        newDisks: cdromDisks(0, 1),
        oldDisks: cdromDisks(0, 1),
        statuses: statuses(1, 0),
      },
      invalid("mismatch between volumes declared (1) and required (2)"),
    ],
    [
      "a permanent volume removed",
      { newVolumes: [], oldVolumes: volumes(0), newDisks: [], oldDisks: disks(0), statuses: statuses(1, 0) },
      invalid("Number of permanent volumes has changed"),
    ],
    [
      "a permanent volume changed",
      {
        newVolumes: [{ name: name(0), dataVolume: { name: "another-dv" } }],
        oldVolumes: volumes(0),
        newDisks: disks(0),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
      invalid(`permanent volume ${name(0)}, changed`),
    ],
    [
      "a permanent disk changed",
      {
        newVolumes: volumes(0),
        oldVolumes: volumes(0),
        newDisks: disksWithBus("virtio", 0),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
      invalid(`permanent disk ${name(0)}, changed`),
    ],
    [
      "a hotplugged volume changed",
      {
        newVolumes: withContainerDisks(2, 1),
        oldVolumes: volumes(0, 1),
        newDisks: disks(0, 1),
        oldDisks: disks(0, 1),
        statuses: statuses(1, 0),
      },
      invalid(`hotplug volume ${name(1)}, changed`),
    ],
    [
      "a hotplugged disk changed",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0, 1),
        newDisks: disksWithBus("virtio", 0, 1),
        oldDisks: [...disksWithBus("virtio", 0), ...disks(1)],
        statuses: statuses(2, 1),
      },
      invalid(`hotplug disk ${name(1)}, changed`),
    ],
    [
      "a hotplugged volume whose disk became another's",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0, 1),
        newDisks: [...disks(0), { name: "other", disk: { bus: "scsi" } }],
        oldDisks: disks(0, 1),
        statuses: statuses(2, 1),
      },
      invalid(`volume ${name(1)} doesn't have a matching disk`),
    ],
    [
      "a new volume that is neither claim nor DataVolume",
      {
        newVolumes: withContainerDisks(2, 1),
        oldVolumes: volumes(0),
        newDisks: disks(0, 1),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
      invalid(`volume ${name(1)} is not a PVC or DataVolume`),
    ],
    [
      "a new volume without its disk",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: [{ name: "invalid-volume-name-0" }, { name: "invalid-volume-name-1" }],
        oldDisks: [{ name: "invalid-volume-name-0" }],
        statuses: statuses(1, 0),
      },
      invalid(`disk ${name(1)} does not exist`),
    ],
    [
      "a new disk on sata",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: disksWithBus("sata", 0, 1),
        oldDisks: disksWithBus("sata", 0),
        statuses: statuses(1, 0),
      },
      invalid(
        `Hotplug configuration for disk [${name(1)}] requires bus to be 'scsi' or 'virtio'. [sata] is not permitted.`,
      ),
    ],
    [
      "a new LUN on another bus",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: lastDisk(lunDisks(0, 1), (disk) => (disk.lun = { bus: "invalid" })),
        oldDisks: lunDisks(0),
        statuses: statuses(1, 0),
      },
      invalid(
        `Hotplug configuration for LUN [${name(1)}] requires bus to be 'scsi'. [invalid] is not permitted.`,
      ),
    ],
    [
      "a new CD-ROM",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: cdromDisks(0, 1),
        oldDisks: cdromDisks(0),
        statuses: statuses(1, 0),
      },
      invalid(
        `Hotplug configuration for [${name(1)}] requires diskDevice of type 'disk' or 'lun' to be used.`,
      ),
    ],
    [
      "a new scsi disk with a dedicated IOThread",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: lastDisk(disks(0, 1), (disk) => (disk.dedicatedIOThread = true)),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
      invalid(`Hotplug configuration for [${name(1)}] requires virtio bus for IOThreads.`),
    ],
    [
      "a new disk with boot order 0",
      {
        newVolumes: volumes(0, 1),
        oldVolumes: volumes(0),
        newDisks: lastDisk(disks(0, 1), (disk) => (disk.bootOrder = 0)),
        oldDisks: disks(0),
        statuses: statuses(1, 0),
      },
      invalid(
        "spec.domain.devices.disks[1] must have a boot order > 0, if supplied",
        "spec.domain.devices.disks[1].bootOrder",
      ),
    ],
  ])("refuses %s", (_, row, expected) => {
    expect(admit(row)).toEqual(expected);
  });

  it.each([false, true])("lets a migrated volume change its claim (hotpluggable: %s)", (hotpluggable) => {
    const claim = (volume: string, claimName: string): Volume => ({
      name: volume,
      persistentVolumeClaim: { claimName, hotpluggable },
    });
    const virtioDisks: Disk[] = [
      { name: "vol0", disk: { bus: "virtio" } },
      { name: "vol1", disk: { bus: "virtio" } },
    ];
    const newVMI = minimalVMI();
    newVMI.status = {
      migratedVolumes: [
        {
          volumeName: "vol1",
          sourcePVCInfo: { claimName: "pvc1" },
          destinationPVCInfo: { claimName: "pvc1" },
        },
      ],
    };
    const change = {
      newVolumes: [claim("vol0", "pvc0"), claim("vol1", "pvc2")],
      oldVolumes: [claim("vol0", "pvc0"), claim("vol1", "pvc1")],
      newDisks: virtioDisks,
      oldDisks: virtioDisks,
      volumeStatuses: [
        { name: "vol0", target: "" },
        { name: "vol1", target: "" },
      ],
      newVMI,
    };
    expect(admitHotplugStorage(change, clusterWith())).toEqual([]);
    newVMI.status = {};
    expect(admitHotplugStorage(change, clusterWith())).toEqual(invalid("permanent volume vol1, changed"));
  });
});

describe("admitUtilityVolumes", () => {
  const gated = withGates(FeatureGate.UtilityVolumes);
  const utility = (volume: string, claimName: string) => ({ name: volume, claimName });
  const spec = (change: Partial<VirtualMachineInstanceSpec>): VirtualMachineInstanceSpec => ({
    ...minimalVMI().spec,
    ...change,
  });

  it("admits valid utility volumes, and an empty list", () => {
    const volumes = [{ name: "vol1", emptyDisk: { capacity: "1Gi" } }];
    expect(
      admitUtilityVolumes(
        spec({ volumes, utilityVolumes: [utility("util-vol1", "pvc1")] }),
        undefined,
        [],
        gated,
      ),
    ).toEqual([]);
    expect(admitUtilityVolumes(spec({ volumes, utilityVolumes: [] }), undefined, [], gated)).toEqual([]);
  });

  it("refuses duplicate names", () => {
    const duplicated = spec({ utilityVolumes: [utility("dup-vol", "pvc1"), utility("dup-vol", "pvc2")] });
    expect(admitUtilityVolumes(duplicated, undefined, [], gated)).toEqual([
      {
        reason: "FieldValueDuplicate",
        message: "spec.utilityVolumes[1] and spec.utilityVolumes[0] must not have the same Name.",
        field: "spec.utilityVolumes[1].name",
      },
    ]);
  });

  it("refuses a name a volume already has", () => {
    const conflicting = spec({
      volumes: [{ name: "conflict-vol", emptyDisk: { capacity: "1Gi" } }],
      utilityVolumes: [utility("conflict-vol", "pvc1")],
    });
    expect(admitUtilityVolumes(conflicting, undefined, [], gated)).toEqual([
      {
        reason: "FieldValueDuplicate",
        message:
          "spec.utilityVolumes[0] conflicts with spec.volumes[0]. UtilityVolume names must be unique across both volumes and utilityVolumes.",
        field: "spec.utilityVolumes[0].name",
      },
    ]);
  });

  it("requires a name and a claim", () => {
    expect(
      admitUtilityVolumes(
        spec({ utilityVolumes: [utility("", "pvc1"), utility("util", "")] }),
        undefined,
        [],
        gated,
      ),
    ).toEqual([
      {
        reason: "FieldValueRequired",
        message: "UtilityVolume 'name' must be set",
        field: "spec.utilityVolumes[0].name",
      },
      {
        reason: "FieldValueRequired",
        message: "UtilityVolume PVC 'claimName' must be set",
        field: "spec.utilityVolumes[1].claimName",
      },
    ]);
  });

  it("refuses a utility volume with a permanent volume status", () => {
    const causes = admitUtilityVolumes(
      spec({ utilityVolumes: [utility("util-vol", "pvc1")] }),
      spec({ utilityVolumes: [] }),
      [{ name: "util-vol", target: "" }],
      gated,
    );
    expect(causes).toEqual(
      invalid("utility volume util-vol cannot be a permanent volume, utility volumes must always be hotplug"),
    );
  });

  it("admits utility volumes added and removed on update", () => {
    const hotplugged = (volume: string): VolumeStatus => ({ name: volume, target: "", hotplugVolume: {} });
    const existing = utility("existing-util", "pvc1");
    expect(
      admitUtilityVolumes(
        spec({ utilityVolumes: [existing, utility("new-util", "pvc2")] }),
        spec({ utilityVolumes: [existing] }),
        [hotplugged("existing-util")],
        gated,
      ),
    ).toEqual([]);
    expect(
      admitUtilityVolumes(
        spec({ utilityVolumes: [existing] }),
        spec({ utilityVolumes: [existing, utility("removed-util", "pvc2")] }),
        [hotplugged("existing-util"), hotplugged("removed-util")],
        gated,
      ),
    ).toEqual([]);
  });

  it("refuses a changed utility volume", () => {
    const causes = admitUtilityVolumes(
      spec({ utilityVolumes: [utility("util-vol", "pvc2")] }),
      spec({ utilityVolumes: [utility("util-vol", "pvc1")] }),
      [{ name: "util-vol", target: "", hotplugVolume: {} }],
      gated,
    );
    expect(causes).toEqual(invalid("utility volume util-vol has changed"));
  });

  it("refuses utility volumes without the UtilityVolumes gate, but not an empty list", () => {
    const ungated = clusterWith();
    expect(
      admitUtilityVolumes(spec({ utilityVolumes: [utility("util-vol", "pvc1")] }), undefined, [], ungated),
    ).toEqual(invalid("UtilityVolumes feature gate is not enabled", "spec.utilityVolumes"));
    expect(admitUtilityVolumes(spec({ utilityVolumes: [] }), undefined, [], ungated)).toEqual([]);
  });
});
