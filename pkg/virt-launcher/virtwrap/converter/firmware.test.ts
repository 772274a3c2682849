import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import { FIXED_UUID } from "../../../defaults/testing.js";
import type { ConverterContext } from "./context.js";
import type { DomainSpec } from "../api/schema.js";
import { marshalDomainXML } from "../api/domain-xml.js";
import { configureOS } from "./firmware.js";
import { compactXML, defaultedVMI, domainXMLOf, testContext } from "./testing.js";

interface Row {
  rule: string;
  spec: Partial<VirtualMachineInstanceSpec>;
  context?: Partial<ConverterContext>;
  contains: string[];
  absent?: string[];
}

const kubevirtSMBios = {
  manufacturer: "KubeVirt",
  product: "None",
  family: "KubeVirt",
  sku: "",
  version: "v1",
};

const rows: Row[] = [
  {
    rule: "an hvm x86_64 guest on the VMI's machine type, identified through SMBIOS",
    spec: { domain: { devices: {}, machine: { type: "pc-q35-7.2" } } },
    contains: ['<os><type arch="x86_64" machine="pc-q35-7.2">hvm</type><smbios mode="sysinfo"/></os>'],
    absent: ["<loader", "<kernel>"],
  },
  {
    rule: "the firmware UUID and serial in the SMBIOS system entries",
    spec: { domain: { devices: {}, firmware: { serial: "SN-1" } } },
    contains: [
      `<sysinfo type="smbios"><system><entry name="uuid">${FIXED_UUID}</entry>` +
        '<entry name="serial">SN-1</entry></system></sysinfo>',
    ],
  },
  {
    rule: "the cluster's SMBIOS fields after the VMI's own",
    spec: {},
    context: { smbios: kubevirtSMBios },
    contains: [
      `<entry name="uuid">${FIXED_UUID}</entry><entry name="manufacturer">KubeVirt</entry>` +
        '<entry name="family">KubeVirt</entry><entry name="product">None</entry><entry name="sku"/>' +
        '<entry name="version">v1</entry>',
    ],
  },
  {
    rule: "the chassis the VMI describes",
    spec: { domain: { devices: {}, chassis: { manufacturer: "acme", asset: "a-1" } } },
    contains: [
      '<chassis><entry name="manufacturer">acme</entry><entry name="version"/>' +
        '<entry name="serial"/><entry name="asset">a-1</entry><entry name="sku"/></chassis>',
    ],
  },
  {
    rule: "BIOS output on the serial port",
    spec: { domain: { devices: {}, firmware: { bootloader: { bios: { useSerial: true } } } } },
    contains: ['<bios useserial="yes"/>'],
  },
  {
    rule: "a boot menu for a VMI started paused, to give time to reach the BIOS",
    spec: { startStrategy: "Paused" },
    contains: ['<bootmenu enable="yes" timeout="10000"/>'],
  },
];

/** Kernel boot is outside the subset (the converter refuses it), but <os> is already built for it. */
const kernelBootRows: Row[] = [
  {
    rule: "direct kernel boot from the kernel-boot container's files, with the VMI's arguments",
    spec: {
      domain: {
        devices: {},
        firmware: {
          kernelBoot: {
            kernelArgs: "console=ttyS0",
            container: {
              image: "kernels:6.1",
              kernelPath: "/boot/vmlinuz-6.1",
              initrdPath: "/boot/initrd.img",
            },
          },
        },
      },
    },
    contains: [
      "<kernel>/var/run/kubevirt/container-disks/kernel-boot/vmlinuz-6.1</kernel>" +
        "<initrd>/var/run/kubevirt/container-disks/kernel-boot/initrd.img</initrd>" +
        "<cmdline>console=ttyS0</cmdline>",
    ],
  },
  {
    rule: "kernel arguments even without a kernel-boot container",
    spec: { domain: { devices: {}, firmware: { kernelBoot: { kernelArgs: "quiet" } } } },
    contains: ["<cmdline>quiet</cmdline>"],
    absent: ["<kernel>"],
  },
];

describe("os and sysinfo", () => {
  it.each(rows)("$rule", ({ spec, context = {}, contains, absent = [] }) => {
    const xml = domainXMLOf(defaultedVMI(spec), context);
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });
});

describe("direct kernel boot", () => {
  it("is refused by the converter as not supported yet", () => {
    const vmi = defaultedVMI({ domain: { devices: {}, firmware: { kernelBoot: { kernelArgs: "quiet" } } } });
    expect(() => domainXMLOf(vmi)).toThrow(
      "spec.domain.firmware.kernelBoot is not supported by kubevirt-ts yet",
    );
  });

  it.each(kernelBootRows)("$rule", ({ spec, contains, absent = [] }) => {
    const vmi = defaultedVMI(spec);
    const domain: DomainSpec = { os: { type: { os: "hvm" } } } as DomainSpec;
    configureOS(vmi, testContext(vmi), domain);
    const xml = compactXML(marshalDomainXML(domain));
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });
});
