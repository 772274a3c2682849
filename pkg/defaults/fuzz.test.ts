// Property tests: VMI specs shaped like the API (covering every field defaulting reads, with good
// and bad values) under varied cluster configurations. Defaulting never throws, is idempotent, keeps
// what the user set and leaves an object the schema accepts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VirtualMachineInstanceSchema } from "../api/generated/v1.js";
import type { KubeVirtConfiguration, VirtualMachineInstance } from "../api/generated/v1.js";
import { setDefaultVirtualMachineInstance } from "./defaults.js";
import { Quantity } from "./quantity.js";
import { clusterWith, fixedUUID, leaves, lostOrChangedLeaves } from "./testing.js";

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const small = fc.integer({ min: 0, max: 700 });
const quantity = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 0, max: 5000 }),
      fc.constantFrom("", "m", "k", "M", "G", "Ki", "Mi", "Gi", ".5", ".25Gi", "e3"),
    )
    .map(([mantissa, suffix]) => `${mantissa}${suffix}`),
  fc.constantFrom("1.2.3", "-1Gi", "0"),
  fc.integer({ min: 0, max: 1 << 30 }),
);
const featureState = fc.record({ enabled: optional(fc.boolean()) }, { requiredKeys: [] });
const resourceList = fc.record({ cpu: quantity, memory: quantity }, { requiredKeys: [] });
const name = fc.constantFrom("root", "data", "cloudinit", "default", "share");
const bus = optional(fc.constantFrom("virtio", "sata", "scsi", "usb", ""));

