import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import { Quantity } from "../../../defaults/quantity.js";
import { quantityToBytes } from "./compute.js";
import type { ConverterContext } from "./context.js";
import { convertVMIToDomain } from "./converter.js";
import { ConversionError } from "./errors.js";
import { defaultedVMI, domainXMLOf, testContext } from "./testing.js";

type Domain = VirtualMachineInstanceSpec["domain"];

interface Row {
  rule: string;
  domain: Partial<Domain>;
  spec?: Partial<VirtualMachineInstanceSpec>;
  context?: Partial<ConverterContext>;
  contains: string[];
  absent?: string[];
}

function withDomain(domain: Partial<Domain>, spec: Partial<VirtualMachineInstanceSpec> = {}) {
  return defaultedVMI({ ...spec, domain: { devices: {}, ...domain } });
}

describe("memory", () => {
  const rows: Row[] = [
    {
      rule: "guest memory in bytes",
      domain: { memory: { guest: "1024M" } },
      contains: ['<memory unit="b">1024000000</memory>'],
      absent: ["<maxMemory"],
    },
    {
      rule: "the request when no guest memory is given",
      domain: { resources: { requests: { memory: "128Mi" } } },
      contains: ['<memory unit="b">134217728</memory>'],
    },
    {
      rule: "room for hotplug up to maxGuest, with the NUMA node libvirt 9.0 needs",
      domain: {
        memory: { guest: "1Gi", maxGuest: "2Gi" },
        cpu: { sockets: 1, cores: 2, threads: 1, maxSockets: 1 },
      },
      contains: [
        '<memory unit="b">1073741824</memory>',
        '<maxMemory unit="b" slots="1">2147483648</maxMemory>',
        '<numa><cell id="0" cpus="0-1" memory="1073741824" unit="b"/></numa>',
      ],
    },
    {
      rule: "no hotplug room when maxGuest equals guest",
      domain: { memory: { guest: "1Gi", maxGuest: "1Gi" } },
      contains: ['<memory unit="b">1073741824</memory>'],
      absent: ["<maxMemory", "<numa>"],
    },
  ];
  it.each(rows)("$rule", ({ domain, contains, absent = [] }) => {
    const xml = domainXMLOf(withDomain(domain));
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });

  it.each([
    ["1Gi", 1073741824],
    ["1500m", 1],
    ["2.5Ki", 2560],
    ["0", 0],
  ])("counts %s as %d bytes, a fraction rounded down", (text, bytes) => {
    expect(quantityToBytes(Quantity.parse(text))).toEqual({ value: bytes, unit: "b" });
  });

  it("refuses a negative size with upstream's message", () => {
    expect(() => quantityToBytes(Quantity.parse("-1Gi"))).toThrow(
      new ConversionError("Memory size '-1Gi' must be greater than or equal to 0"),
    );
  });
});

describe("vCPUs and CPU model", () => {
  const rows: Row[] = [
    {
      rule: "sockets × cores × threads vCPUs, statically placed",
      domain: { cpu: { sockets: 2, cores: 2, threads: 2, maxSockets: 2 } },
      contains: ['<topology sockets="2" cores="2" threads="2"/>', '<vcpu placement="static">8</vcpu>'],
    },
    {
      rule: "room for CPU hotplug up to maxSockets: the requested vCPUs enabled, the rest pluggable",
      domain: { cpu: { sockets: 1, cores: 2, threads: 1, maxSockets: 2 } },
      contains: [
        '<topology sockets="2" cores="2" threads="1"/>',
        '<vcpu placement="static">4</vcpu>',
        '<vcpus><vcpu id="0" enabled="yes" hotpluggable="no"/><vcpu id="1" enabled="yes" hotpluggable="no"/>' +
          '<vcpu id="2" enabled="no" hotpluggable="yes"/><vcpu id="3" enabled="no" hotpluggable="yes"/></vcpus>',
      ],
    },
    {
      rule: "host-model by default, which libvirt expands for TCG too",
      domain: {},
      contains: ['<cpu mode="host-model">'],
      absent: ["<feature "],
    },
    {
      rule: "host-passthrough as a mode",
      domain: { cpu: { model: "host-passthrough" } },
      contains: ['<cpu mode="host-passthrough">'],
    },
    {
      rule: "a named model as a custom CPU, with the deprecated mpx switched off",
      domain: { cpu: { model: "qemu64", features: [{ name: "x2apic", policy: "require" }] } },
      contains: [
        '<cpu mode="custom"><model>qemu64</model><feature name="x2apic" policy="require"/>' +
          '<feature name="mpx" policy="disable"/>',
      ],
    },
    {
      rule: "the user's own mpx setting is kept",
      domain: { cpu: { model: "qemu64", features: [{ name: "mpx", policy: "require" }] } },
      contains: ['<feature name="mpx" policy="require"/>'],
      absent: ['<feature name="mpx" policy="disable"/>'],
    },
  ];
  it.each(rows)("$rule", ({ domain, contains, absent = [] }) => {
    const xml = domainXMLOf(withDomain(domain));
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });

  it("takes sockets from the CPU limit when the VMI gives no topology at all", () => {
    const vmi = defaultedVMI();
    vmi.spec.domain.cpu = undefined;
    vmi.spec.domain.resources = { limits: { cpu: "3" }, requests: { cpu: "1" } };
    expect(domainXMLOf(vmi)).toContain('<topology sockets="3" cores="1" threads="1"/>');
  });

  it.each([
    ["a negative socket count", { sockets: -1 }, "spec.domain.cpu.sockets: -1 is not a positive integer"],
    [
      "more vCPUs than QEMU allows",
      { sockets: 64, cores: 128, maxSockets: 64 },
      "more than the 4096 QEMU allows",
    ],
  ])("refuses %s", (_rule, cpu, message) => {
    const vmi = withDomain({ cpu });
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(message);
  });
});

