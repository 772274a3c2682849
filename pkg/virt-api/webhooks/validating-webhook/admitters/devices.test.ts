// One row per device, firmware, architecture and Hyper-V rule.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { specPath } from "../../../../api/causes.js";
import { validatePerArchitecture } from "./arch.js";
import { validateHyperv } from "./hyperv.js";
import { forbidden, invalid, notSupported, required, specCauses, specWith, type RuleRow } from "./testing.js";

const rows: RuleRow[] = [
  {
    rule: "input devices are tablets on virtio or usb",
    change: (spec) => {
      spec.domain.devices.inputs = [{ name: "kbd", type: "keyboard", bus: "ps2" }];
    },
    causes: [
      invalid("spec.domain.devices.inputs[0].bus", "Input device can have only virtio or usb bus."),
      invalid("spec.domain.devices.inputs[0].type", "Input device can have only tablet type."),
    ],
  },
  {
    rule: "the sound model is ich9 or ac97 (upstream writes spec.Sound)",
    change: (spec) => {
      spec.domain.devices.sound = { name: "audio", model: "sb16" };
    },
    causes: [invalid("spec.Sound", "Sound device type is not supported. Options: 'ich9' or 'ac97'")],
  },
  {
    rule: "video needs its feature gate (a Beta gate in v1.8.4: off unless listed)",
    change: (spec) => {
      spec.domain.devices.autoattachGraphicsDevice = false;
      spec.domain.devices.video = { type: "virtio" };
    },
    causes: [
      invalid(
        "spec.video",
        "Video configuration is specified but the VideoConfig feature gate is not enabled",
      ),
    ],
  },
  {
    rule: "video (its gate listed) needs the graphics device",
    change: (spec) => {
      spec.domain.devices.autoattachGraphicsDevice = false;
      spec.domain.devices.video = { type: "virtio" };
    },
    config: clusterWith({ developerConfiguration: { featureGates: ["VideoConfig"] } }),
    causes: [
      invalid(
        "spec.video",
        "Video configuration is not allowed when autoattachGraphicsDevice is set to false",
      ),
    ],
  },
  {
    rule: "panic devices need their feature gate (a Beta gate in v1.8.4: off unless listed)",
    change: (spec) => {
      spec.domain.devices.panicDevices = [{ model: "kaboom" }];
    },
    causes: [
      invalid(
        "spec.domain.devices.panicDevices",
        "Panic Devices feature gate is not enabled in kubevirt-config",
      ),
    ],
  },
  {
    rule: "panic device models (their gate listed) are known",
    change: (spec) => {
      spec.domain.devices.panicDevices = [{ model: "kaboom" }];
    },
    config: clusterWith({ developerConfiguration: { featureGates: ["PanicDevices"] } }),
    causes: [invalid("spec.domain.devices.panicDevices[0].model", "invalid PanicDeviceModel(kaboom)")],
  },
  {
    rule: "VSOCK needs its feature gate",
    change: (spec) => {
      spec.domain.devices.autoattachVSOCK = true;
    },
    causes: [
      invalid("spec.domain.devices.autoattachVSOCK", "VSOCK feature gate is not enabled in kubevirt-config"),
    ],
  },
  {
    rule: "host devices need their feature gate (upstream writes spec.HostDevices)",
    change: (spec) => {
      spec.domain.devices.hostDevices = [{ name: "usb", deviceName: "kubevirt.io/storage" }];
    },
    causes: [invalid("spec.HostDevices", "Host Devices feature gate is not enabled in kubevirt-config")],
  },
  {
    rule: "EFI and BIOS are exclusive",
    change: (spec) => {
      spec.domain.firmware = { bootloader: { bios: {}, efi: { secureBoot: false } } };
    },
    causes: [
      invalid(
        "spec.domain.firmware.bootloader",
        "spec.domain.firmware.bootloader has both EFI and BIOS configured, but they are mutually exclusive.",
      ),
    ],
  },
  {
    rule: "SecureBoot needs SMM",
    change: (spec) => {
      spec.domain.firmware = { bootloader: { efi: {} } };
      spec.domain.features = { smm: { enabled: false } };
    },
    causes: [
      invalid(
        "spec.domain",
        "spec.domain has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.",
      ),
    ],
  },
  {
    rule: "kernel boot needs an image and a kernel or initrd at clean paths",
    change: (spec) => {
      spec.domain.firmware = { kernelBoot: { container: { image: "", kernelPath: "boot/vmlinuz" } } };
    },
    causes: [
      required(
        "spec.domain.firmware.kernelBoot.container.image",
        "spec.domain.firmware.kernelBoot.container must be defined with an image",
      ),
      invalid(
        "spec.domain.firmware.kernelBoot.container.kernelPath",
        "spec.domain.firmware.kernelBoot.container.kernelPath must be an absolute path to a file without relative components",
      ),
    ],
  },
  {
    rule: "kernel arguments need a kernel",
    change: (spec) => {
      spec.domain.firmware = { kernelBoot: { kernelArgs: "console=ttyS0" } };
    },
    causes: [
      invalid(
        "spec.domain.firmware.kernelBoot.kernelArgs",
        "kernel arguments cannot be provided without an external kernel",
      ),
    ],
  },
  {
    rule: "ACPI tables name a Secret volume (upstream writes spec.acpi)",
    change: (spec) => {
      spec.domain.firmware = { acpi: { slicNameRef: "containerdisk", msdmNameRef: "missing" } };
    },
    causes: [
      invalid("spec.acpi.slicNameRef", "spec.acpi refers to Volume of unsupported type."),
      invalid("spec.acpi.msdmNameRef", "spec.acpi does not have a matching Volume."),
    ],
  },
  {
    rule: "launch security is one type, with its feature gate",
    change: (spec) => {
      spec.domain.launchSecurity = { sev: {}, tdx: {} };
    },
    causes: [forbidden("spec.launchSecurity", "One and only one launchSecurity type can be set")],
  },
  {
    rule: "SEV needs its feature gate (an Alpha gate in v1.8.4: off unless listed)",
    change: (spec) => {
      spec.domain.launchSecurity = { sev: {} };
    },
    causes: [
      invalid("spec.launchSecurity", "WorkloadEncryptionSEV feature gate is not enabled in kubevirt-config"),
    ],
  },
  {
    rule: "IBM Secure Execution on s390x needs its feature gate (a Beta gate in v1.8.4: off unless listed)",
    change: (spec) => {
      spec.architecture = "s390x";
      spec.domain.launchSecurity = {};
    },
    causes: [
      invalid("spec.launchSecurity", "SecureExecution feature gate is not enabled in kubevirt-config"),
    ],
  },
  {
    rule: "IBM Secure Execution on s390x (its gate listed) has nothing else to check",
    change: (spec) => {
      spec.architecture = "s390x";
      spec.domain.launchSecurity = {};
    },
    config: clusterWith({ developerConfiguration: { featureGates: ["SecureExecution"] } }),
    causes: [],
  },
  {
    rule: "SEV (its gate listed) needs UEFI without SecureBoot and no bootable NICs",
    change: (spec) => {
      spec.domain.launchSecurity = { sev: {} };
      const iface = spec.domain.devices.interfaces?.[0];
      if (iface) iface.bootOrder = 5;
    },
    config: clusterWith({ developerConfiguration: { featureGates: ["WorkloadEncryptionSEV"] } }),
    causes: [
      invalid("spec.launchSecurity", "SEV requires OVMF (UEFI)"),
      invalid("spec.launchSecurity", "SEV does not work with bootable NICs: default"),
    ],
  },
];