const hyperv = fc.record(
  {
    relaxed: featureState,
    vapic: featureState,
    vpindex: featureState,
    synic: featureState,
    synictimer: fc.record(
      { enabled: optional(fc.boolean()), direct: optional(featureState) },
      { requiredKeys: [] },
    ),
    tlbflush: fc.record(
      { enabled: optional(fc.boolean()), extended: optional(featureState) },
      { requiredKeys: [] },
    ),
    ipi: featureState,
    evmcs: featureState,
    spinlocks: fc.record(
      { enabled: optional(fc.boolean()), spinlocks: optional(fc.integer({ min: 4096, max: 8192 })) },
      { requiredKeys: [] },
    ),
    vendorid: fc.record(
      { enabled: optional(fc.boolean()), vendorid: optional(fc.string({ maxLength: 12 })) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const disk = fc.record(
  {
    name,
    disk: optional(fc.record({ bus }, { requiredKeys: [] })),
    cdrom: optional(
      fc.record(
        { bus, readonly: optional(fc.boolean()), tray: optional(fc.constantFrom("open", "closed")) },
        { requiredKeys: [] },
      ),
    ),
    lun: optional(fc.record({ bus }, { requiredKeys: [] })),
    blockSize: optional(fc.record({ matchVolume: featureState }, { requiredKeys: [] })),
  },
  { requiredKeys: ["name"] },
);

const probe = fc.record(
  {
    tcpSocket: fc.constant({ port: 22 }),
    timeoutSeconds: optional(fc.integer({ min: -2, max: 5 })),
    periodSeconds: optional(fc.integer({ min: -2, max: 30 })),
    successThreshold: optional(fc.integer({ min: -2, max: 3 })),
    failureThreshold: optional(fc.integer({ min: -2, max: 6 })),
  },
  { requiredKeys: ["tcpSocket"] },
);

const domain = fc.record(
  {
    devices: fc.record(
      {
        disks: optional(fc.array(disk, { maxLength: 4 })),
        interfaces: optional(fc.array(fc.record({ name, masquerade: fc.constant({}) }), { maxLength: 2 })),
        inputs: optional(
          fc.array(fc.record({ name, type: fc.constantFrom("", "tablet"), bus: bus }), { maxLength: 2 }),
        ),
        watchdog: optional(
          fc.record(
            {
              name,
              i6300esb: optional(
                fc.record({ action: optional(fc.constantFrom("poweroff", "")) }, { requiredKeys: [] }),
              ),
            },
            { requiredKeys: ["name"] },
          ),
        ),
        filesystems: optional(fc.array(fc.record({ name, virtiofs: fc.constant({}) }), { maxLength: 1 })),
        autoattachPodInterface: optional(fc.boolean()),
      },
      { requiredKeys: [] },
    ),
    resources: optional(fc.record({ requests: resourceList, limits: resourceList }, { requiredKeys: [] })),
    cpu: optional(
      fc.record(
        {
          sockets: small,
          cores: small,
          threads: fc.integer({ min: 0, max: 2 }),
          maxSockets: small,
          model: fc.constantFrom("", "host-passthrough", "Haswell"),
          dedicatedCpuPlacement: fc.boolean(),
          isolateEmulatorThread: fc.boolean(),
          realtime: fc.constant({}),
          features: fc.array(
            fc.record(
              {
                name: fc.constantFrom("vmx", "pdpe1gb"),
                policy: optional(fc.constantFrom("require", "disable")),
              },
              { requiredKeys: ["name"] },
            ),
            { maxLength: 2 },
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    memory: optional(
      fc.record(
        {
          guest: quantity,
          maxGuest: quantity,
          hugepages: fc.record({ pageSize: fc.constantFrom("2Mi", "1Gi", "huge") }),
        },
        { requiredKeys: [] },
      ),
    ),
    machine: optional(
      fc.record({ type: optional(fc.constantFrom("", "q35", "pc-i440fx-2.12")) }, { requiredKeys: [] }),
    ),
    features: optional(
      fc.record(
        { acpi: featureState, apic: featureState, smm: featureState, pvspinlock: featureState, hyperv },
        { requiredKeys: [] },
      ),
    ),
    clock: optional(
      fc.record({
        timer: fc.record(
          {
            hpet: fc.record({ present: optional(fc.boolean()) }, { requiredKeys: [] }),
            rtc: fc.constant({}),
          },
          { requiredKeys: [] },
        ),
      }),
    ),
    firmware: optional(
      fc.record(
        { uuid: optional(fc.uuid()), serial: optional(fc.string({ maxLength: 8 })) },
        { requiredKeys: [] },
      ),
    ),
    launchSecurity: optional(fc.constantFrom({ sev: {} }, { tdx: {} })),
  },
  { requiredKeys: ["devices"] },
);

const spec = fc.record(
  {
    domain,
    architecture: optional(fc.constantFrom("", "amd64", "arm64", "s390x", "ppc64le")),
    evictionStrategy: optional(fc.constantFrom("None", "LiveMigrate")),
    volumes: optional(
      fc.array(
        fc.record({
          name,
          containerDisk: fc.record({
            image: fc.constantFrom("cirros", "cirros:latest", "cirros:v1", "r/c@sha256:1"),
          }),
        }),
        { maxLength: 3 },
      ),
    ),
    networks: optional(fc.array(fc.record({ name, pod: fc.constant({}) }), { maxLength: 1 })),
    readinessProbe: optional(probe),
    livenessProbe: optional(probe),
  },
  { requiredKeys: ["domain"] },
);

const configuration: fc.Arbitrary<KubeVirtConfiguration> = fc.record(
  {
    cpuModel: fc.constantFrom("", "Skylake"),
    cpuRequest: fc.constantFrom("100m", "250m"),
    machineType: fc.constantFrom("", "pc-q35-9.0"),
    evictionStrategy: fc.constantFrom("None", "LiveMigrate"),
    vmRolloutStrategy: fc.constantFrom("LiveUpdate", "Stage"),
    network: fc.record({
      defaultNetworkInterface: fc.constantFrom("bridge", "masquerade", "slirp"),
      permitBridgeInterfaceOnPodNetwork: fc.boolean(),
    }),
    liveUpdateConfiguration: fc.record(
      {
        maxCpuSockets: small,
        maxGuest: fc.constantFrom("4Gi", "16Gi"),
        maxHotplugRatio: fc.integer({ min: 1, max: 8 }),
      },
      { requiredKeys: [] },
    ),
    developerConfiguration: fc.record({ featureGates: fc.subarray(["Root", "AlignCPUs"]) }),
  },
  { requiredKeys: [] },
);

/** Changes upstream makes to what the user wrote: Go zero values (also zero quantities), probe values below 1, vmx made required. */
function userSetLeavesOnly(before: VirtualMachineInstance): VirtualMachineInstance {
  const kept = structuredClone(before);
  for (const [path, value] of leaves(before)) {
    const text = path.join(".");
    const zero =
      value === "" || value === 0 || (/resources\./.test(text) && Quantity.tryParse(value)?.isZero());
    const lowProbeValue = /Probe\./.test(text) && typeof value === "number" && value < 1;
    const cpuFeaturePolicy = /cpu\.features\.\d+\.policy$/.test(text);
    if (zero || lowProbeValue || cpuFeaturePolicy) {
      let parent: unknown = kept;
      for (const step of path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown>)[step];
      delete (parent as Record<PropertyKey, unknown>)[path[path.length - 1] ?? ""];
    }
  }
  return kept;
}

describe("defaulting API-shaped VMIs", () => {
  it("never throws, is idempotent, keeps what the user set and stays schema-valid", () => {
    fc.assert(
      fc.property(configuration, spec, (config, vmiSpec) => {
        const vmi: VirtualMachineInstance = {
          metadata: { name: "fuzz" },
          spec: vmiSpec as VirtualMachineInstance["spec"],
        };
        const cluster = clusterWith(config);
        const once = setDefaultVirtualMachineInstance(cluster, vmi, { newUUID: fixedUUID });
        if (!once.ok) {
          expect(once.message).toMatch(/interface/);
          return;
        }
        const twice = setDefaultVirtualMachineInstance(cluster, once.value, { newUUID: () => "other" });
        expect(twice).toEqual(once);
        expect(lostOrChangedLeaves(userSetLeavesOnly(vmi), once.value)).toEqual([]);
        if (VirtualMachineInstanceSchema.safeParse(vmi).success) {
          expect(VirtualMachineInstanceSchema.safeParse(once.value).error?.issues).toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
