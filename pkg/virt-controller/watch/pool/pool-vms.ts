// The VMs a pool makes (upstream's pool.go naming and templating): each is called `<pool>-<index>`, new
// ones take the lowest indexes no VM in the namespace holds, and each gets the template with its own
// index appended to the DataVolumes it creates and, when spec.nameGeneration asks, to the ConfigMaps and
// Secrets (cloud-init ones included) it refers to. The VM and its template carry the pool revision
// they were made from; the pool's finalizer and controller reference hold them to the pool.
import type { VirtualMachine, VirtualMachineSpec } from "../../../api/generated/v1.js";
import type { VirtualMachinePoolSpec } from "../../../api/generated/v1beta1.js";
import { hasConditionWithStatus } from "../../../controller/conditions.js";
import { isBeingDeleted, newControllerRef, type OwnerReference } from "../../../controller/object.js";
import { toStored, type StoredVM, type StoredVMPool } from "../../../controller/resources.js";
import {
  KubeVirtAPIVersion,
  VirtualMachinePoolControllerFinalizer,
  VirtualMachinePoolRevisionName,
} from "../../../util/constants.js";

export const PoolKind = "VirtualMachinePool";
export const PoolAPIVersion = "pool.kubevirt.io/v1beta1";

export function poolOwnerRef(pool: StoredVMPool): OwnerReference {
  return newControllerRef(pool, PoolAPIVersion, PoolKind);
}

export const generateVMName = (index: number, baseName: string): string => `${baseName}-${index}`;

/** The number after the name's last dash; undefined when there is none. */
export function indexFromName(name: string): number | undefined {
  const last = name.slice(name.lastIndexOf("-") + 1);
  return /^[+-]?\d+$/.test(last) ? Number(last) : undefined;
}

/** calculateNewVMNames: `count` names `<base>-<i>` for the lowest i that no VM (of any owner) holds. */
export function calculateNewVMNames(
  count: number,
  baseName: string,
  taken: (name: string) => boolean,
): string[] {
  const names: string[] = [];
  for (let index = 0; names.length < count; index++) {
    const name = generateVMName(index, baseName);
    if (!taken(name)) names.push(name);
  }
  return names;
}

/** indexVMSpec: the template's VM spec for the VM of `index`. */
export function indexVMSpec(poolSpec: VirtualMachinePoolSpec, index: number): VirtualMachineSpec {
  const spec = structuredClone(
    poolSpec.virtualMachineTemplate.spec ?? { template: {} },
  ) as VirtualMachineSpec;
  const suffix = `-${index}`;
  const dataVolumeNames = new Map<string, string>();
  for (const template of spec.dataVolumeTemplates ?? []) {
    const name = template.metadata?.name ?? "";
    dataVolumeNames.set(name, `${name}${suffix}`);
    template.metadata = { ...template.metadata, name: `${name}${suffix}` };
  }
  const appendToConfigMaps = poolSpec.nameGeneration?.appendIndexToConfigMapRefs === true;
  const appendToSecrets = poolSpec.nameGeneration?.appendIndexToSecretRefs === true;
  for (const volume of spec.template.spec?.volumes ?? []) {
    if (volume.persistentVolumeClaim) {
      const renamed = dataVolumeNames.get(volume.persistentVolumeClaim.claimName);
      if (renamed !== undefined) volume.persistentVolumeClaim.claimName = renamed;
    } else if (volume.dataVolume) {
      const renamed = dataVolumeNames.get(volume.dataVolume.name);
      if (renamed !== undefined) volume.dataVolume.name = renamed;
    } else if (volume.configMap && appendToConfigMaps) {
      volume.configMap.name = `${volume.configMap.name ?? ""}${suffix}`;
    } else if (volume.secret && appendToSecrets) {
      volume.secret.secretName = `${volume.secret.secretName ?? ""}${suffix}`;
    } else if (appendToSecrets && (volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive)) {
      const source = volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive;
      // secretRef is the user data's Secret (userDataSecretRef in Go).
      if (source?.secretRef) source.secretRef.name = `${source.secretRef.name ?? ""}${suffix}`;
      if (source?.networkDataSecretRef)
        source.networkDataSecretRef.name = `${source.networkDataSecretRef.name ?? ""}${suffix}`;
    }
  }
  return spec;
}

/** The revision label on the VM and on its template, so the VMI it starts carries it too. */
export function withPoolRevisionLabels(vm: StoredVM, revisionName: string): StoredVM {
  const template = vm.spec.template;
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, [VirtualMachinePoolRevisionName]: revisionName },
  };
  vm.metadata = {
    ...vm.metadata,
    labels: { ...vm.metadata?.labels, [VirtualMachinePoolRevisionName]: revisionName },
  };
  return vm;
}

const cloned = (map: Record<string, string> | undefined): Record<string, string> | undefined =>
  map && { ...map };

/** The VM scaleOut creates under `name`: the template at its index, the revision, finalizer and owner. */
export function newPoolVM(pool: StoredVMPool, name: string, index: number, revisionName: string): StoredVM {
  const template = pool.spec.virtualMachineTemplate;
  const vm = toStored<VirtualMachine>({
    apiVersion: KubeVirtAPIVersion,
    kind: "VirtualMachine",
    metadata: {
      name,
      namespace: pool.metadata?.namespace,
      labels: cloned(template.metadata?.labels),
      annotations: cloned(template.metadata?.annotations),
      finalizers: [VirtualMachinePoolControllerFinalizer],
      ownerReferences: [poolOwnerRef(pool)],
    },
    spec: indexVMSpec(pool.spec, index),
  });
  return withPoolRevisionLabels(vm, revisionName);
}

/**
 * The VM an opportunistic update writes: labels, annotations and spec from the current template (the
 * rest of the object as it is), keeping the firmware UUID and serial the guest knows the VM by.
 */
export function updatedPoolVM(
  pool: StoredVMPool,
  vm: StoredVM,
  index: number,
  revisionName: string,
): StoredVM {
  const template = pool.spec.virtualMachineTemplate;
  const next = structuredClone(vm);
  next.metadata = {
    ...next.metadata,
    labels: cloned(template.metadata?.labels),
    annotations: cloned(template.metadata?.annotations),
  };
  next.spec = indexVMSpec(pool.spec, index);
  const firmware = vm.spec.template.spec?.domain.firmware;
  const domain = next.spec.template.spec?.domain;
  if (firmware && domain) {
    domain.firmware ??= {};
    if (firmware.uuid) domain.firmware.uuid = firmware.uuid;
    if (firmware.serial) domain.firmware.serial = firmware.serial;
  }
  return withPoolRevisionLabels(next, revisionName);
}

/** VMs too many (positive) or missing (negative); replicas defaults to 1. */
export const calcDiff = (pool: StoredVMPool, vms: readonly StoredVM[]): number =>
  vms.length - (pool.spec.replicas ?? 1);

export const filterRunningVMs = (vms: readonly StoredVM[]): StoredVM[] =>
  vms.filter((vm) => !isBeingDeleted(vm));

export const filterDeletingVMs = (vms: readonly StoredVM[]): StoredVM[] => vms.filter(isBeingDeleted);

const isReady = (vm: StoredVM): boolean => hasConditionWithStatus(vm.status, "Ready", "True");

export const filterReadyVMs = (vms: readonly StoredVM[]): StoredVM[] => vms.filter(isReady);

export const filterNotReadyVMs = (vms: readonly StoredVM[]): StoredVM[] => vms.filter((vm) => !isReady(vm));
