// The volume subresources over a recording client: the gates, the refusals in upstream's words, and which
// patch reaches the apiserver, with the dry run passed on. The patches' shapes are volumes.test.ts's.
import { beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import { ApiError } from "../../controller/api-error.js";
import { clusterWith } from "../../defaults/testing.js";
import type { JsonPatchOperation } from "./patch.js";
import { VolumeApp, type VolumeClient } from "./volume-app.js";
import { HOTPLUG_VOLUME_NOT_ENABLED } from "./volumes.js";

const addBody = {
  name: "data",
  disk: { disk: { bus: "scsi" } },
  volumeSource: { persistentVolumeClaim: { claimName: "data-pvc" } },
};

let vm: VirtualMachine | undefined;
let vmi: VirtualMachineInstance | undefined;
let calls: { call: string; patch: JsonPatchOperation[]; dryRun: boolean }[];
let patchFails: Error | undefined;
let gates: { featureGates?: string[]; disabledFeatureGates?: string[] };

const record =
  (call: string) => async (_ns: string, _name: string, patch: JsonPatchOperation[], dryRun: boolean) => {
    if (patchFails) throw patchFails;
    calls.push({ call, patch, dryRun });
  };
const client: VolumeClient = {
  getVM: async () => vm,
  getVMI: async () => vmi,
  patchVM: record("patchVM"),
  patchVMStatus: record("patchVMStatus"),
  patchVMI: record("patchVMI"),
};
const config = () => clusterWith({ developerConfiguration: gates });
/** Upstream's rules, with running VMIs' volumes allowed to change. */
const app = new VolumeApp(client, config);

const runningVMI = (owned = false): VirtualMachineInstance => ({
  metadata: {
    name: "testvmi",
    namespace: "ns",
    ...(owned
      ? {
          ownerReferences: [
            {
              apiVersion: "kubevirt.io/v1",
              kind: "VirtualMachine",
              name: "testvmi",
              uid: "u",
              controller: true,
            },
          ],
        }
      : {}),
  },
  spec: {
    domain: { devices: { disks: [{ name: "root" }] } },
    volumes: [{ name: "root", containerDisk: { image: "i" } }],
  },
  status: { phase: "Running" },
});

beforeEach(() => {
  vm = {
    metadata: { name: "testvm", namespace: "ns" },
    spec: { runStrategy: "Always", template: { spec: { domain: { devices: {} } } } },
    status: { created: true },
  };
  vmi = runningVMI();
  calls = [];
  patchFails = undefined;
  // Most cases are about the declarative flavour, which upstream v1.8.4 (an Alpha gate) runs only when listed.
  gates = { featureGates: ["DeclarativeHotplugVolumes"] };
});

describe("the feature gates", () => {
  it.each([
    ["by default (neither gate is listed)", {}],
    ["with DeclarativeHotplugVolumes disabled", { disabledFeatureGates: ["DeclarativeHotplugVolumes"] }],
  ])("neither hotplug gate %s: a BadRequest", async (_case, developer) => {
    gates = developer;
    for (const target of ["virtualmachineinstances", "virtualmachines"] as const) {
      const answer = await app.handle(target, "addvolume", "ns", "testvmi", addBody);
      expect(answer.code).toBe(400);
      expect(answer.body?.message).toBe(HOTPLUG_VOLUME_NOT_ENABLED);
    }
    expect(calls).toEqual([]);
  });

  it("DeclarativeHotplugVolumes listed: a VM's addvolume patches its template", async () => {
    expect(await app.handle("virtualmachines", "addvolume", "ns", "testvm", addBody)).toEqual({ code: 202 });
    expect(calls.map(({ call }) => call)).toEqual(["patchVM"]);
    expect(calls[0]?.patch.map(({ path }) => path)).toContain("/spec/template/spec/volumes");
  });

  it("HotplugVolumes: a VM's addvolume records a volume request in its status", async () => {
    gates = { featureGates: ["HotplugVolumes"] };
    expect(await app.handle("virtualmachines", "addvolume", "ns", "testvm", addBody)).toEqual({ code: 202 });
    expect(calls.map(({ call }) => call)).toEqual(["patchVMStatus"]);
    expect(calls[0]?.patch.at(-1)).toEqual({
      op: "add",
      path: "/status/volumeRequests",
      value: [
        {
          addVolumeOptions: {
            name: "data",
            disk: { name: "data", disk: { bus: "scsi" } },
            volumeSource: { persistentVolumeClaim: { claimName: "data-pvc", hotpluggable: true } },
          },
        },
      ],
    });
  });

  it("without HotplugVolumes a VM's own VMI is refused", async () => {
    vmi = runningVMI(true);
    const answer = await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", addBody);
    expect(answer.code).toBe(400);
    expect(answer.body?.message).toBe("VMI ns/testvmi is owned by a VM");
  });

  it("with HotplugVolumes a VM's own VMI takes the volume", async () => {
    gates = { featureGates: ["HotplugVolumes"] };
    vmi = runningVMI(true);
    expect(await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", addBody)).toEqual({
      code: 202,
    });
    expect(calls.map(({ call }) => call)).toEqual(["patchVMI"]);
  });
});

