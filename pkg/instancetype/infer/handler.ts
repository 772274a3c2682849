// Upstream pkg/instancetype/infer: a VM's `instancetype.inferFromVolume` / `preference.inferFromVolume`
// becomes a name and kind read from the default-instancetype/-preference labels of the named volume's
// claim, DataVolume or DataSource, before the VM is stored (the VM mutating webhook). With
// IgnoreInferFromVolumeFailure, a failure upstream counts as ignorable clears the matcher instead.
import type { InstancetypeMatcher, PreferenceMatcher, VirtualMachine } from "../../api/generated/v1.js";
import type { DataVolumeSpec } from "../../api/generated/v1beta1.js";
import { isNotFound } from "../../controller/api-error.js";
import type { KubeClient } from "../../controller/client.js";
import { coreGVR, type GroupVersionResource } from "../../controller/gvr.js";
import type { KubeObject } from "../../controller/object.js";
import { dataSourcesGVR, dataVolumesGVR, type DataSource, type DataVolume } from "../../storage/types/cdi.js";
import type { Getter } from "../find/spec.js";

export const DefaultInstancetypeLabel = "instancetype.kubevirt.io/default-instancetype";
export const DefaultInstancetypeKindLabel = "instancetype.kubevirt.io/default-instancetype-kind";
export const DefaultPreferenceLabel = "instancetype.kubevirt.io/default-preference";
export const DefaultPreferenceKindLabel = "instancetype.kubevirt.io/default-preference-kind";
export const IgnoreInferFromVolumeFailure = "IgnoreInferFromVolumeFailure";

/** A failure the IgnoreInferFromVolumeFailure policy may pass over (upstream IgnoreableInferenceError). */
export class IgnorableInferenceError extends Error {}

export interface InferSources {
  persistentVolumeClaims: Getter<KubeObject>;
  dataVolumes: Getter<DataVolume>;
  dataSources: Getter<DataSource>;
}

interface Labels {
  name: string;
  kind: string;
}

const INSTANCETYPE: Labels = { name: DefaultInstancetypeLabel, kind: DefaultInstancetypeKindLabel };
const PREFERENCE: Labels = { name: DefaultPreferenceLabel, kind: DefaultPreferenceKindLabel };

type Inferred = { name: string; kind: string };

function fromLabels(labels: Readonly<Record<string, string>> | undefined, wanted: Labels): Inferred {
  const name = labels?.[wanted.name];
  if (name === undefined)
    throw new IgnorableInferenceError(`unable to find required ${wanted.name} label on the volume`);
  return { name, kind: labels?.[wanted.kind] ?? "" };
}

export class InferHandler {
  constructor(private readonly sources: InferSources) {}

  /** Upstream's Infer: the instancetype, then the preference; an error refuses the VM. */
  async infer(vm: VirtualMachine): Promise<void> {
    await this.instancetype(vm);
    await this.preference(vm);
  }

  private async instancetype(vm: VirtualMachine): Promise<void> {
    const matcher = vm.spec.instancetype;
    if (!matcher?.inferFromVolume) return;
    const ignore = matcher.inferFromVolumeFailurePolicy === IgnoreInferFromVolumeFailure;
    const inferred = await this.inferOrIgnore(vm, matcher, INSTANCETYPE, ignore);
    if (!inferred) {
      delete vm.spec.instancetype;
      return;
    }
    // With the ignore policy a template's memory would clash with the instancetype inferred.
    if (ignore && vm.spec.template.spec) delete vm.spec.template.spec.domain.memory;
    vm.spec.instancetype = { name: inferred.name, ...(inferred.kind ? { kind: inferred.kind } : {}) };
  }

  private async preference(vm: VirtualMachine): Promise<void> {
    const matcher = vm.spec.preference;
    if (!matcher?.inferFromVolume) return;
    const ignore = matcher.inferFromVolumeFailurePolicy === IgnoreInferFromVolumeFailure;
    const inferred = await this.inferOrIgnore(vm, matcher, PREFERENCE, ignore);
    if (!inferred) {
      delete vm.spec.preference;
      return;
    }
    vm.spec.preference = { name: inferred.name, ...(inferred.kind ? { kind: inferred.kind } : {}) };
  }

