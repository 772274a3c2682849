import { describe, expect, it } from "vitest";
import type { ObjectMeta } from "../../../api/generated/k8s.js";
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import { applyPreferenceToVMI } from "./vmi.js";

describe("preference VMI applier", () => {
  it("fills in devices only where the VM is silent", () => {
    const spec: VirtualMachineInstanceSpec = {
      domain: {
        devices: {
          disks: [{ name: "a" }, { name: "b", disk: { bus: "sata" } }, { name: "c", cdrom: {} }],
          interfaces: [{ name: "default" }, { name: "other", model: "e1000", bridge: {} }],
          autoattachMemBalloon: false,
        },
      },
      networks: [
        { name: "default", pod: {} },
        { name: "other", multus: { networkName: "n" } },
      ],
    };
    applyPreferenceToVMI(
      {
        devices: {
          preferredDiskBus: "virtio",
          preferredDiskDedicatedIoThread: true,
          preferredCdromBus: "sata",
          preferredInterfaceModel: "virtio",
          preferredInterfaceMasquerade: {},
          preferredAutoattachMemBalloon: true,
          preferredAutoattachSerialConsole: true,
          preferredNetworkInterfaceMultiQueue: true,
        },
      },
      spec,
      {},
    );
    const devices = spec.domain.devices!;
    expect(devices.disks).toEqual([
      { name: "a", disk: { bus: "virtio" }, dedicatedIOThread: true },
      { name: "b", disk: { bus: "sata" } },
      { name: "c", cdrom: { bus: "sata" } },
    ]);
    expect(devices.interfaces).toEqual([
      { name: "default", model: "virtio", masquerade: {} },
      { name: "other", model: "e1000", bridge: {} },
    ]);
    expect(devices.autoattachMemBalloon).toBe(false);
    expect(devices.autoattachSerialConsole).toBe(true);
    expect(devices.networkInterfaceMultiqueue).toBe(true);
  });

  it("fills firmware, machine, clock, features, subdomain, grace period, architecture and annotations", () => {
    const spec: VirtualMachineInstanceSpec = {
      domain: { devices: {}, features: { smm: { enabled: false } } },
    };
    const metadata: ObjectMeta = { annotations: { keep: "mine" } };
    applyPreferenceToVMI(
      {
        firmware: { preferredUseEfi: true, preferredUseSecureBoot: true },
        machine: { preferredMachineType: "q35" },
        clock: { preferredClockOffset: { utc: {} }, preferredTimer: { rtc: {} } },
        features: { preferredSmm: {}, preferredAcpi: {}, preferredHyperv: { relaxed: {} } },
        preferredSubdomain: "sub",
        preferredTerminationGracePeriodSeconds: 30,
        preferredArchitecture: "amd64",
        annotations: { keep: "theirs", add: "x" },
      },
      spec,
      metadata,
    );
    expect(spec.domain.firmware).toEqual({ bootloader: { efi: { secureBoot: true } } });
    expect(spec.domain.machine).toEqual({ type: "q35" });
    expect(spec.domain.clock).toEqual({ utc: {}, timer: { rtc: {} } });
    expect(spec.domain.features).toEqual({ smm: { enabled: false }, acpi: {}, hyperv: { relaxed: {} } });
    expect(spec.subdomain).toBe("sub");
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    expect(spec.architecture).toBe("amd64");
    expect(metadata.annotations).toEqual({ keep: "mine", add: "x" });
  });

  it("keeps the VM's own firmware, machine type and clock", () => {
    const spec: VirtualMachineInstanceSpec = {
      domain: {
        devices: {},
        firmware: { bootloader: { bios: {} } },
        machine: { type: "pc" },
        clock: { timezone: "Europe/Paris" },
      },
    };
    applyPreferenceToVMI(
      {
        firmware: { preferredEfi: { secureBoot: false }, preferredUseBiosSerial: true },
        machine: { preferredMachineType: "q35" },
        clock: { preferredClockOffset: { utc: {} } },
      },
      spec,
      {},
    );
    expect(spec.domain.firmware).toEqual({ bootloader: { bios: { useSerial: true } } });
    expect(spec.domain.machine).toEqual({ type: "pc" });
    expect(spec.domain.clock).toEqual({ timezone: "Europe/Paris" });
  });
});
