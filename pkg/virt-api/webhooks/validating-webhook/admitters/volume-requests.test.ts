import { describe, expect, it } from "vitest";
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineVolumeRequest,
} from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { validateHotplugDiskConfiguration } from "../../../../storage/admitters/hotplug-disk.js";
import { admitStatusWithVolumeRequests } from "./status-admitter.js";
import { validateVolumeRequests } from "./volume-requests.js";

const config = clusterWith();
const now = Date.parse("2026-01-01T00:00:00Z");

const add = (name: string, bus = "scsi"): VirtualMachineVolumeRequest => ({
  addVolumeOptions: {
    name,
    disk: { name, disk: { bus } },
    volumeSource: { persistentVolumeClaim: { claimName: `${name}-pvc`, hotpluggable: true } },
  },
});
const remove = (name: string): VirtualMachineVolumeRequest => ({ removeVolumeOptions: { name } });

const vmWith = (requests: VirtualMachineVolumeRequest[], ready = false): VirtualMachine => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  metadata: { name: "testvm", namespace: "ns" },
  spec: {
    runStrategy: "Always",
    template: {
      spec: {
        domain: { devices: { disks: [{ name: "root", disk: { bus: "virtio" } }] } },
        volumes: [{ name: "root", persistentVolumeClaim: { claimName: "root-pvc" } }],
      },
    },
  },
  status: { volumeRequests: requests, ...(ready ? { ready: true } : {}) },
});

const messages = (vm: VirtualMachine, vmi?: VirtualMachineInstance) =>
  validateVolumeRequests(vm, vmi, config, now).map((cause) => cause.message);

describe("validateVolumeRequests", () => {
  it("accepts an add and a remove of different volumes", () => {
    expect(messages(vmWith([add("a"), remove("b")]))).toEqual([]);
  });

  it.each([
    [
      [{ ...add("a"), ...remove("a") }],
      "VolumeRequests require either addVolumeOptions or removeVolumeOptions to be set, not both",
    ],
    [[{}], "VolumeRequests require one of either addVolumeOptions or removeVolumeOptions to be set"],
    [[add("a"), add("a")], "AddVolume request for [a] aleady exists"],
    [[remove("a"), remove("a")], "RemoveVolume request for [a] aleady exists"],
    [
      [add("a", "sata")],
      "AddVolume request for disk [a] requires bus to be 'scsi' or 'virtio'. [sata] is not permitted.",
    ],
    [
      [add("root")],
      "AddVolume request for [root] conflicts with an existing volume of the same name on the vmi template.",
    ],
  ])("refuses %j", (requests, message) => {
    expect(messages(vmWith(requests))).toEqual([message]);
  });

  it("names the field as upstream does", () => {
    expect(validateVolumeRequests(vmWith([add("a"), add("a")]), undefined, config, now)[0]?.field).toBe(
      "Status.volumeRequests",
    );
  });

  const vmi = (extra: Partial<VirtualMachineInstance["status"]> = {}): VirtualMachineInstance => ({
    metadata: { name: "testvm", namespace: "ns" },
    spec: {
      domain: { devices: { disks: [{ name: "a", disk: { bus: "scsi" } }] } },
      volumes: [{ name: "a", persistentVolumeClaim: { claimName: "other-pvc" } }],
    },
    status: { phase: "Running", ...extra },
  });

  it("refuses an add that clashes with the running VMI's volume of that name", () => {
    expect(messages(vmWith([add("a")]), vmi())).toEqual([
      "AddVolume request for [a] conflicts with an existing volume of the same name on currently running vmi",
    ]);
  });

  it("refuses any request while the VMI migrates", () => {
    const migrating = vmi({ migrationState: { startTimestamp: "2025-12-31T23:59:00Z" } });
    expect(messages(vmWith([remove("a")]), migrating)).toEqual([
      "Cannot handle volume requests while VMI migration is in progress",
    ]);
  });
});

describe("validateHotplugDiskConfiguration", () => {
  it.each([
    [undefined, "Hotplug configuration for [d] requires the disk field to be set."],
    [
      { name: "d", lun: { bus: "virtio" } },
      "Hotplug configuration for LUN [d] requires bus to be 'scsi'. [virtio] is not permitted.",
    ],
    [
      { name: "d", cdrom: { bus: "scsi" } },
      "Hotplug configuration for [d] requires diskDevice of type 'disk' or 'lun' to be used.",
    ],
    [
      { name: "d", disk: { bus: "scsi" }, dedicatedIOThread: true },
      "Hotplug configuration for [d] requires virtio bus for IOThreads.",
    ],
    [
      { name: "d", disk: { bus: "virtio" }, bootOrder: 0 },
      "spec.domain.devices.disks[1] must have a boot order > 0, if supplied",
    ],
  ])("%j", (disk, message) => {
    expect(
      validateHotplugDiskConfiguration(disk, "d", "Hotplug configuration", "").map((c) => c.message),
    ).toEqual([message]);
  });

  it("accepts a virtio disk with an IO thread", () => {
    expect(
      validateHotplugDiskConfiguration(
        { name: "d", disk: { bus: "virtio" }, dedicatedIOThread: true },
        "d",
        "x",
        "",
      ),
    ).toEqual([]);
  });
});

describe("the status webhook", () => {
  const context = { clusterConfig: config, kubeVirtServiceAccounts: new Set<string>() };
  const review = (vm: VirtualMachine) => ({ operation: "UPDATE" as const, object: vm });

  it("reads the VMI of a ready VM only, and checks the requests against it", async () => {
    const reads: string[] = [];
    const readVMI = async (namespace: string, name: string) => {
      reads.push(`${namespace}/${name}`);
      return {
        metadata: { name, namespace },
        spec: { domain: { devices: {} }, volumes: [{ name: "a", containerDisk: { image: "x" } }] },
      };
    };
    expect(
      (await admitStatusWithVolumeRequests(review(vmWith([add("a")])), context, readVMI)).causes,
    ).toEqual([]);
    expect(reads).toEqual([]);
    const verdict = await admitStatusWithVolumeRequests(review(vmWith([add("a")], true)), context, readVMI);
    expect(reads).toEqual(["ns/testvm"]);
    expect(verdict.causes.map((cause) => cause.message)).toEqual([
      "AddVolume request for [a] conflicts with an existing volume of the same name on currently running vmi",
    ]);
  });

  it("still refuses a status that does not match the schema", async () => {
    const vm = { ...vmWith([]), status: { ready: "yes" } };
    const verdict = await admitStatusWithVolumeRequests(
      { operation: "UPDATE", object: vm },
      context,
      undefined,
    );
    expect(verdict.causes).toHaveLength(1);
  });
});
