// Random VMI-shaped input, as the launcher receives it over gRPC: parsed with the API's schema,
// defaulted or not, converted and written as XML. Nothing may escape but a validation error
// (from the parse) or a ConversionError / UnsupportedError (from the converter).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { VirtualMachineInstanceSchema } from "../../../api/generated/v1.js";
import { parse } from "../../../api/parse.js";
import { setDefaultVirtualMachineInstance } from "../../../defaults/defaults.js";
import { clusterWith, fixedUUID } from "../../../defaults/testing.js";
import { marshalDomainXML, unmarshalDomainXML } from "../api/domain-xml.js";
import { upstreamLayoutContext } from "./context.js";
import { convertVMIToDomain } from "./converter.js";
import { ConversionError } from "./errors.js";

const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arbitrary, { nil: undefined, freq: 2 });
/** Mostly absent: parts outside the subset, which only lead to UnsupportedError. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 15 }, { arbitrary, weight: 1 });
/** Mostly plausible values, sometimes anything at all (which the schema must catch). */
const sometimesJunk = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary, weight: 8 }, { arbitrary: fc.anything(), weight: 1 });

const name = fc.constantFrom("root", "data", "cloudinit", "constructor", "x-1");
/** Interfaces and networks pair by name; mostly the pod network's usual one. */
const networkName = fc.constantFrom("default", "default", "default", "constructor");
const quantity = fc.oneof(
  fc.constantFrom("1Gi", "128Mi", "1024M", "0", "-1Gi", "1.5", "500m", "1e3", "8Ei", "2.5Ki", "junk"),
  fc.integer({ min: -2, max: 1 << 30 }),
);
const count = fc.oneof(fc.integer({ min: -1, max: 6 }), fc.constantFrom(0, 64, 4097, 1e9, 2.5));
const bus = fc.constantFrom("virtio", "virtio", "sata", "sata", "scsi", "usb", "ide");
const toggle = maybe(fc.record({ enabled: maybe(fc.boolean()) }, { requiredKeys: [] }));

const disk = fc.record(
  {
    name,
    disk: maybe(
      fc.record(
        { bus: maybe(bus), readonly: maybe(fc.boolean()), pciAddress: rarely(fc.constant("0000:81:01.0")) },
        { requiredKeys: [] },
      ),
    ),
    cdrom: maybe(
      fc.record(
        { bus: maybe(bus), tray: maybe(fc.constantFrom("open", "closed")), readonly: maybe(fc.boolean()) },
        { requiredKeys: [] },
      ),
    ),
    lun: rarely(fc.record({ bus: maybe(bus) }, { requiredKeys: [] })),
    bootOrder: maybe(count),
    cache: maybe(fc.constantFrom("none", "writethrough", "writeback", "")),
    io: maybe(fc.constantFrom("native", "threads", "")),
    errorPolicy: maybe(fc.constantFrom("stop", "report", "ignore", "panic")),
    serial: maybe(fc.string({ maxLength: 8 })),
    dedicatedIOThread: rarely(fc.boolean()),
  },
  { requiredKeys: ["name"] },
);

const volume = fc.record(
  {
    name,
    containerDisk: maybe(fc.record({ image: fc.constant("kubevirt-ts/test-guest:latest") })),
    emptyDisk: maybe(fc.record({ capacity: quantity })),
    cloudInitNoCloud: maybe(fc.record({ userData: fc.string({ maxLength: 20 }) })),
    persistentVolumeClaim: rarely(fc.record({ claimName: fc.constant("pvc") })),
  },
  { requiredKeys: ["name"] },
);

const iface = fc.record(
  {
    name: networkName,
    masquerade: maybe(fc.constant({})),
    bridge: maybe(fc.constant({})),
    sriov: rarely(fc.constant({})),
    model: maybe(fc.constantFrom("virtio", "e1000e", "")),
    macAddress: maybe(fc.constantFrom("de:ad:00:00:be:af", "")),
    bootOrder: maybe(count),
    state: maybe(fc.constantFrom("up", "down", "absent", "")),
  },
  { requiredKeys: ["name"] },
);

const network = fc.record(
  {
    name: networkName,
    pod: maybe(fc.constant({})),
    multus: rarely(fc.record({ networkName: fc.constant("ns/net") })),
  },
  { requiredKeys: ["name"] },
);

