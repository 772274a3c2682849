import { describe, expect, it } from "vitest";
import type {
  KubeVirtConfiguration,
  VirtualMachine,
  VirtualMachineInstanceSpec,
} from "../api/generated/v1.js";
import {
  setDefaultVirtualMachineInstance,
  setDefaultVirtualMachineInstanceSpec,
  setVirtualMachineDefaults,
} from "./defaults.js";
import { clusterWith, FIXED_UUID, fixedUUID, minimalVMI, valueAt } from "./testing.js";

interface Rule {
  rule: string;
  spec?: Partial<VirtualMachineInstanceSpec>;
  /** domain members merged into the minimal domain */
  domain?: Partial<VirtualMachineInstanceSpec["domain"]>;
  config?: KubeVirtConfiguration;
  /** path (from the VMI root) → expected value; `undefined` means "must stay unset" */
  expect: Record<string, unknown>;
}

function defaulted(rule: Pick<Rule, "spec" | "domain" | "config">) {
  const vmi = minimalVMI({ ...rule.spec });
  vmi.spec.domain = { ...vmi.spec.domain, ...rule.domain };
  const result = setDefaultVirtualMachineInstance(clusterWith(rule.config), vmi, { newUUID: fixedUUID });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function check(rules: Rule[]): void {
  it.each(rules.map((rule) => [rule.rule, rule] as const))("%s", (_name, rule) => {
    const vmi = defaulted(rule);
    for (const [path, expected] of Object.entries(rule.expect))
      expect(valueAt(vmi, path), path).toEqual(expected);
  });
}

const D = "spec.domain";

describe("architecture and machine type", () => {
  check([
    { rule: "architecture defaults to the cluster's", expect: { "spec.architecture": "amd64" } },
    {
      rule: "a given architecture is kept",
      spec: { architecture: "s390x" },
      expect: { "spec.architecture": "s390x" },
    },
    { rule: "machine type defaults to q35", expect: { [`${D}.machine`]: { type: "q35" } } },
    {
      rule: "an empty machine type is filled",
      domain: { machine: {} },
      expect: { [`${D}.machine.type`]: "q35" },
    },
    {
      rule: "a given machine type is kept",
      domain: { machine: { type: "pc-q35-rhel8.6.0" } },
      expect: { [`${D}.machine.type`]: "pc-q35-rhel8.6.0" },
    },
    {
      rule: "the cluster's machine type wins over q35",
      config: { machineType: "pc-q35-9.0" },
      expect: { [`${D}.machine.type`]: "pc-q35-9.0" },
    },
  ]);
});

describe("CPU requests, topology and model", () => {
  check([
    {
      rule: "CPU limits without requests become requests",
      domain: { resources: { limits: { cpu: "2" } } },
      expect: { [`${D}.resources.requests.cpu`]: "2" },
    },
    {
      rule: "the copied request is written as Go writes it",
      domain: { resources: { limits: { cpu: "1000m" } } },
      expect: { [`${D}.resources.requests.cpu`]: "1", [`${D}.resources.limits.cpu`]: "1000m" },
    },
    {
      rule: "existing CPU requests are kept",
      domain: { resources: { limits: { cpu: "2" }, requests: { cpu: "500m" } } },
      expect: { [`${D}.resources.requests.cpu`]: "500m" },
    },
    {
      rule: "the default cluster CPU request (100m) is not written",
      expect: { [`${D}.resources`]: undefined },
    },
    {
      rule: "a non-default cluster CPU request fills missing requests",
      config: { cpuRequest: "500m" },
      expect: { [`${D}.resources.requests.cpu`]: "500m" },
    },
    {
      rule: "the cluster CPU request skips dedicated CPUs",
      config: { cpuRequest: "500m" },
      domain: { cpu: { dedicatedCpuPlacement: true } },
      expect: { [`${D}.resources`]: undefined },
    },
    {
      rule: "the cluster CPU request does not override a request",
      config: { cpuRequest: "500m" },
      domain: { resources: { requests: { cpu: "2" } } },
      expect: { [`${D}.resources.requests.cpu`]: "2" },
    },
    {
      rule: "no topology means one socket, one core, one thread",
      expect: { [`${D}.cpu.sockets`]: 1, [`${D}.cpu.cores`]: 1, [`${D}.cpu.threads`]: 1 },
    },
    {
      rule: "the CPU limit becomes sockets",
      domain: { resources: { limits: { cpu: "3" } } },
      expect: { [`${D}.cpu.sockets`]: 3, [`${D}.cpu.cores`]: 1 },
    },
    {
      rule: "a fractional CPU request rounds up to sockets",
      domain: { resources: { requests: { cpu: "2500m" } } },
      expect: { [`${D}.cpu.sockets`]: 3 },
    },
    {
      rule: "the limit wins over the request for sockets",
      domain: { resources: { requests: { cpu: "2" }, limits: { cpu: "4" } } },
      expect: { [`${D}.cpu.sockets`]: 4 },
    },
    {
      rule: "a partial topology is kept as given",
      domain: { cpu: { cores: 2 } },
      expect: { [`${D}.cpu.cores`]: 2, [`${D}.cpu.sockets`]: undefined, [`${D}.cpu.threads`]: undefined },
    },
    { rule: "CPU model defaults to host-model", expect: { [`${D}.cpu.model`]: "host-model" } },
    {
      rule: "the cluster's CPU model wins over host-model",
      config: { cpuModel: "Haswell-noTSX" },
      expect: { [`${D}.cpu.model`]: "Haswell-noTSX" },
    },
    {
      rule: "a given CPU model is kept",
      config: { cpuModel: "Haswell-noTSX" },
      domain: { cpu: { model: "Skylake" } },
      expect: { [`${D}.cpu.model`]: "Skylake" },
    },
  ]);
});

describe("guest memory", () => {
  check([
    {
      rule: "guest memory from memory requests",
      domain: { resources: { requests: { memory: "64M" } } },
      expect: { [`${D}.memory.guest`]: "64M" },
    },
    {
      rule: "guest memory is written canonically",
      domain: { resources: { requests: { memory: "1.5Gi" } } },
      expect: { [`${D}.memory.guest`]: "1536Mi", [`${D}.resources.requests.memory`]: "1.5Gi" },
    },
    {
      rule: "guest memory from limits without requests",
      domain: { resources: { limits: { memory: "2Gi" } } },
      expect: { [`${D}.memory.guest`]: "2Gi" },
    },
    {
      rule: "requests win over limits",
      domain: { resources: { requests: { memory: "1Gi" }, limits: { memory: "2Gi" } } },
      expect: { [`${D}.memory.guest`]: "1Gi" },
    },
    {
      rule: "guest memory from the hugepage size",
      domain: { memory: { hugepages: { pageSize: "2Mi" } } },
      expect: { [`${D}.memory.guest`]: "2Mi" },
    },
    {
      rule: "a given guest memory is kept",
      domain: { memory: { guest: "128Mi" }, resources: { requests: { memory: "1Gi" } } },
      expect: { [`${D}.memory.guest`]: "128Mi" },
    },
    {
      rule: "no memory anywhere leaves an empty memory section",
      config: { vmRolloutStrategy: "Stage" },
      expect: { [`${D}.memory`]: {} },
    },
  ]);
});

describe("eviction strategy", () => {
  check([
    { rule: "defaults to the cluster's (None)", expect: { "spec.evictionStrategy": "None" } },
    {
      rule: "the cluster's strategy",
      config: { evictionStrategy: "LiveMigrate" },
      expect: { "spec.evictionStrategy": "LiveMigrate" },
    },
    {
      rule: "a given strategy is kept",
      config: { evictionStrategy: "LiveMigrate" },
      spec: { evictionStrategy: "External" },
      expect: { "spec.evictionStrategy": "External" },
    },
  ]);
});

describe("disks, volumes and container disks", () => {
  const containerDisk = (image: string, imagePullPolicy?: "Never") => ({
    volumes: [{ name: "root", containerDisk: { image, imagePullPolicy } }],
  });
  check([
    {
      rule: ":latest images are always pulled",
      spec: containerDisk("quay.io/kubevirt/cirros:latest"),
      expect: { "spec.volumes[0].containerDisk.imagePullPolicy": "Always" },
    },
    {
      rule: "untagged images are always pulled",
      spec: containerDisk("quay.io/kubevirt/cirros"),
      expect: { "spec.volumes[0].containerDisk.imagePullPolicy": "Always" },
    },
    {
      rule: "tagged images are pulled if not present",
      spec: containerDisk("quay.io/kubevirt/cirros:v1.2"),
      expect: { "spec.volumes[0].containerDisk.imagePullPolicy": "IfNotPresent" },
    },
    {
      rule: "digests are pulled if not present",
      spec: containerDisk("registry/cirros@sha256:abc"),
      expect: { "spec.volumes[0].containerDisk.imagePullPolicy": "IfNotPresent" },
    },
    {
      rule: "a given pull policy is kept",
      spec: containerDisk("quay.io/kubevirt/cirros", "Never"),
      expect: { "spec.volumes[0].containerDisk.imagePullPolicy": "Never" },
    },
    {
      rule: "a volume without a disk gets a SATA disk",
      spec: { volumes: [{ name: "root", emptyDisk: { capacity: "1Gi" } }] },
      expect: { [`${D}.devices.disks`]: [{ name: "root", disk: { bus: "sata" } }] },
    },
    {
      rule: "a volume used as a filesystem gets no disk",
      spec: { volumes: [{ name: "share", persistentVolumeClaim: { claimName: "pvc" } }] },
      domain: { devices: { filesystems: [{ name: "share", virtiofs: {} }] } },
      expect: { [`${D}.devices.disks`]: undefined },
    },
    {
      rule: "a disk without a target is a disk on SATA",
      domain: { devices: { disks: [{ name: "d" }] } },
      expect: { [`${D}.devices.disks[0].disk`]: { bus: "sata" } },
    },
    {
      rule: "a given bus is kept",
      domain: { devices: { disks: [{ name: "d", disk: { bus: "virtio" } }] } },
      expect: { [`${D}.devices.disks[0].disk.bus`]: "virtio" },
    },
    {
      rule: "a CD-ROM is read-only, closed and on SATA",
      domain: { devices: { disks: [{ name: "c", cdrom: {} }] } },
      expect: {
        [`${D}.devices.disks[0].cdrom`]: { bus: "sata", readonly: true, tray: "closed" },
        [`${D}.devices.disks[0].disk`]: undefined,
      },
    },
    {
      rule: "a writable, open CD-ROM stays so",
      domain: { devices: { disks: [{ name: "c", cdrom: { readonly: false, tray: "open" } }] } },
      expect: {
        [`${D}.devices.disks[0].cdrom.readonly`]: false,
        [`${D}.devices.disks[0].cdrom.tray`]: "open",
      },
    },
    {
      rule: "a LUN is on SATA",
      domain: { devices: { disks: [{ name: "l", lun: {} }] } },
      expect: { [`${D}.devices.disks[0].lun.bus`]: "sata" },
    },
    {
      rule: "a block size matching the volume is enabled",
      domain: { devices: { disks: [{ name: "d", blockSize: { matchVolume: {} } }] } },
      expect: { [`${D}.devices.disks[0].blockSize.matchVolume.enabled`]: true },
    },
  ]);
});

describe("network", () => {
  check([
    {
      rule: "no network at all gets the pod network on a bridge",
      expect: {
        [`${D}.devices.interfaces`]: [{ name: "default", bridge: {} }],
        "spec.networks": [{ name: "default", pod: {} }],
      },
    },
    {
      rule: "masquerade when the cluster says so",
      config: { network: { defaultNetworkInterface: "masquerade" } },
      expect: {
        [`${D}.devices.interfaces`]: [{ name: "default", masquerade: {} }],
        "spec.networks": [{ name: "default", pod: {} }],
      },
    },
    {
      rule: "no pod interface when autoattach is off",
      domain: { devices: { autoattachPodInterface: false } },
      expect: { [`${D}.devices.interfaces`]: undefined, "spec.networks": undefined },
    },
    {
      rule: "given interfaces are left alone",
      domain: { devices: { interfaces: [{ name: "a", masquerade: {} }] } },
      expect: { [`${D}.devices.interfaces`]: [{ name: "a", masquerade: {} }], "spec.networks": undefined },
    },
    {
      rule: "given networks are left alone",
      spec: { networks: [{ name: "b", pod: {} }] },
      expect: { [`${D}.devices.interfaces`]: undefined, "spec.networks": [{ name: "b", pod: {} }] },
    },
  ]);

  it.each([
    [
      "bridge is not permitted",
      { network: { permitBridgeInterfaceOnPodNetwork: false } },
      "bridge interface is not enabled in kubevirt-config",
    ],
    [
      "slirp is the default",
      { network: { defaultNetworkInterface: "slirp" } },
      "slirp interface is deprecated as of v1.3",
    ],
  ])("refuses to default when %s", (_case, config, message) => {
    const result = setDefaultVirtualMachineInstance(clusterWith(config), minimalVMI(), {
      newUUID: fixedUUID,
    });
    expect(result).toEqual({ ok: false, message });
    expect(setDefaultVirtualMachineInstanceSpec(clusterWith(config), minimalVMI().spec)).toEqual({
      ok: false,
      message,
    });
  });
});

describe("firmware, features, clock and devices", () => {
  check([
    { rule: "a firmware UUID is generated", expect: { [`${D}.firmware.uuid`]: FIXED_UUID } },
    {
      rule: "a given firmware UUID is kept",
      domain: { firmware: { uuid: "my-uuid" } },
      expect: { [`${D}.firmware.uuid`]: "my-uuid" },
    },
    { rule: "ACPI is on", expect: { [`${D}.features`]: { acpi: { enabled: true } } } },
    {
      rule: "ACPI switched off stays off",
      domain: { features: { acpi: { enabled: false } } },
      expect: { [`${D}.features.acpi.enabled`]: false },
    },
    {
      rule: "a mentioned APIC is on",
      domain: { features: { apic: {} } },
      expect: { [`${D}.features.apic.enabled`]: true },
    },
    {
      rule: "a mentioned SMM is on",
      domain: { features: { smm: {} } },
      expect: { [`${D}.features.smm.enabled`]: true },
    },
    { rule: "an unmentioned SMM stays unset", expect: { [`${D}.features.smm`]: undefined } },
    {
      rule: "a mentioned Hyper-V feature is on",
      domain: { features: { hyperv: { relaxed: {} } } },
      expect: { [`${D}.features.hyperv.relaxed.enabled`]: true },
    },
    {
      rule: "spinlocks are on with 4096 retries",
      domain: { features: { hyperv: { spinlocks: {} } } },
      expect: { [`${D}.features.hyperv.spinlocks`]: { enabled: true, spinlocks: 4096 } },
    },
    {
      rule: "disabled spinlocks get no retry count",
      domain: { features: { hyperv: { spinlocks: { enabled: false } } } },
      expect: { [`${D}.features.hyperv.spinlocks`]: { enabled: false } },
    },
    {
      rule: "mentioned timers are present unless said otherwise",
      domain: { clock: { utc: {}, timer: { hpet: {}, rtc: { present: false }, kvm: {} } } },
      expect: {
        [`${D}.clock.timer`]: { hpet: { present: true }, rtc: { present: false }, kvm: { present: true } },
      },
    },
    {
      rule: "inputs are USB tablets",
      domain: { devices: { inputs: [{ name: "t" } as never] } },
      expect: { [`${D}.devices.inputs[0]`]: { name: "t", bus: "usb", type: "tablet" } },
    },
    {
      rule: "probe values below the minimum get Kubernetes' defaults",
      spec: {
        readinessProbe: { httpGet: { port: 80 }, periodSeconds: 0 },
        livenessProbe: { tcpSocket: { port: 22 }, failureThreshold: 5 },
      },
      expect: {
        "spec.readinessProbe": {
          httpGet: { port: 80 },
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        },
        "spec.livenessProbe.failureThreshold": 5,
      },
    },
    {
      rule: "a watchdog is an i6300esb that resets",
      domain: { devices: { watchdog: { name: "w" } } },
      expect: { [`${D}.devices.watchdog`]: { name: "w", i6300esb: { action: "reset" } } },
    },
    {
      rule: "a given watchdog action is kept",
      domain: { devices: { watchdog: { name: "w", i6300esb: { action: "poweroff" } } } },
      expect: { [`${D}.devices.watchdog.i6300esb.action`]: "poweroff" },
    },
    {
      rule: "a vGPU display's ramfb is on",
      domain: {
        devices: {
          gpus: [{ name: "g", deviceName: "nvidia", virtualGPUOptions: { display: { ramFB: {} } } }],
        },
      },
      expect: { [`${D}.devices.gpus[0].virtualGPUOptions.display.ramFB.enabled`]: true },
    },
  ]);
});

describe("Hyper-V dependencies", () => {
  const H = `${D}.features.hyperv`;
  check([
    {
      rule: "synic pulls in vpindex",
      domain: { features: { hyperv: { synic: {} } } },
      expect: { [`${H}.vpindex.enabled`]: true },
    },
    {
      rule: "synictimer pulls in synic and vpindex",
      domain: { features: { hyperv: { synictimer: {} } } },
      expect: {
        [`${H}.synic.enabled`]: true,
        [`${H}.vpindex.enabled`]: true,
        [`${H}.synictimer.enabled`]: true,
      },
    },
    {
      rule: "ipi pulls in vpindex",
      domain: { features: { hyperv: { ipi: {} } } },
      expect: { [`${H}.vpindex.enabled`]: true },
    },
    {
      rule: "tlbflush pulls in vpindex",
      domain: { features: { hyperv: { tlbflush: {} } } },
      expect: { [`${H}.vpindex.enabled`]: true },
    },
    {
      rule: "evmcs pulls in vapic and the vmx CPU feature",
      domain: { features: { hyperv: { evmcs: {} } } },
      expect: { [`${H}.vapic.enabled`]: true, [`${D}.cpu.features`]: [{ name: "vmx", policy: "require" }] },
    },
    {
      rule: "evmcs makes an existing vmx feature required",
      domain: {
        features: { hyperv: { evmcs: {} } },
        cpu: { features: [{ name: "pdpe1gb" }, { name: "vmx", policy: "disable" }] },
      },
      expect: { [`${D}.cpu.features`]: [{ name: "pdpe1gb" }, { name: "vmx", policy: "require" }] },
    },
    {
      rule: "disabled evmcs needs nothing",
      domain: { features: { hyperv: { evmcs: { enabled: false } } } },
      expect: { [`${H}.vapic`]: undefined, [`${D}.cpu.features`]: undefined },
    },
    {
      rule: "a prerequisite switched off is left off (the validating webhook refuses)",
      domain: { features: { hyperv: { synic: {}, vpindex: { enabled: false } } } },
      expect: { [`${H}.vpindex.enabled`]: false, [`${H}.synic.enabled`]: true },
    },
    {
      rule: "the walk stops at the first conflict, keeping what it did before",
      domain: { features: { hyperv: { evmcs: {}, synictimer: {}, synic: { enabled: false } } } },
      expect: { [`${H}.vapic.enabled`]: true, [`${H}.synic.enabled`]: false, [`${H}.vpindex`]: undefined },
    },
  ]);
});

describe("initial status", () => {
  check([
    {
      rule: "guest memory is reported at boot, current and requested",
      domain: { resources: { requests: { memory: "1Gi" } } },
      expect: { "status.memory": { guestAtBoot: "1Gi", guestCurrent: "1Gi", guestRequested: "1Gi" } },
    },
    {
      rule: "the CPU topology is reported",
      domain: { cpu: { sockets: 2, cores: 3, threads: 1 } },
      expect: { "status.currentCPUTopology": { sockets: 2, cores: 3, threads: 1 } },
    },
    {
      rule: "zero counts are left out of the reported topology",
      domain: { cpu: { sockets: 1, cores: 1 } },
      expect: { "status.currentCPUTopology": { sockets: 1, cores: 1 } },
    },
  ]);

  it("keeps a reported topology", () => {
    const vmi = minimalVMI({ domain: { devices: {}, cpu: { sockets: 4 } } });
    vmi.status = { currentCPUTopology: { sockets: 2 } };
    const result = setDefaultVirtualMachineInstance(clusterWith(), vmi, { newUUID: fixedUUID });
    expect(result.ok && result.value.status?.currentCPUTopology).toEqual({ sockets: 2 });
  });
});

describe("hotplug room (LiveUpdate rollout)", () => {
  const gi = (n: number) => ({ resources: { requests: { memory: `${n}Gi` } } });
  check([
    { rule: "max sockets are four times the sockets", expect: { [`${D}.cpu.maxSockets`]: 4 } },
    {
      rule: "max sockets use the cluster's hotplug ratio",
      config: { liveUpdateConfiguration: { maxHotplugRatio: 2 } },
      domain: { cpu: { sockets: 3 } },
      expect: { [`${D}.cpu.maxSockets`]: 6 },
    },
    {
      rule: "max sockets stay within 512 vCPUs",
      domain: { cpu: { sockets: 100, cores: 2, threads: 1 } },
      expect: { [`${D}.cpu.maxSockets`]: 256 },
    },
    {
      rule: "the bound never goes below the sockets",
      domain: { cpu: { sockets: 600, cores: 1, threads: 1 } },
      expect: { [`${D}.cpu.maxSockets`]: 600 },
    },
    {
      rule: "the cluster's max sockets win",
      config: { liveUpdateConfiguration: { maxCpuSockets: 8 } },
      expect: { [`${D}.cpu.maxSockets`]: 8 },
    },
    {
      rule: "the cluster's max sockets never go below the sockets",
      config: { liveUpdateConfiguration: { maxCpuSockets: 2 } },
      domain: { cpu: { sockets: 5 } },
      expect: { [`${D}.cpu.maxSockets`]: 5 },
    },
    {
      rule: "given max sockets are kept",
      domain: { cpu: { sockets: 2, maxSockets: 3 } },
      expect: { [`${D}.cpu.maxSockets`]: 3 },
    },
    {
      rule: "max guest is four times the guest memory",
      domain: gi(2),
      expect: { [`${D}.memory.maxGuest`]: "8Gi" },
    },
    {
      rule: "the cluster's max guest wins",
      config: { liveUpdateConfiguration: { maxGuest: "16Gi" } },
      domain: gi(2),
      expect: { [`${D}.memory.maxGuest`]: "16Gi" },
    },
    {
      rule: "given max guest is kept",
      domain: { ...gi(2), memory: { maxGuest: "4Gi" } },
      expect: { [`${D}.memory.maxGuest`]: "4Gi" },
    },
    {
      rule: "no memory hotplug below 1Gi",
      domain: { resources: { requests: { memory: "128Mi" } } },
      expect: { [`${D}.memory.maxGuest`]: undefined },
    },
    {
      rule: "no memory hotplug for unaligned guests",
      domain: { resources: { requests: { memory: "1025Mi" } } },
      expect: { [`${D}.memory.maxGuest`]: undefined },
    },
    {
      rule: "no memory hotplug for realtime",
      domain: { ...gi(2), cpu: { realtime: {} } },
      expect: { [`${D}.memory.maxGuest`]: undefined },
    },
    {
      rule: "no memory hotplug for encrypted guests",
      domain: { ...gi(2), launchSecurity: { sev: {} } },
      expect: { [`${D}.memory.maxGuest`]: undefined },
    },
    {
      rule: "no memory hotplug when guest exceeds the cluster max",
      config: { liveUpdateConfiguration: { maxGuest: "1Gi" } },
      domain: gi(2),
      expect: { [`${D}.memory.maxGuest`]: undefined },
    },
    {
      rule: "no hotplug room with the Stage rollout",
      config: { vmRolloutStrategy: "Stage" },
      domain: gi(2),
      expect: { [`${D}.cpu.maxSockets`]: undefined, [`${D}.memory.maxGuest`]: undefined },
    },
  ]);
});

describe("other architectures", () => {
  check([
    {
      rule: "arm64: host-passthrough, UEFI without secure boot, virtio disks, no hotplug room",
      spec: { architecture: "arm64" },
      domain: { devices: { disks: [{ name: "d" }] } },
      expect: {
        [`${D}.machine.type`]: "virt",
        [`${D}.cpu.model`]: "host-passthrough",
        [`${D}.firmware.bootloader`]: { efi: { secureBoot: false } },
        [`${D}.devices.disks[0].disk.bus`]: "virtio",
        [`${D}.cpu.maxSockets`]: undefined,
      },
    },
    {
      rule: "s390x: ACPI off, virtio disks, diag288 watchdog",
      spec: { architecture: "s390x" },
      domain: { devices: { disks: [{ name: "d" }], watchdog: { name: "w" } } },
      expect: {
        [`${D}.features.acpi.enabled`]: false,
        [`${D}.devices.disks[0].disk.bus`]: "virtio",
        [`${D}.devices.watchdog`]: { name: "w", diag288: { action: "reset" } },
      },
    },
  ]);
});

describe("pure functions", () => {
  it("never change their input", () => {
    const vmi = minimalVMI({ volumes: [{ name: "root", containerDisk: { image: "cirros" } }] });
    const before = structuredClone(vmi);
    setDefaultVirtualMachineInstance(clusterWith(), vmi, { newUUID: fixedUUID });
    setDefaultVirtualMachineInstanceSpec(clusterWith(), vmi.spec);
    expect(vmi).toEqual(before);
  });
});

describe("setVirtualMachineDefaults", () => {
  const vm = (template: VirtualMachine["spec"]["template"]): VirtualMachine => ({
    metadata: { name: "vm" },
    spec: { runStrategy: "Always", template },
  });

  it.each<[string, VirtualMachine, KubeVirtConfiguration, Record<string, unknown>]>([
    [
      "architecture and machine type on the template",
      vm({ spec: { domain: { devices: {} } } }),
      {},
      { "spec.template.spec.architecture": "amd64", "spec.template.spec.domain.machine.type": "q35" },
    ],
    [
      "the cluster's machine type",
      vm({ spec: { domain: { devices: {} } } }),
      { machineType: "pc-q35-9.0" },
      { "spec.template.spec.domain.machine.type": "pc-q35-9.0" },
    ],
    [
      "a given machine type is kept",
      vm({ spec: { domain: { devices: {}, machine: { type: "pc-q35-8.0" } } } }),
      {},
      { "spec.template.spec.domain.machine.type": "pc-q35-8.0" },
    ],
    [
      "an arm64 template gets arm64's machine type",
      vm({ spec: { architecture: "arm64", domain: { devices: {} } } }),
      {},
      { "spec.template.spec.domain.machine.type": "virt" },
    ],
    [
      "nothing else of the template is defaulted",
      vm({ spec: { domain: { devices: {} } } }),
      {},
      { "spec.template.spec.domain.cpu": undefined, "spec.runStrategy": "Always" },
    ],
    ["an empty template gets a spec", vm({}), {}, { "spec.template.spec.domain.machine.type": "q35" }],
  ])("sets %s", (_rule, input, config, expected) => {
    const result = setVirtualMachineDefaults(clusterWith(config), input);
    for (const [path, value] of Object.entries(expected)) expect(valueAt(result, path), path).toEqual(value);
  });
});