describe("device and firmware rules", () => {
  it.each(rows)("$rule", ({ change, causes, config }) => {
    expect(specCauses(change, config)).toEqual(causes);
  });
});

describe("architecture rules (VMI creation)", () => {
  const arch = (change: (spec: VirtualMachineInstanceSpec) => void) =>
    validatePerArchitecture(specPath(), specWith(change));

  it("accepts the defaults of amd64", () => {
    expect(arch(() => undefined)).toEqual([]);
  });

  it("refuses an architecture it does not know", () => {
    expect(arch((s) => (s.architecture = "riscv64"))).toEqual([
      invalid("spec.architecture", "unsupported architecture: riscv64"),
    ]);
  });

  it("refuses amd64 watchdogs and video models it has not", () => {
    const causes = arch((s) => {
      s.domain.devices.watchdog = { name: "w", diag288: {} };
      s.domain.devices.video = { type: "qxl" };
    });
    expect(causes).toEqual([
      notSupported("spec.domain.devices.watchdog", "amd64 only supports I6300ESB watchdog device"),
      notSupported(
        "spec.domain.devices.video.type",
        "video model 'qxl' is not supported on amd64 architecture",
      ),
    ]);
  });

  it("holds arm64 to UEFI, host-passthrough, virtio/scsi and no watchdog or sound", () => {
    const causes = arch((s) => {
      s.architecture = "arm64";
      s.domain.firmware = { bootloader: { bios: {} } };
      s.domain.cpu = { model: "host-model" };
      s.domain.devices.disks = [{ name: "containerdisk", disk: { bus: "sata" } }];
      s.domain.devices.watchdog = { name: "w", i6300esb: {} };
      s.domain.devices.sound = { name: "s" };
    });
    expect(causes).toEqual([
      notSupported(
        "spec.domain.firmware.bootloader.bios",
        "Arm64 does not support bios boot, please change to uefi boot",
      ),
      notSupported(
        "spec.domain.cpu.model",
        "currently, host-passthrough is the only model supported on Arm64",
      ),
      notSupported(
        "spec.domain.devices.disks[0].disk.bus",
        "Arm64 not support this disk bus type, please use virtio or scsi",
      ),
      notSupported("spec.domain.devices.watchdog", "Arm64 not support Watchdog device"),
      notSupported("spec.domain.devices.sound", "Arm64 not support sound device"),
    ]);
  });
});

