// Upstream's first step of every VM and VMI sync: stamp the API version the controller observed on the
// object, so an object written by an older release is rewritten in the current storage version.
import type { KubeObject } from "../../../controller/object.js";
import {
  ApiLatestVersion,
  ApiStorageVersion,
  LatestObservedAPIVersionAnnotation,
  StorageObservedAPIVersionAnnotation,
} from "../../../util/constants.js";

export function observedLatestApiVersion(obj: KubeObject): boolean {
  return obj.metadata?.annotations?.[LatestObservedAPIVersionAnnotation] === ApiLatestVersion;
}

/** A copy of obj carrying both version annotations. */
export function withLatestApiVersion<T extends KubeObject>(obj: T): T {
  const copy = structuredClone(obj);
  const metadata = (copy.metadata ??= {});
  metadata.annotations = {
    ...metadata.annotations,
    [LatestObservedAPIVersionAnnotation]: ApiLatestVersion,
    [StorageObservedAPIVersionAnnotation]: ApiStorageVersion,
  };
  return copy;
}
