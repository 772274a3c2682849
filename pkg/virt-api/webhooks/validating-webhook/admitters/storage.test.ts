// One row per storage rule (disks, volumes, cloud-init, boot order): the change to a valid spec and
// exactly the causes upstream answers with.
import { describe, expect, it } from "vitest";
import { clusterWith } from "../../../../defaults/testing.js";
import { specPath } from "../../../../api/causes.js";
import { validateVolumesHaveDisks } from "./storage.js";
import { invalid, notFound, notSupported, required, specCauses, specWith, type RuleRow } from "./testing.js";

const LABEL_REGEX_ERROR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const rows: RuleRow[] = [
  {
    rule: "every disk has a matching volume",
    change: (spec) => spec.domain.devices.disks?.push({ name: "orphan" }),
    causes: [
      invalid("spec.domain.devices.disks[2].name", "spec.domain.devices.disks[2].Name 'orphan' not found."),
    ],
  },
  {
    rule: "an empty CD-ROM needs DeclarativeHotplugVolumes (an Alpha gate in v1.8.4: off unless listed)",
    change: (spec) => spec.domain.devices.disks?.push({ name: "cd", cdrom: { bus: "sata" } }),
    causes: [
      invalid(
        "spec.domain.devices.disks[2].name",
        "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk",
      ),
    ],
  },
  {
    rule: "an empty CD-ROM is accepted with DeclarativeHotplugVolumes listed",
    change: (spec) => spec.domain.devices.disks?.push({ name: "cd", cdrom: { bus: "sata" } }),
    config: clusterWith({ developerConfiguration: { featureGates: ["DeclarativeHotplugVolumes"] } }),
    causes: [],
  },
  {
    rule: "disk names are unique",
    change: (spec) => spec.domain.devices.disks?.push({ name: "containerdisk", disk: { bus: "virtio" } }),
    causes: [
      invalid(
        "spec.domain.devices.disks[2].name",
        "spec.domain.devices.disks[2] and spec.domain.devices.disks[0] must not have the same Name.",
      ),
    ],
  },
  {
    rule: "volume names are unique",
    change: (spec) => spec.volumes?.push({ name: "containerdisk", emptyDisk: { capacity: "1Gi" } }),
    causes: [
      invalid("spec.volumes[2].name", "spec.volumes[2] and spec.volumes[0] must not have the same Name."),
    ],
  },
  {
    rule: "a volume has a source",
    change: (spec) => {
      spec.volumes = [{ name: "containerdisk" }, ...(spec.volumes ?? []).slice(1)];
    },
    causes: [invalid("spec.volumes[0]", "spec.volumes[0] must have exactly one source type set")],
  },
  {
    rule: "a volume has only one source",
    change: (spec) => {
      const volume = spec.volumes?.[0];
      if (volume) volume.emptyDisk = { capacity: "1Gi" };
    },
    causes: [invalid("spec.volumes[0]", "spec.volumes[0] must have exactly one source type set")],
  },
  {
    rule: "boot orders are unique among disks",
    change: (spec) => {
      for (const disk of spec.domain.devices.disks ?? []) disk.bootOrder = 1;
    },
    causes: [
      invalid(
        "spec.domain.devices.disks[1].bootOrder",
        "Boot order for spec.domain.devices.disks[1].bootOrder already set for a different device.",
      ),
    ],
  },
  {
    rule: "boot orders are unique between disks and interfaces",
    change: (spec) => {
      const [disk] = spec.domain.devices.disks ?? [];
      const [iface] = spec.domain.devices.interfaces ?? [];
      if (disk && iface) disk.bootOrder = iface.bootOrder = 2;
    },
    causes: [
      invalid(
        "spec.domain.devices.interfaces[0].bootOrder",
        "Boot order for spec.domain.devices.interfaces[0].bootOrder already set for a different device.",
      ),
    ],
  },
  {
    rule: "a disk boot order is positive",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.bootOrder = 0;
    },
    causes: [
      invalid(
        "spec.domain.devices.disks[0].bootOrder",
        "spec.domain.devices.disks[0] must have a boot order > 0, if supplied",
      ),
    ],
  },
  {
    rule: "an interface boot order is positive (upstream indexes the spec path)",
    change: (spec) => {
      const iface = spec.domain.devices.interfaces?.[0];
      if (iface) iface.bootOrder = 0;
    },
    causes: [invalid("spec[0].bootOrder", "spec[0] must have a boot order > 0, if supplied")],
  },
  {
    rule: "a disk name is a DNS label (upstream repeats the disks path)",
    change: (spec) => {
      const [disk] = spec.domain.devices.disks ?? [];
      const [volume] = spec.volumes ?? [];
      if (disk && volume) disk.name = volume.name = "Container_Disk";
    },
    causes: [invalid("spec.domain.devices.disks.domain.devices.disks[0].name", LABEL_REGEX_ERROR)],
  },
  {
    rule: "a disk name is at most 63 bytes",
    change: (spec) => {
      const [disk] = spec.domain.devices.disks ?? [];
      const [volume] = spec.volumes ?? [];
      if (disk && volume) disk.name = volume.name = "d".repeat(64);
    },
    causes: [
      invalid("spec.domain.devices.disks.domain.devices.disks[0].name", "must be no more than 63 characters"),
    ],
  },
  {
    rule: "a disk has one target type",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.cdrom = { bus: "sata" };
    },
    causes: [
      invalid(
        "spec.domain.devices.disks[0]",
        "spec.domain.devices.disks[0] can only have a single target type defined",
      ),
    ],
  },
  {
    rule: "IDE is not supported",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.disk = { bus: "ide" };
    },
    causes: [invalid("spec.domain.devices.disks[0].disk.bus", "IDE bus is not supported")],
  },
  {
    rule: "unknown buses are named",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.disk = { bus: "floppy" };
    },
    causes: [
      invalid(
        "spec.domain.devices.disks[0].disk.bus",
        "spec.domain.devices.disks[0] is set with an unrecognized bus floppy, must be one of: [virtio scsi sata usb]",
      ),
    ],
  },
  {
    rule: "a virtio CD-ROM is refused",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[1];
      if (disk) {
        delete disk.disk;
        disk.cdrom = { bus: "virtio" };
      }
    },
    causes: [
      invalid("spec.domain.devices.disks[1].cdrom.bus", "Bus type virtio is invalid for CD-ROM device"),
    ],
  },
  {
    rule: "dedicated IO threads need virtio",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) Object.assign(disk, { disk: { bus: "sata" }, dedicatedIOThread: true });
    },
    causes: [
      notSupported(
        "spec.domain.devices.disks.domain.devices.disks[0]",
        "IOThreads are not supported for disks on a sata bus",
      ),
    ],
  },
  {
    rule: "a disk serial uses few characters",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.serial = "a b";
    },
    causes: [
      invalid(
        "spec.domain.devices.disks[0].serial",
        "spec.domain.devices.disks[0] must be made up of the following characters [A-Za-z0-9_.+-], if specified",
      ),
    ],
  },
  {
    rule: "a disk cache mode is known",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.cache = "unsafe";
    },
    causes: [
      invalid(
        "spec.domain.devices.disks[0].cache",
        "spec.domain.devices.disks[0].cache has invalid value unsafe",
      ),
    ],
  },
  {
    rule: "a PCI address needs virtio and the right shape",
    change: (spec) => {
      const disk = spec.domain.devices.disks?.[0];
      if (disk) disk.disk = { bus: "sata", pciAddress: "00:01.0" };
    },
    causes: [
      invalid(
        "spec.domain.devices.disks.domain.devices.disks.disk[0].pciAddress",
        "disk spec.domain.devices.disks.domain.devices.disks.disk[0].name - setting a PCI address is only possible with bus type virtio.",
      ),
      invalid(
        "spec.domain.devices.disks.domain.devices.disks.disk[0].pciAddress",
        "disk spec.domain.devices.disks.domain.devices.disks.disk[0].name has malformed PCI address (00:01.0).",
      ),
    ],
  },
  {
    rule: "a containerDisk path is absolute and clean",
    change: (spec) => {
      const source = spec.volumes?.[0]?.containerDisk;
      if (source) source.path = "/disk/../etc/passwd";
    },
    causes: [
      invalid(
        "spec.volumes[0].containerDisk",
        "spec.volumes[0].containerDisk must be an absolute path to a file without relative components",
      ),
    ],
  },
  {
    rule: "cloud-init needs user or network data",
    change: (spec) => {
      const volume = spec.volumes?.[1];
      if (volume) volume.cloudInitNoCloud = {};
    },
    causes: [
      invalid(
        "spec.volumes[1].cloudInitNoCloud",
        "spec.volumes[1].cloudInitNoCloud must have at least one userdatasource or one networkdatasource set.",
      ),
    ],
  },
  {
    rule: "cloud-init user data has one source",
    change: (spec) => {
      const volume = spec.volumes?.[1];
      if (volume) volume.cloudInitNoCloud = { userData: "a", userDataBase64: "YQ==" };
    },
    causes: [
      invalid(
        "spec.volumes[1].cloudInitNoCloud",
        "spec.volumes[1].cloudInitNoCloud must have only one userdatasource set.",
      ),
    ],
  },
  {
    rule: "cloud-init user data is valid base64 (upstream names the source twice)",
    change: (spec) => {
      const volume = spec.volumes?.[1];
      if (volume) volume.cloudInitNoCloud = { userDataBase64: "not base64!" };
    },
    causes: [
      invalid(
        "spec.volumes[1].cloudInitNoCloud.userDataBase64",
        "spec.volumes[1].cloudInitNoCloud.userDataBase64.cloudInitNoCloud.userDataBase64 is not a valid base64 value.",
      ),
    ],
  },
  {
    rule: "inline cloud-init user data stays within 2048 bytes",
    change: (spec) => {
      const volume = spec.volumes?.[1];
      if (volume) volume.cloudInitNoCloud = { userData: "x".repeat(2049) };
    },
    causes: [
      invalid(
        "spec.volumes[1].cloudInitNoCloud",
        "spec.volumes[1].cloudInitNoCloud userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data.",
      ),
    ],
  },
  {
    rule: "inline cloud-init network data stays within 2048 bytes, decoded",
    change: (spec) => {
      const volume = spec.volumes?.[1];
      if (volume) volume.cloudInitNoCloud = { networkDataBase64: Buffer.alloc(2049).toString("base64") };
    },
    causes: [
      invalid(
        "spec.volumes[1].cloudInitNoCloud",
        "spec.volumes[1].cloudInitNoCloud networkdata exceeds 2048 byte limit. Should use NetworkDataSecretRef for larger data.",
      ),
    ],
  },
  {
    rule: "a hostDisk needs its gate, a path and a known type",
    change: (spec) => {
      spec.volumes?.push({ name: "host", hostDisk: { path: "", type: "Block" } });
      spec.domain.devices.disks?.push({ name: "host" });
    },
    causes: [
      invalid("spec.volumes[2]", "HostDisk feature gate is not enabled"),
      notFound(
        "spec.volumes[2].hostDisk.path",
        "spec.volumes[2].hostDisk.path is required for hostDisk volume",
      ),
      invalid(
        "spec.volumes[2].hostDisk.type",
        "spec.volumes[2].hostDisk.type has invalid value 'Block', allowed are 'Disk' or 'DiskOrCreate'",
      ),
    ],
  },
  {
    rule: "a DownwardMetrics volume needs a virtio disk",
    change: (spec) => {
      spec.volumes?.push({ name: "metrics", downwardMetrics: {} });
      spec.domain.devices.disks?.push({ name: "metrics", disk: { bus: "sata" } });
    },
    config: clusterWith({ developerConfiguration: { featureGates: ["DownwardMetrics"] } }),
    causes: [
      invalid(
        "spec.domain.devices.disks[2].disk.bus",
        "DownwardMetrics volume must be mapped to virtio bus, but spec.domain.devices.disks[2].disk.bus is set to sata",
      ),
    ],
  },
  {
    rule: "utility volumes are only added by hotplug",
    change: (spec) => {
      spec.utilityVolumes = [];
    },
    causes: [
      invalid(
        "spec.utilityVolumes",
        "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug",
      ),
    ],
  },
];

