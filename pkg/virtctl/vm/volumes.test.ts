import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer, type RecordedRequest } from "../testing/scripted-apiserver.js";
import { CONCURRENT_ERROR, hotplugDisk, MAX_RETRIES } from "./volumes.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const ns = "/namespaces/from-context";
const dvPath = `/apis/cdi.kubevirt.io/v1beta1${ns}/datavolumes/data`;
const pvcPath = `/api/v1${ns}/persistentvolumeclaims/data`;
const subresource = (resource: string, verb: string) =>
  `/apis/subresources.kubevirt.io/v1${ns}/${resource}/myvm/${verb}`;
const notFound = () => status(404, "not found", "NotFound");
const calls = () => fixture.server.requests.map((request) => `${request.method} ${request.path}`);
const bodyOf = (request: RecordedRequest | undefined) => JSON.parse(request?.body ?? "") as unknown;

describe("addvolume", () => {
  it("a PVC goes to the VM's subresource as a hotpluggable scsi disk named by its serial", async () => {
    fixture.server.handler = (request) => (request.path === dvPath ? notFound() : { status: 200, body: {} });
    const result = await virtctl("addvolume", "myvm", "--volume-name=data");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("Successfully submitted add volume request to VM myvm for volume data\n");
    expect(calls()).toEqual([
      `GET ${dvPath}`,
      `GET ${pvcPath}`,
      `PUT ${subresource("virtualmachines", "addvolume")}`,
    ]);
    expect(bodyOf(fixture.server.requests[2])).toEqual({
      name: "data",
      disk: { name: "", disk: { bus: "scsi" }, serial: "data" },
      volumeSource: { persistentVolumeClaim: { claimName: "data", hotpluggable: true } },
    });
  });

  it("a DataVolume is preferred; a standalone VMI gets the request when there is no VM", async () => {
    fixture.server.handler = (request) =>
      request.path === subresource("virtualmachines", "addvolume") ? notFound() : { status: 200, body: {} };
    const result = await virtctl(
      "addvolume",
      "myvm",
      "--volume-name=data",
      "--disk-type=lun",
      "--serial=abc",
      "--cache=none",
      "--dry-run",
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      "Dry Run execution\nSuccessfully submitted add volume request to VM myvm for volume data\n",
    );
    expect(calls()).toEqual([
      `GET ${dvPath}`,
      `PUT ${subresource("virtualmachines", "addvolume")}`,
      `PUT ${subresource("virtualmachineinstances", "addvolume")}`,
    ]);
    expect(bodyOf(fixture.server.requests[2])).toEqual({
      name: "data",
      disk: { name: "", lun: { bus: "scsi" }, serial: "abc", cache: "none" },
      volumeSource: { dataVolume: { name: "data", hotpluggable: true } },
      dryRun: ["All"],
    });
  });

  it("neither a DataVolume nor a claim", async () => {
    fixture.server.handler = notFound;
    const result = await virtctl("addvolume", "myvm", "--volume-name=data");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error adding volume, Volume data is not a DataVolume or PersistentVolumeClaim\n",
    );
  });

  it("a refusal is printed in the command's words", async () => {
    fixture.server.handler = (request) =>
      request.method === "PUT"
        ? status(409, 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "myvm": boom', "Conflict")
        : { status: 200, body: {} };
    const result = await virtctl("addvolume", "myvm", "--volume-name=data");
    expect(result.stderr).toBe(
      'error adding volume, Operation cannot be fulfilled on virtualmachine.kubevirt.io "myvm": boom\n',
    );
  });

  it("the concurrent refusal is retried, then given up on", async () => {
    fixture.server.handler = (request) =>
      request.method === "PUT" ? { status: 422 } : { status: 200, body: {} };
    const result = await virtctl("addvolume", "myvm", "--volume-name=data");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error adding volume after ${MAX_RETRIES} retries\n`);
    expect(calls().filter((call) => call.startsWith("PUT"))).toHaveLength(MAX_RETRIES);
    expect(CONCURRENT_ERROR).toBe("the server rejected our request due to an error in our request");
  });

  it("--volume-name is required", async () => {
    const result = await virtctl("addvolume", "myvm");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/required flag\(s\) "volume-name" not set/);
    expect(calls()).toEqual([]);
  });
});

describe("hotplugDisk: the flags' refusals in upstream's words", () => {
  it.each([
    ["disk", "sata", "", "Invalid bus type 'sata' for disk. Only 'scsi' and 'virtio' are supported."],
    ["lun", "virtio", "", "Invalid bus type 'virtio' for LUN disk. Only 'scsi' bus is supported."],
    ["cdrom", "scsi", "", "Invalid disk type 'cdrom'. Only LUN and Disk are supported."],
    ["disk", "virtio", "unsafe", "error adding volume, invalid cache value unsafe"],
  ])("%s on %s, cache %s", (diskType, bus, cache, message) => {
    expect(() => hotplugDisk(diskType, bus, "", cache, "data")).toThrow(message);
  });

  it("a virtio disk", () => {
    expect(hotplugDisk("disk", "virtio", "", "writeback", "data")).toEqual({
      name: "",
      disk: { bus: "virtio" },
      serial: "data",
      cache: "writeback",
    });
  });
});

describe("removevolume", () => {
  it("goes to the VM, or to the VMI when there is no VM", async () => {
    fixture.server.handler = (request) =>
      request.path === subresource("virtualmachines", "removevolume") ? notFound() : { status: 200 };
    const result = await virtctl("removevolume", "myvm", "--volume-name=data", "--persist", "--dry-run");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      "Dry Run execution\nSuccessfully submitted remove volume request to VM myvm for volume data\n",
    );
    expect(calls()).toEqual([
      `PUT ${subresource("virtualmachines", "removevolume")}`,
      `PUT ${subresource("virtualmachineinstances", "removevolume")}`,
    ]);
    expect(bodyOf(fixture.server.requests[1])).toEqual({ name: "data", dryRun: ["All"] });
  });

  it("a refusal is printed in the command's words", async () => {
    fixture.server.handler = () => status(400, "RemoveVolumeOptions requires name to be set");
    const result = await virtctl("removevolume", "myvm", "--volume-name=");
    expect(result.stderr).toBe("error removing volume, RemoveVolumeOptions requires name to be set\n");
  });
});
