// CDI's kinds KubeVirt reads and writes (cdi.kubevirt.io/v1beta1): DataVolumes made from a VM's
// dataVolumeTemplates, and the DataSources they and inferFromVolume may point at. CDI itself is not
// installed on the local cluster; these are only the shapes and where they are served.
import type { DataVolumeSource, DataVolumeSpec } from "../../api/generated/v1beta1.js";
import type { GroupVersionResource } from "../../controller/gvr.js";
import type { KubeObject } from "../../controller/object.js";

const cdiResource = (resource: string, kind: string): GroupVersionResource => ({
  group: "cdi.kubevirt.io",
  version: "v1beta1",
  resource,
  namespaced: true,
  kind,
});
export const dataVolumesGVR = cdiResource("datavolumes", "DataVolume");
export const dataSourcesGVR = cdiResource("datasources", "DataSource");

export type CloneSource = Pick<DataVolumeSource, "pvc" | "snapshot">;

export interface DataSource extends KubeObject {
  spec: { source?: CloneSource & { dataSource?: unknown } };
  status?: { source?: CloneSource };
}

export interface DataVolume extends KubeObject {
  spec: DataVolumeSpec;
  status?: { phase?: string };
}
