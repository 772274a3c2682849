import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { marshalDeviceXML, marshalDomainXML, unmarshalDomainXML } from "./domain-xml.js";
import type { Disk, DomainSpec } from "./schema.js";
import { DomainXMLError } from "./xml-codec.js";

const overlayDisk: Disk = {
  device: "disk",
  type: "file",
  model: "virtio-non-transitional",
  source: { file: "/var/run/kubevirt-ephemeral-disks/disk-data/root/disk.qcow2" },
  target: { bus: "virtio", device: "vda" },
  driver: { name: "qemu", type: "qcow2", errorPolicy: "stop", discard: "unmap", cache: "none" },
  alias: { name: "root", userDefined: true },
  backingStore: {
    type: "file",
    format: { type: "raw" },
    source: { file: "/var/run/kubevirt/container-disks/disk_0.img" },
  },
  bootOrder: { order: 1 },
};

function sampleSpec(): DomainSpec {
  return {
    type: "qemu",
    xmlNS: "http://libvirt.org/schemas/domain/qemu/1.0",
    name: "default_testvmi",
    memory: { value: 268435456, unit: "b" },
    os: { type: { os: "hvm", arch: "x86_64", machine: "q35" }, smbios: { mode: "sysinfo" } },
    sysInfo: { type: "smbios", system: [{ name: "uuid", value: "0d6b8a37-5d0a-4b8f-9a50-1d4b2f7d1c11" }] },
    devices: {
      emulator: "/usr/bin/qemu-system-x86_64",
      interfaces: [
        {
          type: "ethernet",
          target: { device: "tap0", managed: "no" },
          model: { type: "virtio-non-transitional" },
          mac: { mac: "02:00:00:00:00:01" },
          alias: { name: "default", userDefined: true },
          rom: { enabled: "no" },
        },
      ],
      disks: [overlayDisk, { ...overlayDisk, readOnly: {}, bootOrder: undefined, serial: "a<&>\"'b" }],
      serials: [{ type: "unix", target: { port: 0 }, source: { mode: "bind", path: "/run/serial0" } }],
      consoles: [{ type: "pty", target: { type: "serial", port: 0 } }],
      controllers: [{ type: "pci", index: "0", model: "pcie-root", pciHole64: { value: 0, unit: "KiB" } }],
      rng: { model: "virtio-non-transitional", backend: { model: "random", source: "/dev/urandom" } },
    },
    metadata: {
      kubeVirt: {
        uid: "1234",
        gracePeriod: {
          deletionGracePeriodSeconds: 30,
          deletionTimestamp: "2026-11-30T10:00:00Z",
          markedForGracefulShutdown: true,
        },
      },
    },
    features: { acpi: {}, vmPort: { state: "off" } },
    cpu: { mode: "host-model", topology: { sockets: 2, cores: 1, threads: 1 } },
    vcpu: { placement: "static", cpus: 2 },
    vcpus: {
      vcpu: [
        { id: 0, enabled: "yes", hotpluggable: "no" },
        { id: 1, enabled: "no", hotpluggable: "yes" },
      ],
    },
  };
}

/** Drops the keys whose value is undefined, as a round trip through XML does. */
function withoutUndefined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