describe("storage rules", () => {
  it("accept the valid spec", () => {
    expect(specCauses(() => undefined)).toEqual([]);
  });

  it.each(rows)("$rule", ({ change, causes, config }) => {
    expect(specCauses(change, config)).toEqual(causes);
  });
});

describe("volumes of a VMI must be used (VMI creation only)", () => {
  it("reports an unused volume under upstream's spec.domain.volumes path", () => {
    const spec = specWith((s) => s.volumes?.push({ name: "spare", emptyDisk: { capacity: "1Gi" } }));
    expect(validateVolumesHaveDisks(specPath(), spec)).toEqual([
      invalid("spec.domain.volumes[2].name", "spec.domain.volumes[2].name 'spare' not found."),
    ]);
  });

  it("counts filesystems and ignores memory dumps", () => {
    const spec = specWith((s) => {
      s.volumes?.push(
        { name: "fs", emptyDisk: { capacity: "1Gi" } },
        { name: "dump", memoryDump: { claimName: "c" } },
      );
      s.domain.devices.filesystems = [{ name: "fs", virtiofs: {} }];
    });
    expect(validateVolumesHaveDisks(specPath(), spec)).toEqual([]);
  });

  it("keeps ContainerPath volumes on filesystems outside reserved paths", () => {
    const spec = specWith((s) => {
      s.volumes?.push({ name: "cp", containerPath: { path: "/var/run/kubevirt/x" } });
      s.domain.devices.disks?.push({ name: "cp" });
    });
    expect(validateVolumesHaveDisks(specPath(), spec)).toEqual([
      invalid(
        "spec.domain.volumes[2]",
        "ContainerPath volume 'cp' must be mapped to a filesystem, not a disk",
      ),
      invalid(
        "spec.domain.volumes[2]",
        "ContainerPath volume 'cp' must have a matching filesystem defined in spec.domain.devices.filesystems",
      ),
      invalid(
        "spec.domain.volumes[2].containerPath.path",
        "ContainerPath volume 'cp' uses reserved path prefix '/var/run/kubevirt'",
      ),
    ]);
  });
});

