import { describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import {
  addVolumeRequest,
  decodeAddVolumeOptions,
  decodeRemoveVolumeOptions,
  nextVolumeRequests,
  volumeRequestConflict,
  volumeRequestDryRun,
  volumeRequestSpecPatch,
  volumeRequestsStatusPatch,
} from "./volumes.js";

const options = {
  name: "data",
  disk: { name: "data", disk: { bus: "scsi" } },
  volumeSource: { persistentVolumeClaim: { claimName: "data-pvc" } },
};

const message = (decoded: { ok: boolean; status?: { message: string } }) =>
  decoded.ok ? "ok" : decoded.status?.message;

describe("the body's checks, in upstream's order and words", () => {
  it.each([
    [undefined, "AddVolumeOptions requires name to be set"],
    [{ name: "" }, "AddVolumeOptions requires name to be set"],
    [{ name: "data" }, "AddVolumeOptions requires disk to not be nil"],
    [{ name: "data", disk: {} }, "AddVolumeOptions requires VolumeSource to not be nil"],
    [options, "ok"],
  ])("add %j: %s", (body, expected) => {
    expect(message(decodeAddVolumeOptions(body) as never)).toBe(expected);
  });

  it.each([
    [{}, "RemoveVolumeOptions requires name to be set"],
    [{ name: "data" }, "ok"],
  ])("remove %j: %s", (body, expected) => {
    expect(message(decodeRemoveVolumeOptions(body) as never)).toBe(expected);
  });

  it("a body of the wrong shape is a BadRequest naming the field", () => {
    const decoded = decodeAddVolumeOptions({ ...options, dryRun: "All" });
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) {
      expect(decoded.status.code).toBe(400);
      expect(decoded.status.message).toMatch(/^Can not unmarshal Request body to struct, error: dryRun/);
    }
    expect(message(decodeAddVolumeOptions([1]) as never)).toMatch(/^Can not unmarshal/);
  });
});

describe("addVolumeRequest", () => {
  it("names the disk after the volume and makes the source hotpluggable", () => {
    expect(addVolumeRequest({ ...options, disk: { name: "other", disk: { bus: "scsi" } } })).toEqual({
      addVolumeOptions: {
        name: "data",
        disk: { name: "data", disk: { bus: "scsi" } },
        volumeSource: { persistentVolumeClaim: { claimName: "data-pvc", hotpluggable: true } },
      },
    });
  });

  it("only a dryRun of All is a dry run", () => {
    expect(volumeRequestDryRun(addVolumeRequest({ ...options, dryRun: ["All"] }))).toBe(true);
    expect(volumeRequestDryRun(addVolumeRequest({ ...options, dryRun: ["None"] }))).toBe(false);
    expect(volumeRequestDryRun({ removeVolumeOptions: { name: "x", dryRun: ["All"] } })).toBe(true);
  });
});

describe("volumeRequestConflict (upstream's verifyVolumeOption)", () => {
  const volumes = [
    { name: "root", persistentVolumeClaim: { claimName: "root-pvc" } },
    { name: "hot", dataVolume: { name: "hot-dv", hotpluggable: true } },
  ];
  it.each([
    [
      { ...options, name: "root" },
      "Unable to add volume [root] because volume with that name already exists",
    ],
    [
      { ...options, volumeSource: { persistentVolumeClaim: { claimName: "root-pvc" } } },
      "Unable to add volume source [root-pvc] because it already exists",
    ],
    [options, undefined],
  ])("add %j", (add, expected) => {
    expect(volumeRequestConflict(volumes, { addVolumeOptions: add })).toBe(expected);
  });

  it.each([
    ["missing", "Unable to remove volume [missing] because it does not exist"],
    ["root", "Unable to remove volume [root] because it is not hotpluggable"],
    ["hot", undefined],
    // A volume can be named by its claim as well.
    ["hot-dv", undefined],
  ])("remove %s", (name, expected) => {
    expect(volumeRequestConflict(volumes, { removeVolumeOptions: { name } })).toBe(expected);
  });
});

