import { afterEach, describe, expect, it } from "vitest";
import type {
  AddVolumeOptions,
  RemoveVolumeOptions,
  VirtualMachineInstanceSpec,
  VirtualMachineVolumeRequest,
} from "../../../api/generated/v1.js";
import type { StoredVM, StoredVMI } from "../../../controller/resources.js";
import {
  startControllerEnv,
  syncOnce,
  Tables,
  vmFixture,
  vmiFixture,
  type ControllerEnv,
} from "../../testing/controller-env.js";
import { vmControllerReference } from "./vm-setup.js";
import {
  passVolumeRequestsToVMI,
  pendingVolumeRequests,
  templateWithVolumeRequests,
  type VMIVolumeHotplug,
} from "./vm-volume-requests.js";

const add = (name: string): VirtualMachineVolumeRequest => ({
  addVolumeOptions: {
    name,
    disk: { name, disk: { bus: "scsi" } },
    volumeSource: { persistentVolumeClaim: { claimName: `${name}-pvc`, hotpluggable: true } },
  },
});
const remove = (name: string): VirtualMachineVolumeRequest => ({ removeVolumeOptions: { name } });

const template = (names: string[]): VirtualMachineInstanceSpec => ({
  domain: { devices: { disks: names.map((name) => ({ name })) } },
  volumes: names.map((name) => ({ name, persistentVolumeClaim: { claimName: `${name}-pvc` } })),
});

class RecordingHotplug implements VMIVolumeHotplug {
  calls: string[] = [];
  failure: Error | undefined;
  async addVolume(namespace: string, name: string, options: AddVolumeOptions) {
    if (this.failure) throw this.failure;
    this.calls.push(`add ${namespace}/${name} ${options.name}`);
  }
  async removeVolume(namespace: string, name: string, options: RemoveVolumeOptions) {
    if (this.failure) throw this.failure;
    this.calls.push(`remove ${namespace}/${name} ${options.name}`);
  }
}

describe("pendingVolumeRequests (upstream's trimDoneVolumeRequests)", () => {
  it("an add is done once the template has its volume and disk, a remove once it has neither", () => {
    const spec = template(["a", "b"]);
    spec.domain.devices.disks = [{ name: "a" }];
    expect(pendingVolumeRequests([add("a"), add("b"), remove("c"), remove("a")], spec)).toEqual([
      add("b"),
      remove("a"),
    ]);
  });
});

describe("templateWithVolumeRequests", () => {
  it("applies the requests in order", () => {
    const vm = vmFixture("testvm");
    vm.spec.template.spec = template(["root"]);
    vm.status = { volumeRequests: [add("a"), add("b"), remove("a")] };
    expect(templateWithVolumeRequests(vm)?.volumes?.map((volume) => volume.name)).toEqual(["root", "b"]);
  });
});

describe("passVolumeRequestsToVMI", () => {
  const vmi = vmiFixture("testvm", { phase: "Running" });
  vmi.spec = template(["a"]);

  it("asks for what the VMI lacks and drops what it has, nothing else", async () => {
    const hotplug = new RecordingHotplug();
    await passVolumeRequestsToVMI([add("a"), add("b"), remove("a"), remove("c")], vmi, hotplug);
    expect(hotplug.calls).toEqual(["add default/testvm b", "remove default/testvm a"]);
  });

  it("leaves a VMI being deleted, or none, alone", async () => {
    const hotplug = new RecordingHotplug();
    const deleting = { ...vmi, metadata: { ...vmi.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    await passVolumeRequestsToVMI([add("b")], deleting, hotplug);
    await passVolumeRequestsToVMI([add("b")], undefined, hotplug);
    expect(hotplug.calls).toEqual([]);
  });
});

describe("the VM controller with volume requests", () => {
  let env: ControllerEnv;
  afterEach(() => env.stop());
  const key = "default/testvm";
  const vm = () => env.server.get<StoredVM>(Tables.vms, "default", "testvm");

  async function seed(hotplug: VMIVolumeHotplug, requests: VirtualMachineVolumeRequest[]) {
    env = await startControllerEnv(undefined, { vmiVolumes: hotplug });
    const fixture = vmFixture("testvm", { runStrategy: "Always" });
    fixture.metadata = { ...fixture.metadata, finalizers: ["kubevirt.io/virtualMachineControllerFinalize"] };
    const owner = env.server.seed(Tables.vms, fixture);
    const running = vmiFixture("testvm", { phase: "Running" });
    running.metadata = {
      ...running.metadata,
      ownerReferences: [vmControllerReference(owner)],
      annotations: { ...running.metadata?.annotations, "kubevirt.io/vm-generation": "1" },
    };
    env.server.seed<StoredVMI>(Tables.vmis, running);
    env.server.mutate<StoredVM>(Tables.vms, "default", "testvm", (stored) => {
      stored.status = { volumeRequests: requests };
    });
    await env.server.settle();
  }

  it("writes the request into the template, passes it to the VMI, then drops it from the status", async () => {
    const hotplug = new RecordingHotplug();
    await seed(hotplug, [add("data")]);
    await syncOnce(env, "vm", key);
    expect(hotplug.calls).toEqual(["add default/testvm data"]);
    expect(env.server.takeWrites()).toContain("update virtualmachines default/testvm");
    expect(vm()?.spec.template.spec?.volumes?.at(-1)).toEqual({
      name: "data",
      persistentVolumeClaim: { claimName: "data-pvc", hotpluggable: true },
    });
    expect(vm()?.spec.template.spec?.domain.devices.disks?.at(-1)).toEqual({
      name: "data",
      disk: { bus: "scsi" },
    });
    expect(vm()?.status).not.toHaveProperty("volumeRequests");
  });

  it("a refused hotplug is the VM's Failure condition and keeps the request", async () => {
    const hotplug = new RecordingHotplug();
    hotplug.failure = new Error("VMI is not running");
    await seed(hotplug, [add("data")]);
    await expect(env.vmController.execute(key)).rejects.toThrow(
      "Error encountered while handling volume hotplug requests: VMI is not running",
    );
    await env.server.settle();
    expect(vm()?.status?.volumeRequests).toEqual([add("data")]);
    expect(vm()?.status?.conditions?.find((condition) => condition.type === "Failure")).toMatchObject({
      reason: "HotPlugVolumeError",
    });
    expect(vm()?.spec.template.spec?.volumes?.map((volume) => volume.name)).toEqual(["containerdisk"]);
  });
});
