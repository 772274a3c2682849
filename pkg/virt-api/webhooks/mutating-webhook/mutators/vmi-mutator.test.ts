import { describe, expect, it } from "vitest";
import type {
  KubeVirt,
  KubeVirtConfiguration,
  VirtualMachineInstance,
} from "../../../../api/generated/v1.js";
import { clusterWith, FIXED_UUID, fixedUUID, minimalVMI } from "../../../../defaults/testing.js";
import { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import type { MutationResponse } from "./admission.js";
import {
  applyNewVMIMutations,
  EmulatorThreadCompleteToEvenParity,
  mutateVirtualMachineInstance,
  PresetDeprecationWarning,
  type VMIMutatorContext,
} from "./vmi-mutator.js";

const HANDLER = "system:serviceaccount:kubevirt:kubevirt-handler";
const NOW = new Date("2024-05-06T07:08:09.123Z");

function context(config: ClusterConfig = clusterWith()): VMIMutatorContext {
  return {
    clusterConfig: config,
    kubeVirtServiceAccounts: new Set([HANDLER]),
    newUUID: fixedUUID,
    now: () => NOW,
  };
}

/** The object the apiserver would store after applying the response's patch. */
function patched(object: VirtualMachineInstance, response: MutationResponse): VirtualMachineInstance {
  const result = structuredClone(object) as unknown as Record<string, unknown>;
  for (const op of response.patch ?? []) {
    expect(op.op).toBe("replace");
    result[op.path.slice(1)] = op.value;
  }
  return result as unknown as VirtualMachineInstance;
}

function create(vmi: VirtualMachineInstance, config?: ClusterConfig) {
  const response = mutateVirtualMachineInstance({ operation: "CREATE", object: vmi }, context(config));
  return { response, vmi: patched(vmi, response) };
}

describe("VMI mutator on CREATE", () => {
  it("replaces spec, metadata and status with their defaulted versions", () => {
    const { response, vmi } = create(minimalVMI());
    expect(response.allowed).toBe(true);
    expect(response.patchType).toBe("JSONPatch");
    expect(response.patch?.map((op) => op.path)).toEqual(["/spec", "/metadata", "/status"]);
    expect(vmi.spec.domain.machine?.type).toBe("q35");
    expect(vmi.spec.domain.firmware?.uuid).toBe(FIXED_UUID);
  });

  it("writes numeric quantities as Go's re-encoded spec does", () => {
    const input = minimalVMI({
      domain: { devices: {}, resources: { requests: { cpu: 0.5, memory: 2222222.2 }, limits: { cpu: 2 } } },
      volumes: [{ name: "scratch", emptyDisk: { capacity: 1073741824 } }],
    });
    const { vmi } = create(input);
    expect(vmi.spec.domain.resources).toEqual({
      requests: { cpu: "500m", memory: "2222222200m" },
      limits: { cpu: "2" },
    });
    expect(vmi.spec.volumes?.[0]?.emptyDisk?.capacity).toBe("1073741824");
  });

  it("adds the foreground-delete finalizer after the user's", () => {
    const input = minimalVMI();
    input.metadata = { ...input.metadata, finalizers: ["example.com/keep"] };
    expect(create(input).vmi.metadata?.finalizers).toEqual([
      "example.com/keep",
      "kubevirt.io/foregroundDeleteVirtualMachine",
    ]);
  });

  it("starts the VMI Pending, with the transition time in whole seconds", () => {
    const { vmi } = create(minimalVMI());
    expect(vmi.status?.phase).toBe("Pending");
    expect(vmi.status?.phaseTransitionTimestamps).toEqual([
      { phase: "Pending", phaseTransitionTimestamp: "2024-05-06T07:08:09Z" },
    ]);
  });

  it.each<[string, KubeVirtConfiguration, number | undefined]>([
    ["runs non-root (uid 107) by default", {}, 107],
    [
      "runs as root with the Root feature gate",
      { developerConfiguration: { featureGates: ["Root"] } },
      undefined,
    ],
  ])("%s", (_case, configuration, runtimeUser) => {
    expect(create(minimalVMI(), clusterWith(configuration)).vmi.status?.runtimeUser).toBe(runtimeUser);
  });

  it.each<
    [string, Partial<VirtualMachineInstance["spec"]>, Record<string, string> | undefined, string | undefined]
  >([
    ["q35 gets PCI topology v3", {}, undefined, "v3"],
    [
      "i440fx gets no PCI topology version",
      { domain: { devices: {}, machine: { type: "pc-i440fx-2.12" } } },
      undefined,
      undefined,
    ],
    ["s390x gets no PCI topology version", { architecture: "s390x" }, undefined, undefined],
    ["a recorded version is kept", {}, { "kubevirt.io/pci-topology-version": "v2" }, "v2"],
  ])("%s", (_case, spec, annotations, expected) => {
    const input = minimalVMI(spec);
    if (annotations) input.metadata = { ...input.metadata, annotations };
    expect(create(input).vmi.metadata?.annotations?.["kubevirt.io/pci-topology-version"]).toBe(expected);
  });

  describe("EmulatorThreadCompleteToEvenParity", () => {
    const kubeVirt = (gates: string[], annotated: boolean): KubeVirt => ({
      metadata: {
        name: "kubevirt",
        annotations: annotated ? { [EmulatorThreadCompleteToEvenParity]: "" } : {},
      },
      spec: { configuration: { developerConfiguration: { featureGates: gates } } },
      status: { phase: "Deployed", defaultArchitecture: "amd64" },
    });
    it.each<[string, string[], boolean, boolean, boolean]>([
      [
        "copied with the gate, the CR annotation and an isolated emulator thread",
        ["AlignCPUs"],
        true,
        true,
        true,
      ],
      ["not copied without the AlignCPUs gate", [], true, true, false],
      ["not copied without the CR annotation", ["AlignCPUs"], false, true, false],
      ["not copied without isolateEmulatorThread", ["AlignCPUs"], true, false, false],
    ])("is %s", (_case, gates, annotated, isolate, copied) => {
      const input = minimalVMI({
        domain: { devices: {}, cpu: { isolateEmulatorThread: isolate, dedicatedCpuPlacement: true } },
      });
      const { vmi } = create(input, ClusterConfig.fromKubeVirt(kubeVirt(gates, annotated)));
      expect(vmi.metadata?.annotations?.[EmulatorThreadCompleteToEvenParity] !== undefined).toBe(copied);
    });
  });

  it("tells a TDX guest where the quote generation service listens", () => {
    const input = minimalVMI({ domain: { devices: {}, launchSecurity: { tdx: {} } } });
    expect(create(input).vmi.metadata?.annotations?.["kubevirt.io/qgs-socket-path"]).toBe(
      "/var/run/tdx-qgs/qgs.socket",
    );
    expect(create(minimalVMI()).vmi.metadata?.annotations?.["kubevirt.io/qgs-socket-path"]).toBeUndefined();
  });

  it("warns about deprecated presets", () => {
    const input = minimalVMI();
    input.metadata = {
      ...input.metadata,
      annotations: { "virtualmachinepreset.kubevirt.io/small": "kubevirt.io/v1" },
    };
    expect(create(input).response.warnings).toEqual([PresetDeprecationWarning]);
    expect(create(minimalVMI()).response.warnings).toBeUndefined();
  });

  const cpuPreset = (name: string, cores: number) => ({
    metadata: { name },
    spec: { selector: { matchLabels: { size: "small" } }, domain: { devices: {}, cpu: { cores } } },
  });

  it("applies matching presets before defaulting, annotates them and warns they are deprecated", () => {
    const input = minimalVMI();
    input.metadata = { ...input.metadata, labels: { size: "small" } };
    const response = mutateVirtualMachineInstance(
      { operation: "CREATE", object: input },
      { ...context(), presets: [cpuPreset("small", 2)] },
    );
    const vmi = patched(input, response);
    expect(vmi.spec.domain.cpu?.cores).toBe(2);
    expect(vmi.metadata?.annotations?.["virtualmachinepreset.kubevirt.io/small"]).toBe("kubevirt.io/v1");
    expect(response.warnings).toEqual([PresetDeprecationWarning]);
  });

  it("refuses a VMI whose presets conflict, with 422", () => {
    const input = minimalVMI();
    input.metadata = { ...input.metadata, labels: { size: "small" } };
    const response = mutateVirtualMachineInstance(
      { operation: "CREATE", object: input },
      { ...context(), presets: [cpuPreset("a", 2), cpuPreset("b", 4)] },
    );
    expect(response).toEqual({
      allowed: false,
      result: {
        code: 422,
        message:
          "VirtualMachinePresets cannot be applied due to conflicts: presets 'b' and 'a' conflict: spec.cpu: &{4 0 0 0  [] false <nil> false <nil>} != &{2 0 0 0  [] false <nil> false <nil>}",
      },
    });
  });

  it("refuses with a 400 when the cluster forbids the default interface", () => {
    const config = clusterWith({ network: { permitBridgeInterfaceOnPodNetwork: false } });
    const response = mutateVirtualMachineInstance(
      { operation: "CREATE", object: minimalVMI() },
      context(config),
    );
    expect(response).toEqual({
      allowed: false,
      result: { message: "bridge interface is not enabled in kubevirt-config", code: 400 },
    });
  });

  it("refuses objects that do not fit the schema with a 422 naming the fields", () => {
    const object = { metadata: { name: "x" }, spec: { domain: { devices: { disks: [{ bus: "virtio" }] } } } };
    const response = mutateVirtualMachineInstance({ operation: "CREATE", object }, context());
    expect(response.allowed).toBe(false);
    expect(response.result?.code).toBe(422);
    expect(response.result?.reason).toBe("Invalid");
    expect(response.result?.details?.causes.map((cause) => cause.field)).toContain(
      "spec.domain.devices.disks[0].name",
    );
  });
});

describe("applyNewVMIMutations", () => {
  it("is idempotent", () => {
    const input = minimalVMI({
      domain: { devices: {}, resources: { requests: { memory: "2Gi" } }, launchSecurity: { tdx: {} } },
    });
    const once = applyNewVMIMutations(input, clusterWith(), { newUUID: fixedUUID });
    if (!once.ok) throw new Error(once.message);
    const twice = applyNewVMIMutations(once.value, clusterWith(), { newUUID: () => "another" });
    expect(twice).toEqual(once);
  });
});

describe("VMI mutator on UPDATE", () => {
  const stored = (): VirtualMachineInstance => ({
    ...minimalVMI(),
    status: { phase: "Running", nodeName: "node01" },
  });

  it("reverts status changes made by users", () => {
    const changed = { ...stored(), status: { phase: "Failed", nodeName: "node01" } };
    const response = mutateVirtualMachineInstance(
      { operation: "UPDATE", object: changed, oldObject: stored(), username: "alice" },
      context(),
    );
    expect(response.patch).toEqual([
      { op: "replace", path: "/status", value: { phase: "Running", nodeName: "node01" } },
    ]);
  });

  it("lets KubeVirt's service accounts change the status", () => {
    const changed = { ...stored(), status: { phase: "Failed" } };
    const request = { operation: "UPDATE" as const, object: changed, oldObject: stored(), username: HANDLER };
    expect(mutateVirtualMachineInstance(request, context())).toEqual({ allowed: true });
  });

  it("lets spec and metadata changes through untouched", () => {
    const changed = { ...stored(), metadata: { name: "testvmi", labels: { a: "b" } } };
    const request = { operation: "UPDATE" as const, object: changed, oldObject: stored(), username: "alice" };
    expect(mutateVirtualMachineInstance(request, context())).toEqual({ allowed: true });
  });

  it("treats an absent status and an empty one as the same", () => {
    const request = {
      operation: "UPDATE" as const,
      object: { ...minimalVMI(), status: {} },
      oldObject: minimalVMI(),
      username: "alice",
    };
    expect(mutateVirtualMachineInstance(request, context())).toEqual({ allowed: true });
  });
});

describe("VMI mutator on other operations", () => {
  it("allows DELETE without a patch", () => {
    expect(mutateVirtualMachineInstance({ operation: "DELETE", object: minimalVMI() }, context())).toEqual({
      allowed: true,
    });
  });
});
