// The core/v1 PersistentVolumeClaim as virt-controller reads it: the spec reuses @kubernetes/client-node's
// model, metadata is the machinery's KubeObject so claims flow through the typed client and informers.
import type { V1PersistentVolumeClaimSpec, V1PersistentVolumeClaimStatus } from "@kubernetes/client-node";
import type { KubeObject, ObjectMeta } from "../../../controller/object.js";

export interface PersistentVolumeClaim extends KubeObject {
  metadata: ObjectMeta;
  spec: V1PersistentVolumeClaimSpec;
  status?: V1PersistentVolumeClaimStatus;
}

/** Finds a claim by namespace and name in a cache (an informer's store); undefined when there is none. */
export type PVCLookup = (namespace: string, name: string) => PersistentVolumeClaim | undefined;

/** A claim without a volumeMode is a Filesystem claim, as the apiserver defaults it. */
export const isBlockClaim = (pvc: PersistentVolumeClaim): boolean => pvc.spec.volumeMode === "Block";
