import { loadSync } from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CMD_METHOD_NAMES } from "./cmd/v1/messages.js";
import { LOADER_OPTIONS, methodDefinition, PROTO_FILES, serviceDefinition } from "./proto.js";

interface FieldDescriptor {
  name: string;
  number: number;
}
interface MessageDescriptor {
  type: { field: FieldDescriptor[] };
}

function fieldNumbers(file: string, message: string): Record<string, number> {
  const definition = loadSync(fileURLToPath(new URL(file, import.meta.url)), LOADER_OPTIONS)[message];
  const fields = (definition as unknown as MessageDescriptor).type.field;
  return Object.fromEntries(fields.map((field) => [field.name, field.number]));
}

describe("handler-launcher protocol definitions", () => {
  it("serves upstream's Cmd methods, in the order the method table lists them", () => {
    expect(Object.keys(serviceDefinition("kubevirt.cmd.v1.Cmd"))).toEqual([...CMD_METHOD_NAMES]);
    expect(methodDefinition("kubevirt.cmd.v1.Cmd", "SyncVirtualMachine").path).toBe(
      "/kubevirt.cmd.v1.Cmd/SyncVirtualMachine",
    );
  });

  it.each([
    [
      "kubevirt.notify.v1.Notify",
      ["/kubevirt.notify.v1.Notify/HandleDomainEvent", "/kubevirt.notify.v1.Notify/HandleK8sEvent"],
    ],
    ["kubevirt.cmd.info.CmdInfo", ["/kubevirt.cmd.info.CmdInfo/Info"]],
    ["kubevirt.notify.info.NotifyInfo", ["/kubevirt.notify.info.NotifyInfo/Info"]],
  ] as const)("%s has upstream's method paths", (service, paths) => {
    expect(Object.values(serviceDefinition(service)).map((method) => method.path)).toEqual(paths);
  });

  // Field numbers are the wire contract with upstream's generated code.
  it.each([
    [PROTO_FILES["kubevirt.cmd.v1.Cmd"], "kubevirt.cmd.v1.VMIRequest", { vmi: 1, options: 2 }],
    [PROTO_FILES["kubevirt.cmd.v1.Cmd"], "kubevirt.cmd.v1.VMI", { vmiJson: 1 }],
    [PROTO_FILES["kubevirt.cmd.v1.Cmd"], "kubevirt.cmd.v1.Response", { success: 1, message: 2 }],
    [PROTO_FILES["kubevirt.cmd.v1.Cmd"], "kubevirt.cmd.v1.DomainResponse", { response: 1, domain: 2 }],
    [PROTO_FILES["kubevirt.cmd.v1.Cmd"], "kubevirt.cmd.v1.QemuVersionResponse", { response: 1, version: 2 }],
    [
      PROTO_FILES["kubevirt.cmd.v1.Cmd"],
      "kubevirt.cmd.v1.VirtualMachineOptions",
      {
        VirtualMachineSMBios: 1,
        MemBalloonStatsPeriod: 2,
        PreallocatedVolumes: 3,
        topology: 4,
        DisksInfo: 5,
        ExpandDisksEnabled: 6,
        clusterConfig: 7,
        interfaceDomainAttachment: 8,
        interfaceMigration: 9,
        pluginsJson: 10,
        GraceHostDeviceAliases: 11,
      },
    ],
    [
      PROTO_FILES["kubevirt.cmd.v1.Cmd"],
      "kubevirt.cmd.v1.DiskInfo",
      { format: 1, backingFile: 2, actualSize: 3, virtualSize: 4 },
    ],
    [
      PROTO_FILES["kubevirt.notify.v1.Notify"],
      "kubevirt.notify.v1.DomainEventRequest",
      { domainJSON: 1, statusJSON: 2, eventType: 3 },
    ],
    [PROTO_FILES["kubevirt.notify.v1.Notify"], "kubevirt.notify.v1.K8sEventRequest", { eventJSON: 1 }],
  ])("%s: %s keeps upstream's field numbers", (file, message, numbers) => {
    expect(fieldNumbers(file, message)).toEqual(numbers);
  });

  it("encodes a VMIRequest byte for byte as protobuf does", () => {
    const sync = methodDefinition<object, object>("kubevirt.cmd.v1.Cmd", "SyncVirtualMachine");
    // field 1 (vmi, length 4) { field 1 (vmiJson, length 2) "{}" }
    const bytes = sync.requestSerialize({ vmi: { vmiJson: Buffer.from("{}") } });
    expect([...bytes]).toEqual([0x0a, 0x04, 0x0a, 0x02, 0x7b, 0x7d]);
  });

  it("round-trips a sync request with options, and reads absent fields as proto3 zero values", () => {
    const sync = methodDefinition<object, object>("kubevirt.cmd.v1.Cmd", "SyncVirtualMachine");
    const request = {
      vmi: { vmiJson: Buffer.from('{"kind":"VirtualMachineInstance"}') },
      options: {
        MemBalloonStatsPeriod: 10,
        DisksInfo: { containerdisk: { format: "qcow2", virtualSize: 1 << 30 } },
        clusterConfig: { SerialConsoleLogDisabled: true },
        interfaceDomainAttachment: { default: "tap" },
      },
    };
    const decoded = sync.requestDeserialize(sync.requestSerialize(request)) as {
      vmi: { vmiJson: Buffer };
      options: Record<string, unknown>;
    };
    expect(decoded.vmi.vmiJson.toString()).toBe('{"kind":"VirtualMachineInstance"}');
    expect(decoded.options["MemBalloonStatsPeriod"]).toBe(10);
    expect(decoded.options["DisksInfo"]).toEqual({
      containerdisk: { format: "qcow2", backingFile: "", actualSize: 0, virtualSize: 1 << 30 },
    });
    expect(decoded.options["interfaceDomainAttachment"]).toEqual({ default: "tap" });
    expect(decoded.options["VirtualMachineSMBios"]).toBeNull();
    expect(sync.requestDeserialize(Buffer.alloc(0))).toEqual({ vmi: null, options: null });
  });

  it("round-trips a domain event", () => {
    const event = methodDefinition<object, object>("kubevirt.notify.v1.Notify", "HandleDomainEvent");
    const request = { domainJSON: Buffer.from('{"Status":{}}'), eventType: "MODIFIED" };
    const decoded = event.requestDeserialize(event.requestSerialize(request)) as Record<string, unknown>;
    expect(decoded).toEqual({
      domainJSON: Buffer.from('{"Status":{}}'),
      statusJSON: Buffer.alloc(0),
      eventType: "MODIFIED",
    });
  });
});