describe("Hyper-V rules (VMI creation)", () => {
  const hyperv = (change: (spec: VirtualMachineInstanceSpec) => void) =>
    validateHyperv(specPath().child("domain", "features", "hyperv"), specWith(change));

  it("refuses an enlightenment whose prerequisite was switched off (upstream doubles the path)", () => {
    const causes = hyperv((s) => {
      s.domain.features = { hyperv: { synic: { enabled: true }, vpindex: { enabled: false } } };
    });
    const base = "spec.domain.features.hyperv.domain.features.hyperv";
    expect(causes).toEqual([
      invalid(`${base}.synic`, `'${base}.synic' requires '${base}.vpindex', which was disabled.`),
    ]);
  });

  it("wants the vmx CPU feature required with eVMCS", () => {
    expect(hyperv((s) => (s.domain.features = { hyperv: { evmcs: {}, vapic: { enabled: true } } }))).toEqual([
      required("spec.domain.cpu.features", "vmx cpu feature is required when evmcs is set"),
    ]);
    const optional = hyperv((s) => {
      s.domain.features = { hyperv: { evmcs: {} } };
      s.domain.cpu = { features: [{ name: "vmx", policy: "optional" }] };
    });
    expect(optional).toEqual([
      invalid("spec.domain.cpu.features[0].policy", "vmx cpu feature has to be set to require policy"),
    ]);
  });

  it("refuses explicit enlightenments with passthrough", () => {
    expect(hyperv((s) => (s.domain.features = { hyperv: {}, hypervPassthrough: {} }))).toEqual([
      invalid(
        "spec.domain.features.hyperv",
        "Cannot explicitly set hyperV features if HypervPassthrough is being used. Please use either HyperV or HypervPassthrough.",
      ),
    ]);
  });
});
