// The VMI create admitter end to end: schema errors, the VMI-only rules, metadata, and the causes
// upstream reports twice because virt-api registers the network and storage validators again.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { ValidationContext } from "./admission.js";
import { admitVMICreate, validateVMICreation } from "./vmi-create-admitter.js";
import { duplicate, invalid, notSupported, required, specWith, validSpec } from "./testing.js";

const SERVICE_ACCOUNT = "system:serviceaccount:kubevirt:kubevirt-controller";
const context: ValidationContext = {
  clusterConfig: clusterWith(),
  kubeVirtServiceAccounts: new Set([SERVICE_ACCOUNT]),
};

function vmi(
  spec = validSpec(),
  metadata: VirtualMachineInstance["metadata"] = { name: "vmi" },
): VirtualMachineInstance {
  return { apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstance", metadata, spec };
}

const create = (object: unknown, username = "alice") =>
  admitVMICreate({ operation: "CREATE", object, username }, context);

describe("VMI create admitter", () => {
  it("admits the skeleton's VMI", () => {
    expect(create(vmi())).toEqual({ causes: [], warnings: [] });
  });

  it("admits secondary multus networks beside the pod network, bridged", () => {
    const spec = specWith((s) => {
      s.domain.devices.interfaces?.push(
        { name: "attachnet1", bridge: {} },
        { name: "attachnet2", bridge: {} },
      );
      s.networks?.push(
        { name: "attachnet1", multus: { networkName: "ns1/attachnet1" } },
        { name: "attachnet2", multus: { networkName: "attachnet2" } },
      );
    });
    expect(create(vmi(spec))).toEqual({ causes: [], warnings: [] });
  });

  it("answers schema errors before any rule, with their field paths", () => {
    const verdict = create({ apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstance", spec: {} });
    expect(verdict.causes).toEqual([required("spec.domain", "Required value")]);
  });

  it("refuses a volume no disk uses", () => {
    const spec = specWith((s) => s.volumes?.push({ name: "spare", emptyDisk: { capacity: "1Gi" } }));
    expect(create(vmi(spec)).causes).toEqual([
      invalid("spec.domain.volumes[2].name", "spec.domain.volumes[2].name 'spare' not found."),
    ]);
  });

  it("refuses a VMI without memory", () => {
    const spec = specWith((s) => (s.domain.resources = {}));
    expect(create(vmi(spec)).causes).toEqual([
      required(
        undefined,
        "no memory requested, at least one of 'spec.domain.memory.guest', 'spec.domain.memory.hugepages.pageSize' or 'spec.domain.resources.requests.memory' must be set",
      ),
    ]);
  });

  it("reports network and storage causes twice, as virt-api's extra validators repeat them", () => {
    const spec = specWith((s) => s.domain.devices.interfaces?.push({ name: "default", masquerade: {} }));
    const repeated = duplicate(
      "spec.domain.devices.interfaces[1].name",
      "Only one interface can be connected to one specific network",
    );
    expect(create(vmi(spec)).causes).toEqual([repeated, repeated]);
    expect(validateVMICreation(vmi(spec), context.clusterConfig, false, [])).toEqual([repeated]);
  });

  it("lets only KubeVirt set its reserved labels", () => {
    const labelled = vmi(validSpec(), { name: "vmi", labels: { "kubevirt.io/nodeName": "node01" } });
    expect(create(labelled).causes).toEqual([
      notSupported(
        "metadata.labels",
        "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited",
      ),
    ]);
    expect(create(labelled, SERVICE_ACCOUNT).causes).toEqual([]);
  });

  it("needs the ignition feature gate for ignition data", () => {
    const ignited = vmi(validSpec(), { name: "vmi", annotations: { "kubevirt.io/ignitiondata": "{}" } });
    expect(create(ignited).causes).toEqual([
      invalid(
        "metadata.annotations",
        "ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry metadata.annotations.kubevirt.io/ignitiondata",
      ),
    ]);
  });

  it("refuses a discontinued gate's API while the gate is still listed", () => {
    const clusterConfig = clusterWith({ developerConfiguration: { featureGates: ["Passt"] } });
    const spec = specWith((s) => (s.domain.devices.interfaces = [{ name: "default", passt: {} }]));
    const causes = validateVMICreation(vmi(spec), clusterConfig, false, []);
    expect(causes[0]).toEqual(
      notSupported(
        undefined,
        "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
      ),
    );
  });

  it("refuses hook sidecars, which kubevirt-ts cannot run, even with the Sidecar gate", () => {
    const clusterConfig = clusterWith({ developerConfiguration: { featureGates: ["Sidecar"] } });
    const annotated = vmi(validSpec(), {
      name: "vmi",
      annotations: { "hooks.kubevirt.io/hookSidecars": "[]" },
    });
    expect(validateVMICreation(annotated, clusterConfig, false)).toEqual([
      notSupported(
        "metadata.annotations[hooks.kubevirt.io/hookSidecars]",
        "the hooks.kubevirt.io/hookSidecars annotation is not supported by kubevirt-ts yet",
      ),
    ]);
  });

  it("checks the architecture the mutator set", () => {
    const spec = specWith((s) => (s.architecture = "ppc64le"));
    expect(create(vmi(spec)).causes).toEqual([
      invalid("spec.architecture", "unsupported architecture: ppc64le"),
    ]);
  });
});