describe("volumeRequestSpecPatch", () => {
  const spec: VirtualMachineInstanceSpec = {
    domain: { devices: { disks: [{ name: "root" }] } },
    volumes: [{ name: "root", persistentVolumeClaim: { claimName: "root-pvc" } }],
  };

  it("tests what was read, then replaces volumes and disks", () => {
    const patch = volumeRequestSpecPatch("", spec, addVolumeRequest(options));
    expect(patch.map(({ op, path }) => `${op} ${path}`)).toEqual([
      "test /spec/volumes",
      "test /spec/domain/devices/disks",
      "replace /spec/volumes",
      "replace /spec/domain/devices/disks",
    ]);
    expect(patch[0]?.value).toEqual(spec.volumes);
    expect(patch[3]?.value).toEqual([{ name: "root" }, { name: "data", disk: { bus: "scsi" } }]);
  });

  it("adds to a template without volumes or disks, testing they are null", () => {
    const patch = volumeRequestSpecPatch(
      "/spec/template",
      { domain: { devices: {} } },
      addVolumeRequest(options),
    );
    expect(patch).toEqual([
      { op: "test", path: "/spec/template/spec/volumes", value: null },
      { op: "test", path: "/spec/template/spec/domain/devices/disks", value: null },
      {
        op: "add",
        path: "/spec/template/spec/volumes",
        value: [{ name: "data", persistentVolumeClaim: { claimName: "data-pvc", hotpluggable: true } }],
      },
      {
        op: "add",
        path: "/spec/template/spec/domain/devices/disks",
        value: [{ name: "data", disk: { bus: "scsi" } }],
      },
    ]);
  });
});

describe("nextVolumeRequests (a VM's status.volumeRequests)", () => {
  const add = (name: string) => ({ addVolumeOptions: { ...options, name } });
  const remove = (name: string) => ({ removeVolumeOptions: { name } });

  it("an add joins the pending requests", () => {
    expect(nextVolumeRequests([add("a")], add("b"))).toEqual({ ok: true, requests: [add("a"), add("b")] });
  });

  it.each([
    [[add("b")], add("b"), "add volume request for volume [b] already exists"],
    [
      [remove("b")],
      add("b"),
      "unable to add volume since a remove volume request for volume [b] already exists and is still being processed",
    ],
    [
      [remove("b")],
      remove("b"),
      "a remove volume request for volume [b] already exists and is still being processed",
    ],
  ])("refuses %j then %j", (pending, request, expected) => {
    expect(nextVolumeRequests(pending, request)).toEqual({ ok: false, message: expected });
  });

  it("a remove replaces a pending add of that volume", () => {
    expect(nextVolumeRequests([add("a"), add("b")], remove("b"))).toEqual({
      ok: true,
      requests: [add("a"), remove("b")],
    });
  });

  it("the status patch tests the requests read", () => {
    const vm: VirtualMachine = { spec: { template: {} }, status: { volumeRequests: [add("a")] } };
    expect(volumeRequestsStatusPatch(vm, [add("a"), add("b")])).toEqual([
      { op: "test", path: "/status/volumeRequests", value: [add("a")] },
      { op: "replace", path: "/status/volumeRequests", value: [add("a"), add("b")] },
    ]);
    const fresh: VirtualMachine = { spec: { template: {} }, status: { created: false } };
    expect(volumeRequestsStatusPatch(fresh, [add("b")])).toEqual([
      { op: "test", path: "/status/volumeRequests", value: null },
      { op: "add", path: "/status/volumeRequests", value: [add("b")] },
    ]);
    expect(volumeRequestsStatusPatch({ spec: { template: {} } }, [add("b")])).toEqual([
      { op: "add", path: "/status", value: { volumeRequests: [add("b")] } },
    ]);
  });
});