describe("singleton volumes", () => {
  it("allows at most one serviceAccount volume", () => {
    const causes = specCauses((s) => {
      s.volumes?.push(
        { name: "sa1", serviceAccount: { serviceAccountName: "a" } },
        { name: "sa2", serviceAccount: { serviceAccountName: "a" } },
      );
    });
    expect(causes).toContainEqual(
      invalid("spec.volumes", "spec.volumes must have max one serviceAccount volume set"),
    );
  });

  it("wants the names configMap and secret volumes refer to", () => {
    const causes = specCauses((s) => {
      s.volumes?.push({ name: "cm", configMap: {} }, { name: "sec", secret: {} });
    });
    expect(causes).toContainEqual(
      invalid("spec.volumes[2].configMap.name", "spec.volumes[2].configMap.name is a required field"),
    );
    expect(causes).toContainEqual(
      invalid("spec.volumes[3].secret.secretName", "spec.volumes[3].secret.secretName is a required field"),
    );
  });

  it("wants a DataVolume name", () => {
    const causes = specCauses((s) => {
      s.volumes?.push({ name: "dv", dataVolume: { name: "" } });
    });
    expect(causes).toContainEqual(required("spec.volumes[2].name", "DataVolume 'name' must be set"));
  });

  it("reports duplicate volumes once per repeat", () => {
    const causes = specCauses((s) => {
      s.volumes?.push({ name: "containerdisk", emptyDisk: { capacity: "1Gi" } });
      s.volumes?.push({ name: "containerdisk", emptyDisk: { capacity: "1Gi" } });
    });
    const repeats = causes.filter((c) => c.message?.includes("must not have the same Name"));
    expect(repeats.map((c) => [c.reason, c.field])).toEqual([
      ["FieldValueInvalid", "spec.volumes[2].name"],
      ["FieldValueInvalid", "spec.volumes[3].name"],
    ]);
  });
});
