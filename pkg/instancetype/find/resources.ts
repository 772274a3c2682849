// The instancetype.kubevirt.io kinds and the names upstream's finders match a matcher's kind against.
import type { GroupVersionResource } from "../../controller/gvr.js";

export const INSTANCETYPE_GROUP = "instancetype.kubevirt.io";
export const INSTANCETYPE_VERSION = "v1beta1";
export const INSTANCETYPE_API_VERSION = `${INSTANCETYPE_GROUP}/${INSTANCETYPE_VERSION}`;

const resource = (plural: string, kind: string, namespaced: boolean): GroupVersionResource => ({
  group: INSTANCETYPE_GROUP,
  version: INSTANCETYPE_VERSION,
  resource: plural,
  namespaced,
  kind,
});

export const instancetypesGVR = resource("virtualmachineinstancetypes", "VirtualMachineInstancetype", true);
export const clusterInstancetypesGVR = resource(
  "virtualmachineclusterinstancetypes",
  "VirtualMachineClusterInstancetype",
  false,
);
export const preferencesGVR = resource("virtualmachinepreferences", "VirtualMachinePreference", true);
export const clusterPreferencesGVR = resource(
  "virtualmachineclusterpreferences",
  "VirtualMachineClusterPreference",
  false,
);

/** Labels upstream puts on the ControllerRevisions that hold a copy of an instance type or preference. */
export const ControllerRevisionObjectGenerationLabel = "instancetype.kubevirt.io/object-generation";
export const ControllerRevisionObjectKindLabel = "instancetype.kubevirt.io/object-kind";
export const ControllerRevisionObjectNameLabel = "instancetype.kubevirt.io/object-name";
export const ControllerRevisionObjectUIDLabel = "instancetype.kubevirt.io/object-uid";
export const ControllerRevisionObjectVersionLabel = "instancetype.kubevirt.io/object-version";

/** Whether a matcher's kind names the namespaced or the cluster-wide resource (singular or plural, any case). */
export function matcherScope(
  kind: string | undefined,
  namespaced: GroupVersionResource,
  cluster: GroupVersionResource,
): "namespaced" | "cluster" | undefined {
  const lower = (kind ?? "").toLowerCase();
  const singular = (gvr: GroupVersionResource) => gvr.resource.slice(0, -1);
  if (lower === namespaced.resource || lower === singular(namespaced)) return "namespaced";
  if (lower === "" || lower === cluster.resource || lower === singular(cluster)) return "cluster";
  return undefined;
}
