import { describe, expect, it } from "vitest";
import type { Devices } from "../../../api/generated/v1.js";
import type { ConverterContext } from "./context.js";
import { convertVMIToDomain } from "./converter.js";
import { TEST_UID, defaultedVMI, domainXMLOf, testContext } from "./testing.js";

const privateDir = `/var/run/kubevirt-private/${TEST_UID}`;

interface Row {
  rule: string;
  devices?: Devices;
  annotations?: Record<string, string>;
  context?: Partial<ConverterContext>;
  contains: string[];
  absent?: string[];
}

const rows: Row[] = [
  {
    rule: "the serial console on a unix socket in the launcher's private dir, logged, with a console on it",
    contains: [
      `<serial type="unix"><target port="0"/><source mode="bind" path="${privateDir}/virt-serial0"/>` +
        `<log file="${privateDir}/virt-serial0-log" append="on"/></serial>`,
      '<console type="pty"><target type="serial" port="0"/></console>',
      '<controller type="virtio-serial" index="0" model="virtio-non-transitional"/>',
    ],
  },
  {
    rule: "the socket path the context gives",
    context: { serialConsoleSocket: "/run/vmi/console.sock" },
    contains: ['<source mode="bind" path="/run/vmi/console.sock"/>'],
  },
  {
    rule: "no console log when the VMI turns it off",
    devices: { logSerialConsole: false },
    contains: ["<serial "],
    absent: ["<log "],
  },
  {
    rule: "no console log when the cluster turns it off",
    context: { serialConsoleLogDisabled: true },
    contains: ["<serial "],
    absent: ["<log "],
  },
  {
    rule: "the VMI's own wish for a log over the cluster's",
    devices: { logSerialConsole: true },
    context: { serialConsoleLogDisabled: true },
    contains: ["virt-serial0-log"],
  },
  {
    rule: "no serial console, console or virtio-serial controller when not auto-attached",
    devices: { autoattachSerialConsole: false },
    contains: [],
    absent: ["<serial ", "<console ", 'type="virtio-serial"'],
  },
  {
    rule: "the guest agent channel, its socket left to libvirt",
    contains: ['<channel type="unix"><target name="org.qemu.guest_agent.0" type="virtio"/></channel>'],
  },
  {
    rule: "a virtio RNG fed from /dev/urandom when asked",
    devices: { rng: {} },
    contains: ['<rng model="virtio-non-transitional"><backend model="random">/dev/urandom</backend></rng>'],
  },
  {
    rule: "no RNG unless asked",
    contains: [],
    absent: ["<rng "],
  },
  {
    rule: "a virtio balloon with free page reporting and the stats period",
    contains: [
      '<memballoon model="virtio-non-transitional" freePageReporting="on"><stats period="10"/></memballoon>',
    ],
  },
  {
    rule: "no stats with a zero period, no free page reporting when the cluster disables it",
    context: { memBalloonStatsPeriod: 0, freePageReportingDisabled: true },
    contains: ['<memballoon model="virtio-non-transitional" freePageReporting="off"/>'],
  },
  {
    rule: "no free page reporting when the VMI's annotation disables it",
    annotations: { "kubevirt.io/free-page-reporting-disabled": "true" },
    contains: ['freePageReporting="off"'],
  },
  {
    rule: "a balloon of model none when not auto-attached",
    devices: { autoattachMemBalloon: false },
    contains: ['<memballoon model="none"/>'],
  },
  {
    rule: "VNC on a unix socket in the private dir, with a VGA card",
    contains: [
      `<video><model type="vga" heads="1" vram="16384"/></video><graphics type="vnc">` +
        `<listen type="socket" socket="${privateDir}/virt-vnc"/></graphics>`,
    ],
  },
  {
    rule: "the video type the VMI names",
    devices: { video: { type: "virtio" } },
    contains: ['<model type="virtio" heads="1" vram="16384"/>'],
  },
  {
    rule: "no graphics or video when not auto-attached",
    devices: { autoattachGraphicsDevice: false },
    contains: [],
    absent: ["<graphics", "<video>"],
  },
  {
    rule: "no input devices and no USB controller unless asked",
    contains: ['<controller type="usb" index="0" model="none"/>'],
    absent: ["<input "],
  },
  {
    rule: "a USB tablet brings a USB controller",
    devices: { inputs: [{ name: "tablet0", type: "tablet", bus: "usb" }] },
    contains: ['<input type="tablet" bus="usb"><alias name="ua-tablet0"/></input>', 'model="qemu-xhci"'],
  },
  {
    rule: "a virtio tablet needs no USB",
    devices: { inputs: [{ name: "tablet0", type: "tablet", bus: "virtio" }] },
    contains: [
      '<input type="tablet" bus="virtio" model="virtio">',
      '<controller type="usb" index="0" model="none"/>',
    ],
  },
  {
    rule: "a SCSI controller kept for disk hotplug",
    contains: ['<controller type="scsi" index="0" model="virtio-non-transitional"/>'],
  },
  {
    rule: "no SCSI controller when hotplug is disabled and no disk needs one",
    devices: { disableHotplug: true },
    contains: [],
    absent: ['type="scsi"'],
  },
  {
    rule: "the 64-bit PCI hole closed when the annotation asks",
    annotations: { "kubevirt.io/disablePCIHole64": "True" },
    contains: [
      '<controller type="pci" index="0" model="pcie-root"><pcihole64 unit="KiB">0</pcihole64></controller>',
    ],
  },
];

describe("devices", () => {
  it.each(rows)("$rule", ({ devices = {}, annotations, context = {}, contains, absent = [] }) => {
    const vmi = defaultedVMI({ domain: { devices } }, annotations ? { annotations } : {});
    const xml = domainXMLOf(vmi, context);
    for (const fragment of contains) expect(xml).toContain(fragment);
    for (const fragment of absent) expect(xml).not.toContain(fragment);
  });

  it.each([
    ["bus", { name: "kbd", type: "tablet", bus: "ps2" }, "input contains unsupported bus ps2"],
    ["type", { name: "kbd", type: "keyboard", bus: "usb" }, "input contains unsupported type keyboard"],
  ])("refuses an input device of another %s, in upstream's words", (_what, input, message) => {
    const vmi = defaultedVMI({ domain: { devices: {} } });
    vmi.spec.domain.devices.inputs = [input];
    expect(() => convertVMIToDomain(vmi, testContext(vmi))).toThrow(message);
  });
});
