// inferFromVolume as upstream's handler: each path from a volume to the labels, the ignore policy's
// clearing, and the failures that refuse the VM.
import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../api/generated/v1.js";
import { ApiError } from "../../controller/api-error.js";
import type { KubeObject } from "../../controller/object.js";
import type { DataSource, DataVolume } from "../../storage/types/cdi.js";
import {
  DefaultInstancetypeKindLabel,
  DefaultInstancetypeLabel,
  DefaultPreferenceLabel,
  IgnorableInferenceError,
  InferHandler,
} from "./handler.js";

const notFound = (what: string) => new ApiError(404, "NotFound", `${what} not found`);

function store<T>(objects: Record<string, T>) {
  return async (namespace: string, name: string): Promise<T> => {
    const found = objects[`${namespace}/${name}`];
    if (!found) throw notFound(`"${name}"`);
    return found;
  };
}

const labelled = (labels: Record<string, string>): KubeObject => ({ metadata: { labels } });
const defaults = {
  [DefaultInstancetypeLabel]: "u1.small",
  [DefaultInstancetypeKindLabel]: "VirtualMachineClusterInstancetype",
  [DefaultPreferenceLabel]: "fedora",
};

function handler(
  pvcs: Record<string, KubeObject> = {},
  dvs: Record<string, DataVolume> = {},
  dss: Record<string, DataSource> = {},
) {
  return new InferHandler({
    persistentVolumeClaims: store(pvcs),
    dataVolumes: store(dvs),
    dataSources: store(dss),
  });
}

function vm(volume: Record<string, unknown>, policy?: string): VirtualMachine {
  return {
    metadata: { name: "vm", namespace: "ns" },
    spec: {
      instancetype: { inferFromVolume: "root", ...(policy ? { inferFromVolumeFailurePolicy: policy } : {}) },
      preference: { inferFromVolume: "root" },
      template: {
        spec: { domain: { devices: {}, memory: { guest: "1Gi" } }, volumes: [{ name: "root", ...volume }] },
      },
    },
  } as VirtualMachine;
}

describe("inferFromVolume", () => {
  it("reads the claim's labels into both matchers and clears inferFromVolume", async () => {
    const v = vm({ persistentVolumeClaim: { claimName: "disk" } });
    await handler({ "ns/disk": labelled(defaults) }).infer(v);
    expect(v.spec.instancetype).toEqual({ name: "u1.small", kind: "VirtualMachineClusterInstancetype" });
    expect(v.spec.preference).toEqual({ name: "fedora" });
    expect(v.spec.template.spec?.domain.memory).toEqual({ guest: "1Gi" });
  });

  it("a dataVolume of a template follows its source PVC; one of a DataSource, the DataSource's labels", async () => {
    const fromPVC = vm({ dataVolume: { name: "dv" } });
    fromPVC.spec.dataVolumeTemplates = [
      { metadata: { name: "dv" }, spec: { source: { pvc: { name: "golden", namespace: "images" } } } },
    ];
    await handler({ "images/golden": labelled(defaults) }).infer(fromPVC);
    expect(fromPVC.spec.instancetype?.name).toBe("u1.small");

    const fromRef = vm({ dataVolume: { name: "dv" } });
    fromRef.spec.dataVolumeTemplates = [
      { metadata: { name: "dv" }, spec: { sourceRef: { kind: "DataSource", name: "fedora" } } },
    ];
    const dataSource = { metadata: { labels: defaults }, spec: {} } as DataSource;
    await handler({}, {}, { "ns/fedora": dataSource }).infer(fromRef);
    expect(fromRef.spec.preference).toEqual({ name: "fedora" });
  });

  it("a DataSource without the labels falls back to its source claim", async () => {
    const v = vm({ dataVolume: { name: "dv" } });
    v.spec.dataVolumeTemplates = [
      { metadata: { name: "dv" }, spec: { sourceRef: { kind: "DataSource", name: "ds", namespace: "os" } } },
    ];
    const ds = { metadata: {}, spec: { source: { pvc: { name: "golden", namespace: "os" } } } } as DataSource;
    await handler({ "os/golden": labelled(defaults) }, {}, { "os/ds": ds }).infer(v);
    expect(v.spec.instancetype?.name).toBe("u1.small");
  });

  it("a dataVolume that is no DataVolume (no CDI here) is looked up as a claim of that name", async () => {
    const v = vm({ dataVolume: { name: "disk" } });
    await handler({ "ns/disk": labelled(defaults) }).infer(v);
    expect(v.spec.instancetype?.name).toBe("u1.small");
  });

  it("refuses with upstream's messages, and the ignore policy clears the matcher on an ignorable one", async () => {
    await expect(
      handler({ "ns/disk": labelled({}) }).infer(vm({ persistentVolumeClaim: { claimName: "disk" } })),
    ).rejects.toThrow(
      new IgnorableInferenceError(`unable to find required ${DefaultInstancetypeLabel} label on the volume`),
    );
    await expect(handler().infer(vm({ containerDisk: { image: "i" } }))).rejects.toThrow(
      "unable to infer defaults from volume root as type is not supported",
    );
    const missingVolume = vm({ containerDisk: { image: "i" } });
    missingVolume.spec.instancetype!.inferFromVolume = "other";
    await expect(handler().infer(missingVolume)).rejects.toThrow(
      "unable to find volume other to infer defaults",
    );
    await expect(handler().infer(vm({ persistentVolumeClaim: { claimName: "gone" } }))).rejects.toThrow(
      '"gone" not found',
    );

    const ignored = vm({ containerDisk: { image: "i" } }, "IgnoreInferFromVolumeFailure");
    ignored.spec.preference = undefined;
    await handler().infer(ignored);
    expect(ignored.spec.instancetype).toBeUndefined();
    // A claim that is missing is no ignorable failure, whatever the policy.
    await expect(
      handler().infer(vm({ persistentVolumeClaim: { claimName: "gone" } }, "IgnoreInferFromVolumeFailure")),
    ).rejects.toThrow('"gone" not found');
  });

  it("with the ignore policy an inferred instancetype drops the template's memory", async () => {
    const v = vm({ persistentVolumeClaim: { claimName: "disk" } }, "IgnoreInferFromVolumeFailure");
    await handler({ "ns/disk": labelled(defaults) }).infer(v);
    expect(v.spec.template.spec?.domain.memory).toBeUndefined();
  });

  it("a source reference of another kind", async () => {
    const v = vm({ dataVolume: { name: "dv" } });
    v.spec.dataVolumeTemplates = [
      { metadata: { name: "dv" }, spec: { sourceRef: { kind: "Snapshot", name: "s" } } },
    ];
    await expect(handler().infer(v)).rejects.toThrow(
      "unable to infer defaults from DataVolumeSourceRef as Kind Snapshot is not supported",
    );
  });
});