describe("refusals", () => {
  it("a body without a disk", async () => {
    const answer = await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", { name: "x" });
    expect(answer.body?.message).toBe("AddVolumeOptions requires disk to not be nil");
  });

  it("a VMI that is not running", async () => {
    vmi = { ...runningVMI(), status: { phase: "Scheduling" } };
    const answer = await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", addBody);
    expect(answer.code).toBe(409);
    expect(answer.body?.message).toBe(
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": VMI is not running',
    );
  });

  it("a missing VMI", async () => {
    vmi = undefined;
    const answer = await app.handle("virtualmachineinstances", "removevolume", "ns", "testvmi", {
      name: "x",
    });
    expect(answer.code).toBe(404);
  });

  it("a volume name already used", async () => {
    const answer = await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", {
      ...addBody,
      name: "root",
    });
    expect(answer.code).toBe(409);
    expect(answer.body?.message).toBe(
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": Unable to add volume [root] because volume with that name already exists',
    );
  });

  it("removing a volume the VM never had", async () => {
    const answer = await app.handle("virtualmachines", "removevolume", "ns", "testvm", { name: "data" });
    expect(answer.code).toBe(409);
    expect(answer.body?.message).toMatch(/Unable to remove volume \[data\] because it does not exist$/);
  });

  it("a pending add of the same volume (HotplugVolumes)", async () => {
    gates = { featureGates: ["HotplugVolumes"] };
    vm = {
      ...vm!,
      status: { volumeRequests: [{ addVolumeOptions: { ...addBody, disk: { name: "data" } } }] },
    };
    const answer = await app.handle("virtualmachines", "addvolume", "ns", "testvm", addBody);
    expect(answer.code).toBe(409);
    expect(answer.body?.message).toMatch(/add volume request for volume \[data\] already exists$/);
  });
});

describe("writes", () => {
  it("a dry run reaches the apiserver as one", async () => {
    await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", {
      ...addBody,
      dryRun: ["All"],
    });
    expect(calls.map(({ call, dryRun }) => `${call} ${dryRun}`)).toEqual(["patchVMI true"]);
  });

  it("removing a hotplugged volume patches both lists", async () => {
    vmi!.spec.volumes!.push({
      name: "data",
      persistentVolumeClaim: { claimName: "data-pvc", hotpluggable: true },
    });
    vmi!.spec.domain.devices.disks!.push({ name: "data" });
    expect(
      await app.handle("virtualmachineinstances", "removevolume", "ns", "testvmi", { name: "data" }),
    ).toEqual({
      code: 202,
    });
    expect(calls[0]?.patch.slice(2)).toEqual([
      { op: "replace", path: "/spec/volumes", value: [{ name: "root", containerDisk: { image: "i" } }] },
      { op: "replace", path: "/spec/domain/devices/disks", value: [{ name: "root" }] },
    ]);
  });

  it("an Invalid refusal keeps the apiserver's Status", async () => {
    patchFails = new ApiError(
      422,
      "Invalid",
      "admission webhook denied the request: hotplug disk data, changed",
    );
    const answer = await app.handle("virtualmachineinstances", "addvolume", "ns", "testvmi", addBody);
    expect(answer.code).toBe(422);
    expect(answer.body?.reason).toBe("Invalid");
    expect(answer.body?.message).toBe("admission webhook denied the request: hotplug disk data, changed");
  });

  it("any other failure is an InternalError naming what was patched", async () => {
    patchFails = new Error("connection refused");
    const answer = await app.handle("virtualmachines", "addvolume", "ns", "testvm", addBody);
    expect(answer.code).toBe(500);
    expect(answer.body?.message).toBe("Internal error occurred: unable to patch vm: connection refused");
  });
});

describe("a VM whose VMI is not running", () => {
  it("changes a stopped VM's volumes, and one whose VMI has finished", async () => {
    vmi = undefined;
    expect(await app.handle("virtualmachines", "addvolume", "ns", "testvm", addBody)).toEqual({
      code: 202,
    });
    vmi = { ...runningVMI(true), status: { phase: "Succeeded" } };
    expect(await app.handle("virtualmachines", "addvolume", "ns", "testvm", addBody)).toEqual({
      code: 202,
    });
    expect(calls.map(({ call }) => call)).toEqual(["patchVM", "patchVM"]);
  });
});