describe("hypervisor", () => {
  it.each([
    [
      "KVM when /dev/kvm is there",
      { hypervisorDeviceAvailable: true, allowEmulation: false },
      '<domain type="kvm"',
    ],
    [
      "TCG when KVM is missing and emulation allowed",
      { hypervisorDeviceAvailable: false },
      '<domain type="qemu"',
    ],
  ])("%s", (_rule, context, expected) => {
    const xml = domainXMLOf(defaultedVMI(), context);
    expect(xml).toContain(expected);
    expect(xml).toContain("<emulator>/usr/bin/qemu-system-x86_64</emulator>");
  });

  it("uses the emulator the context names", () => {
    expect(domainXMLOf(defaultedVMI(), { emulatorPath: "/opt/qemu" })).toContain(
      "<emulator>/opt/qemu</emulator>",
    );
  });

  it("refuses to run without KVM when emulation is not allowed, in upstream's words", () => {
    const vmi = defaultedVMI();
    const context = testContext(vmi, { hypervisorDeviceAvailable: false, allowEmulation: false });
    expect(() => convertVMIToDomain(vmi, context)).toThrow(
      new ConversionError("kvm not present and emulation is not allowed"),
    );
  });
});

describe("features, clock and reboot policy", () => {
  const rows: Row[] = [
    {
      rule: "ACPI on by default, the VMware port off",
      domain: {},
      contains: ['<features><acpi/><vmport state="off"/></features>'],
    },
    {
      rule: "ACPI switched off, APIC and SMM on",
      domain: { features: { acpi: { enabled: false }, apic: {}, smm: { enabled: true } } },
      contains: ['<features><apic/><smm/><vmport state="off"/></features>'],
    },
    {
      rule: "no clock element unless asked (libvirt's default is UTC)",
      domain: {},
      contains: [],
      absent: ["<clock"],
    },
    {
      rule: "UTC with an offset and timers",
      domain: {
        clock: {
          utc: { offsetSeconds: 3600 },
          timer: { rtc: { tickPolicy: "catchup", track: "guest" }, hpet: { present: false }, kvm: {} },
        },
      },
      contains: [
        '<clock offset="utc" adjustment="3600"><timer name="rtc" tickpolicy="catchup" present="yes" track="guest"/>' +
          '<timer name="kvmclock" present="yes"/><timer name="hpet" present="no"/></clock>',
      ],
    },
    {
      rule: "UTC reset at each boot when no offset is given",
      domain: { clock: { utc: {} } },
      contains: ['<clock offset="utc" adjustment="reset"/>'],
    },
    {
      rule: "a timezone",
      domain: { clock: { timezone: "Europe/Paris" } },
      contains: ['<clock offset="timezone" timezone="Europe/Paris"/>'],
    },
    {
      rule: "Terminate on reboot destroys the domain",
      domain: { rebootPolicy: "Terminate" },
      contains: ["<on_reboot>destroy</on_reboot>"],
    },
    {
      rule: "Reboot restarts it",
      domain: { rebootPolicy: "Reboot" },
      contains: ["<on_reboot>restart</on_reboot>"],
    },
  ];
  it.each(rows)("$rule", ({ domain, contains, absent = [] }) => {
    const xml = domainXMLOf(withDomain(domain));
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });

  it("gives an invariant-TSC guest the TSC frequency measured for its node", () => {
    const vmi = withDomain({ cpu: { model: "qemu64", features: [{ name: "invtsc", policy: "require" }] } });
    vmi.status = { ...vmi.status, topologyHints: { tscFrequency: 2_400_000_000 } };
    expect(domainXMLOf(vmi)).toContain('<clock><timer name="tsc" frequency="2400000000"/></clock>');
  });
});
