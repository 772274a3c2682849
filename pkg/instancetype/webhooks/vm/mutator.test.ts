import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../../api/generated/v1.js";
import { mutateFromPreference, validateMatchers } from "./mutator.js";

const vm = (spec: Partial<VirtualMachine["spec"]>): VirtualMachine => ({
  metadata: { name: "vm" },
  spec: { template: { spec: { domain: { devices: {} } } }, ...spec },
});

describe("instancetype VM mutator", () => {
  it("checks inferFromVolume matchers and their failure policy, in upstream's words", () => {
    const causes = validateMatchers(
      vm({
        preference: { name: "p", kind: "k", inferFromVolume: "root", inferFromVolumeFailurePolicy: "Maybe" },
      }),
      undefined,
      "CREATE",
    );
    expect(causes.map((cause) => [cause.field, cause.message])).toEqual([
      ["spec.preference.name", "Name already set, should be cleared before setting inferFromVolume"],
      ["spec.preference.kind", "Kind already set, should be cleared before setting inferFromVolume"],
      [
        "spec.preference.inferFromVolumeFailurePolicy",
        "Invalid value 'Maybe' for InferFromVolumeFailurePolicy",
      ],
    ]);
  });

  it("lets the VM controller's updates and renames with a new revision through", () => {
    const old = vm({ instancetype: { name: "a" } });
    expect(validateMatchers(vm({ instancetype: { name: "b" } }), old, "UPDATE")).toEqual([]);
    const pinned = vm({ instancetype: { name: "a", revisionName: "r1" } });
    expect(
      validateMatchers(vm({ instancetype: { name: "b", revisionName: "r2" } }), pinned, "UPDATE"),
    ).toEqual([]);
  });

  it("keeps the template's own machine type and architecture", () => {
    const own = vm({});
    own.spec.template.spec!.domain.machine = { type: "pc" };
    own.spec.template.spec!.architecture = "amd64";
    mutateFromPreference(own, { machine: { preferredMachineType: "q35" }, preferredArchitecture: "arm64" });
    expect(own.spec.template.spec?.domain.machine?.type).toBe("pc");
    expect(own.spec.template.spec?.architecture).toBe("amd64");
  });

  it("gives DataVolumeTemplates without a storage class the preferred one, and only those", () => {
    const withTemplates = vm({
      dataVolumeTemplates: [
        { metadata: { name: "pvc" }, spec: { pvc: { resources: { requests: { storage: "1Gi" } } } } },
        { metadata: { name: "storage" }, spec: { storage: { resources: { requests: { storage: "1Gi" } } } } },
        { metadata: { name: "own" }, spec: { storage: { storageClassName: "fast" } } },
        { metadata: { name: "empty" }, spec: { pvc: { storageClassName: "" } } },
      ],
    });
    mutateFromPreference(withTemplates, { volumes: { preferredStorageClassName: "local" } });
    const classes = withTemplates.spec.dataVolumeTemplates?.map(
      (template) => (template.spec.pvc ?? template.spec.storage)?.storageClassName,
    );
    expect(classes).toEqual(["local", "local", "fast", ""]);
  });
});