const domain = fc.record(
  {
    cpu: maybe(
      fc.record(
        {
          sockets: maybe(count),
          cores: maybe(count),
          threads: maybe(count),
          maxSockets: maybe(count),
          model: maybe(fc.constantFrom("host-model", "host-passthrough", "qemu64", "")),
          features: maybe(
            fc.array(
              fc.record({
                name: fc.constantFrom("mpx", "invtsc", "x2apic"),
                policy: maybe(fc.constantFrom("require", "disable")),
              }),
              { maxLength: 2 },
            ),
          ),
          dedicatedCpuPlacement: rarely(fc.boolean()),
        },
        { requiredKeys: [] },
      ),
    ),
    memory: maybe(fc.record({ guest: maybe(quantity), maxGuest: maybe(quantity) }, { requiredKeys: [] })),
    resources: maybe(
      fc.record(
        {
          requests: maybe(fc.record({ memory: maybe(quantity), cpu: maybe(quantity) }, { requiredKeys: [] })),
          limits: maybe(fc.record({ memory: maybe(quantity), cpu: maybe(quantity) }, { requiredKeys: [] })),
        },
        { requiredKeys: [] },
      ),
    ),
    machine: maybe(fc.record({ type: fc.constantFrom("q35", "pc-q35-7.2", "") })),
    firmware: maybe(
      fc.record(
        {
          uuid: maybe(fc.uuid()),
          serial: maybe(fc.string({ maxLength: 8 })),
          bootloader: maybe(
            fc.record(
              {
                bios: maybe(fc.record({ useSerial: maybe(fc.boolean()) }, { requiredKeys: [] })),
                efi: rarely(fc.constant({})),
              },
              { requiredKeys: [] },
            ),
          ),
          kernelBoot: maybe(
            fc.record(
              {
                kernelArgs: maybe(fc.string({ maxLength: 12 })),
                container: maybe(
                  fc.record(
                    { image: fc.constant("k"), kernelPath: maybe(fc.constantFrom("/boot/vmlinuz", "", "/")) },
                    { requiredKeys: ["image"] },
                  ),
                ),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    features: maybe(
      fc.record(
        { acpi: toggle, apic: toggle, smm: toggle, hyperv: rarely(fc.constant({})) },
        { requiredKeys: [] },
      ),
    ),
    clock: maybe(
      fc.record(
        {
          utc: maybe(fc.record({ offsetSeconds: maybe(fc.integer()) }, { requiredKeys: [] })),
          timezone: maybe(fc.string({ maxLength: 10 })),
          timer: maybe(
            fc.record(
              {
                rtc: maybe(
                  fc.record(
                    { tickPolicy: maybe(fc.constantFrom("catchup", "delay")), present: maybe(fc.boolean()) },
                    { requiredKeys: [] },
                  ),
                ),
                hpet: maybe(fc.record({ present: maybe(fc.boolean()) }, { requiredKeys: [] })),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    rebootPolicy: maybe(fc.constantFrom("Reboot", "Terminate", "Other")),
    devices: fc.record(
      {
        disks: maybe(fc.array(sometimesJunk(disk), { maxLength: 4 })),
        interfaces: maybe(fc.array(iface, { maxLength: 2 })),
        inputs: maybe(
          fc.array(
            fc.record({
              name,
              type: fc.constantFrom("tablet", "keyboard"),
              bus: maybe(fc.constantFrom("usb", "virtio", "ps2")),
            }),
            { maxLength: 2 },
          ),
        ),
        rng: maybe(fc.constant({})),
        autoattachSerialConsole: maybe(fc.boolean()),
        autoattachGraphicsDevice: maybe(fc.boolean()),
        autoattachMemBalloon: maybe(fc.boolean()),
        blockMultiQueue: maybe(fc.boolean()),
        useVirtioTransitional: maybe(fc.boolean()),
        disableHotplug: maybe(fc.boolean()),
        gpus: rarely(fc.array(fc.record({ name, deviceName: fc.constant("nvidia/T4") }), { maxLength: 1 })),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ["devices"] },
);

const vmiShaped = fc.record({
  apiVersion: fc.constant("kubevirt.io/v1"),
  kind: fc.constant("VirtualMachineInstance"),
  metadata: fc.record(
    {
      name: fc.constantFrom("vm", "a.b", ""),
      namespace: fc.constantFrom("default", "ns"),
      uid: maybe(fc.uuid()),
      annotations: rarely(
        fc.dictionary(
          fc.constantFrom("kubevirt.io/disablePCIHole64", "kubevirt.io/ignitiondata", "x"),
          fc.constantFrom("true", "ignition", ""),
        ),
      ),
    },
    { requiredKeys: ["name", "namespace"] },
  ),
  spec: fc.record(
    {
      domain: sometimesJunk(domain),
      volumes: maybe(fc.array(volume, { maxLength: 4 })),
      networks: maybe(fc.array(network, { maxLength: 2 })),
      architecture: maybe(fc.constantFrom("amd64", "amd64", "amd64", "", "arm64")),
      startStrategy: maybe(fc.constantFrom("Paused", "")),
    },
    { requiredKeys: ["domain"] },
  ),
});

const cluster = clusterWith({ developerConfiguration: { useEmulation: true } });

const outcomes = { invalid: 0, refused: 0, converted: 0 };

/** Converts and writes the domain; only converter errors may come out. */
function convertOrRefuse(vmi: VirtualMachineInstance): void {
  let xml: string;
  try {
    const context = upstreamLayoutContext(vmi, {
      allowEmulation: true,
      hypervisorDeviceAvailable: false,
      containerDiskFormat: () => "qcow2",
    });
    xml = marshalDomainXML(convertVMIToDomain(vmi, context).spec);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    outcomes.refused++;
    return;
  }
  outcomes.converted++;
  expect(marshalDomainXML(unmarshalDomainXML(xml))).toBe(xml);
}

describe("the converter on random VMI-shaped input", () => {
  it("fails only with a validation error or a ConversionError", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(vmiShaped, (input) => {
        const parsed = parse(VirtualMachineInstanceSchema, input);
        if (!parsed.ok) {
          outcomes.invalid++;
          // The launcher answers such input with these field errors; each names where it is.
          expect(parsed.errors.length).toBeGreaterThan(0);
          for (const error of parsed.errors) expect(error.field).not.toBe("");
          return;
        }
        convertOrRefuse(parsed.value);
        const defaulted = setDefaultVirtualMachineInstance(cluster, parsed.value, { newUUID: fixedUUID });
        if (defaulted.ok) convertOrRefuse(defaulted.value);
      }),
      { numRuns: 200 },
    );
    console.log(`fuzz outcomes: ${JSON.stringify(outcomes)}`);
    // Random input that never got through would prove nothing about conversion.
    expect(outcomes.converted).toBeGreaterThan(0);
  });
});
