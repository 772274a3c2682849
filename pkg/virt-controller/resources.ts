// The resources virt-controller reads and writes.
import type * as k8s from "../api/generated/k8s.js";
import type { VirtualMachine, VirtualMachineInstance } from "../api/generated/v1.js";
import type { GroupVersionResource } from "../controller/gvr.js";
import type { ObjectMeta } from "../controller/object.js";
export { coreGVR } from "../controller/gvr.js";
export { controllerRevisionsGVR } from "./watch/vm-revision.js";

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

/** A kubevirt.io object as the machinery's client and informers carry it. */
export type Stored<T extends { metadata?: k8s.ObjectMeta }> = Omit<T, "metadata"> & { metadata?: ObjectMeta };
export type StoredVMI = Stored<VirtualMachineInstance>;
export type StoredVM = Stored<VirtualMachine>;

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