describe("domain XML", () => {
  it("writes libvirt's element and attribute names", () => {
    const xml = marshalDomainXML(sampleSpec());
    for (const expected of [
      '<domain type="qemu" xmlns:qemu="http://libvirt.org/schemas/domain/qemu/1.0">',
      '<memory unit="b">268435456</memory>',
      '<type arch="x86_64" machine="q35">hvm</type>',
      '<target dev="tap0" managed="no"/>',
      '<alias name="ua-root"/>',
      '<driver cache="none" error_policy="stop" name="qemu" type="qcow2" discard="unmap"/>',
      '<entry name="uuid">0d6b8a37-5d0a-4b8f-9a50-1d4b2f7d1c11</entry>',
      '<kubevirt xmlns="http://kubevirt.io">',
      '<pcihole64 unit="KiB">0</pcihole64>',
      "<deletionGracePeriodSeconds>30</deletionGracePeriodSeconds>",
      "<markedForGracefulShutdown>true</markedForGracefulShutdown>",
      "<serial>a&lt;&amp;&gt;&quot;&apos;b</serial>",
      '<vcpu id="1" enabled="no" hotpluggable="yes"/>',
    ]) {
      expect(xml).toContain(expected);
    }
  });

  it("reads back what it writes", () => {
    const spec = sampleSpec();
    expect(unmarshalDomainXML(marshalDomainXML(spec))).toEqual(withoutUndefined(spec));
  });

  // fast-xml-parser needs a few milliseconds per document on these machines: a modest number of runs.
  it("keeps the spaces around character data", () => {
    const spec = sampleSpec();
    spec.os.kernelArgs = " console=ttyS0 ";
    spec.sysInfo = { type: "smbios", system: [{ name: "serial", value: " " }] };
    expect(unmarshalDomainXML(marshalDomainXML(spec))).toEqual(withoutUndefined(spec));
  });

  it("round-trips any names, paths and sizes", { timeout: 30_000 }, () => {
    const text = fc.string({ unit: "binary", maxLength: 40 }).map((s) => s.replace(/[^\P{C}\t]/gu, ""));
    fc.assert(
      fc.property(text, text, fc.nat(), fc.nat({ max: 4096 }), (name, path, bytes, port) => {
        const spec = sampleSpec();
        spec.name = name;
        spec.memory.value = bytes;
        spec.devices.serials = [
          { type: "unix", target: { port }, source: { mode: "bind", path: path.trim() } },
        ];
        expect(unmarshalDomainXML(marshalDomainXML(spec))).toEqual(withoutUndefined(spec));
      }),
      { numRuns: 40 },
    );
  });

  it("reads the XML libvirt 9.0 gives back for a running domain, ignoring what it adds", () => {
    const xml = readFileSync(new URL("testdata/libvirt-9.0-running-domain.xml", import.meta.url), "utf8");
    const spec = unmarshalDomainXML(xml);
    expect(spec.type).toBe("qemu");
    expect(spec.name).toBe("default_vmi-fedora");
    expect(spec.metadata?.kubeVirt.uid).toBe("11111111-2222-4333-8444-555555555555");
    expect(spec.vcpu).toEqual({ placement: "static", cpus: 4 });
    expect(spec.vcpus?.vcpu?.[0]).toEqual({ id: 0, enabled: "yes", hotpluggable: "no", order: 1 });
    const [root, cloudInit] = spec.devices.disks ?? [];
    expect(root?.alias).toEqual({ name: "containerdisk", userDefined: true });
    expect(root?.backingStore?.source?.file).toBe("/var/run/kubevirt/container-disks/disk_0.img");
    expect(cloudInit?.target).toEqual({ bus: "virtio", device: "vdb" });
    expect(spec.devices.serials?.[0]?.source?.path).toMatch(/virt-serial0$/);
    // virt-handler's AgentConnected condition is read from the agent channel's state.
    expect(spec.devices.channels?.[0]?.target).toEqual({
      type: "virtio",
      name: "org.qemu.guest_agent.0",
      state: "disconnected",
    });
    expect(spec.devices.controllers?.find((c) => c.type === "usb")?.alias).toEqual({
      name: "usb",
      userDefined: false,
    });
  });

  it("reads a domain without <cpu> or <devices> as having empty ones", () => {
    const spec = unmarshalDomainXML(
      '<domain type="kvm"><name>x</name><memory unit="KiB">1024</memory><os><type>hvm</type></os></domain>',
    );
    expect(spec).toEqual({
      type: "kvm",
      name: "x",
      memory: { value: 1024, unit: "KiB" },
      os: { type: { os: "hvm" } },
      devices: {},
      cpu: {},
    });
  });

  it("writes a single device as its own document", () => {
    expect(marshalDeviceXML("disk", overlayDisk)).toMatch(/^<disk device="disk" type="file"/);
  });

  it.each([
    ["not well-formed XML", "<domain><name>x</domain>", /not well-formed/],
    ["another root element", "<network><name>x</name></network>", /no <domain> root/],
    [
      "a missing required element",
      '<domain type="kvm"><memory unit="b">1</memory></domain>',
      /missing <name>/,
    ],
    [
      "a malformed number",
      '<domain type="kvm"><name>x</name><memory unit="b">12x</memory></domain>',
      /\/domain\/memory: expected an unsigned integer/,
    ],
  ])("refuses %s with a DomainXMLError", (_case, xml, message) => {
    expect(() => unmarshalDomainXML(xml)).toThrow(DomainXMLError);
    expect(() => unmarshalDomainXML(xml)).toThrow(message);
  });
});
