import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import { applyVolumeRequestOnVMISpec, volumeRequestName } from "./volume-request.js";

const spec = (): VirtualMachineInstanceSpec => ({
  domain: { devices: { disks: [{ name: "root", disk: { bus: "virtio" } }] } },
  volumes: [{ name: "root", persistentVolumeClaim: { claimName: "root-pvc" } }],
});

const addPVC = {
  addVolumeOptions: {
    name: "data",
    disk: { name: "ignored", disk: { bus: "scsi" }, serial: "data" },
    volumeSource: { persistentVolumeClaim: { claimName: "data-pvc" } },
  },
};

describe("applyVolumeRequestOnVMISpec", () => {
  it("an add appends the volume, marked hotpluggable, and its disk named after it", () => {
    const next = applyVolumeRequestOnVMISpec(spec(), addPVC);
    expect(next.volumes?.[1]).toEqual({
      name: "data",
      persistentVolumeClaim: { claimName: "data-pvc", hotpluggable: true },
    });
    expect(next.domain.devices.disks?.[1]).toEqual({ name: "data", disk: { bus: "scsi" }, serial: "data" });
  });

  it("a DataVolume source is marked hotpluggable too", () => {
    const next = applyVolumeRequestOnVMISpec(spec(), {
      addVolumeOptions: { ...addPVC.addVolumeOptions, volumeSource: { dataVolume: { name: "dv" } } },
    });
    expect(next.volumes?.[1]).toEqual({ name: "data", dataVolume: { name: "dv", hotpluggable: true } });
  });

  it("an add of a name already present changes nothing", () => {
    const present = applyVolumeRequestOnVMISpec(spec(), addPVC);
    expect(applyVolumeRequestOnVMISpec(present, addPVC)).toEqual(present);
  });

  it("a remove drops the volume and the disk of that name", () => {
    const present = applyVolumeRequestOnVMISpec(spec(), addPVC);
    expect(applyVolumeRequestOnVMISpec(present, { removeVolumeOptions: { name: "data" } })).toEqual(spec());
  });

  it("leaves the spec it was given alone", () => {
    const original = spec();
    applyVolumeRequestOnVMISpec(original, addPVC);
    expect(original).toEqual(spec());
  });

  it("names the request's volume", () => {
    expect(volumeRequestName(addPVC)).toBe("data");
    expect(volumeRequestName({ removeVolumeOptions: { name: "x" } })).toBe("x");
    expect(volumeRequestName({})).toBe("");
  });
});