  /** undefined: an ignorable failure under the ignore policy. */
  private async inferOrIgnore(
    vm: VirtualMachine,
    matcher: InstancetypeMatcher | PreferenceMatcher,
    labels: Labels,
    ignore: boolean,
  ): Promise<Inferred | undefined> {
    try {
      return await this.fromVolumes(vm, matcher.inferFromVolume ?? "", labels);
    } catch (error) {
      if (ignore && error instanceof IgnorableInferenceError) return undefined;
      throw error;
    }
  }

  private async fromVolumes(vm: VirtualMachine, volumeName: string, labels: Labels): Promise<Inferred> {
    const namespace = vm.metadata?.namespace ?? "";
    const volume = (vm.spec.template.spec?.volumes ?? []).find((v) => v.name === volumeName);
    if (!volume) throw new Error(`unable to find volume ${volumeName} to infer defaults`);
    if (volume.persistentVolumeClaim)
      return this.fromPVC(volume.persistentVolumeClaim.claimName, namespace, labels);
    if (volume.dataVolume) return this.fromDataVolume(vm, volume.dataVolume.name, labels);
    throw new IgnorableInferenceError(
      `unable to infer defaults from volume ${volumeName} as type is not supported`,
    );
  }

  private async fromPVC(name: string, namespace: string, labels: Labels): Promise<Inferred> {
    const claim = await this.sources.persistentVolumeClaims(namespace, name);
    return fromLabels(claim.metadata?.labels, labels);
  }

  private async fromDataVolume(vm: VirtualMachine, name: string, labels: Labels): Promise<Inferred> {
    const namespace = vm.metadata?.namespace ?? "";
    const template = (vm.spec.dataVolumeTemplates ?? []).find((t) => t.metadata?.name === name);
    if (template) return this.fromDataVolumeSpec(template.spec, namespace, labels);
    let dataVolume: DataVolume;
    try {
      dataVolume = await this.sources.dataVolumes(namespace, name);
    } catch (error) {
      // No such DataVolume (or no CDI at all): a claim of that name may still be there.
      if (isNotFound(error)) return this.fromPVC(name, namespace, labels);
      throw error;
    }
    try {
      return fromLabels(dataVolume.metadata?.labels, labels);
    } catch {
      return this.fromDataVolumeSpec(dataVolume.spec, namespace, labels);
    }
  }

  private async fromDataVolumeSpec(
    spec: DataVolumeSpec | undefined,
    vmNamespace: string,
    labels: Labels,
  ): Promise<Inferred> {
    const pvc = spec?.source?.pvc;
    if (pvc) return this.fromPVC(pvc.name, pvc.namespace, labels);
    const ref = spec?.sourceRef;
    if (ref) {
      if (ref.kind !== "DataSource") {
        throw new IgnorableInferenceError(
          `unable to infer defaults from DataVolumeSourceRef as Kind ${ref.kind} is not supported`,
        );
      }
      return this.fromDataSource(ref.name, ref.namespace ?? vmNamespace, labels);
    }
    throw new IgnorableInferenceError(
      "unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported",
    );
  }

  private async fromDataSource(name: string, namespace: string, labels: Labels): Promise<Inferred> {
    const dataSource = await this.sources.dataSources(namespace, name);
    try {
      return fromLabels(dataSource.metadata?.labels, labels);
    } catch {
      const pvc = dataSource.spec.source?.pvc;
      if (pvc) return this.fromPVC(pvc.name, pvc.namespace, labels);
      throw new IgnorableInferenceError(
        "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC",
      );
    }
  }
}

/** The sources read straight from the apiserver, as upstream's handler reads them (no informers). */
export function clientInferSources(client: KubeClient): InferSources {
  const getter =
    <T extends KubeObject>(gvr: GroupVersionResource): Getter<T> =>
    (namespace, name) =>
      client.resource<T>(gvr).get(namespace, name);
  return {
    persistentVolumeClaims: getter(coreGVR.persistentVolumeClaims),
    dataVolumes: getter<DataVolume>(dataVolumesGVR),
    dataSources: getter<DataSource>(dataSourcesGVR),
  };
}
