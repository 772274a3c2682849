// The resources virt-controller (and virt-handler, virt-operator) read and write.
import type * as k8s from "../api/generated/k8s.js";
import type {
  KubeVirt,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceReplicaSet,
} from "../api/generated/v1.js";
import type { VirtualMachinePool } from "../api/generated/v1beta1.js";
import type { GroupVersionResource } from "./gvr.js";
import type { ObjectMeta } from "./object.js";
export { coreGVR } from "./gvr.js";

const kubevirtResource = (resource: string, kind: string): GroupVersionResource => ({
  group: "kubevirt.io",
  version: "v1",
  resource,
  namespaced: true,
  kind,
});

export const virtualMachinesGVR = kubevirtResource("virtualmachines", "VirtualMachine");
export const virtualMachineInstancesGVR = kubevirtResource(
  "virtualmachineinstances",
  "VirtualMachineInstance",
);
export const virtualMachineInstanceReplicaSetsGVR = kubevirtResource(
  "virtualmachineinstancereplicasets",
  "VirtualMachineInstanceReplicaSet",
);
/** Served in v1alpha1 and v1beta1; v1beta1 is the storage version and the one the controller speaks. */
export const virtualMachinePoolsGVR: GroupVersionResource = {
  group: "pool.kubevirt.io",
  version: "v1beta1",
  resource: "virtualmachinepools",
  namespaced: true,
  kind: "VirtualMachinePool",
};
export const controllerRevisionsGVR: GroupVersionResource = {
  group: "apps",
  version: "v1",
  resource: "controllerrevisions",
  namespaced: true,
  kind: "ControllerRevision",
};

export const daemonSetsGVR: GroupVersionResource = {
  group: "apps",
  version: "v1",
  resource: "daemonsets",
  namespaced: true,
  kind: "DaemonSet",
};

export const podDisruptionBudgetsGVR: GroupVersionResource = {
  group: "policy",
  version: "v1",
  resource: "poddisruptionbudgets",
  namespaced: true,
  kind: "PodDisruptionBudget",
};

export const kubeVirtsGVR = kubevirtResource("kubevirts", "KubeVirt");

/** A kubevirt.io object as the machinery's client and informers carry it. */
export type Stored<T extends { metadata?: k8s.ObjectMeta }> = Omit<T, "metadata"> & { metadata?: ObjectMeta };
export type StoredVMI = Stored<VirtualMachineInstance>;
export type StoredVM = Stored<VirtualMachine>;
export type StoredVMIRS = Stored<VirtualMachineInstanceReplicaSet>;
export type StoredKubeVirt = Stored<KubeVirt>;
export type StoredVMPool = Stored<VirtualMachinePool>;

/**
 * The generated metadata type allows a null creationTimestamp (Go's zero time); the apiserver sets it on
 * create and ignores it on writes, so a null is simply left out.
 */
export function toStored<T extends { metadata?: k8s.ObjectMeta }>(obj: T): Stored<T> {
  const { metadata, ...rest } = obj;
  if (!metadata) return rest;
  const { creationTimestamp, ...meta } = metadata;
  return {
    ...rest,
    metadata:
      creationTimestamp === null || creationTimestamp === undefined ? meta : { ...meta, creationTimestamp },
  };
}
