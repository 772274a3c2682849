// Rules for spec.volumes (upstream's validateVolumes): unique names, exactly one source per volume, at
// most one serviceAccount / downwardMetrics / memoryDump volume, cloud-init data limits, hostDisk settings
// and the names configMap, secret and serviceAccount volumes need.
import type { Volume } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import {
  CauseType,
  cause,
  invalidCause,
  requiredCause,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateCloudInitVolume } from "./cloud-init.js";
import { quantityOf } from "./quantities.js";

/** Every volume source member of v1.Volume; a volume must set exactly one. */
export const VOLUME_SOURCES = [
  "persistentVolumeClaim",
  "sysprep",
  "cloudInitNoCloud",
  "cloudInitConfigDrive",
  "containerDisk",
  "ephemeral",
  "emptyDisk",
  "hostDisk",
  "dataVolume",
  "configMap",
  "secret",
  "downwardAPI",
  "serviceAccount",
  "downwardMetrics",
  "memoryDump",
  "containerPath",
] as const satisfies ReadonlyArray<keyof Volume>;

export type VolumeSource = (typeof VOLUME_SOURCES)[number];

export const volumeSourcesOf = (volume: Volume): VolumeSource[] =>
  VOLUME_SOURCES.filter((source) => volume[source] !== undefined);

const requiredField = (at: Path): StatusCause => invalidCause(`${at.toString()} is a required field`, at);

/** Rules about one volume's own source. */
function validateVolumeSource(at: Path, volume: Volume, config: ClusterConfig): StatusCause[] {
  const causes: StatusCause[] = [];
  if (volume.dataVolume !== undefined && volume.dataVolume.name === "") {
    causes.push(requiredCause("DataVolume 'name' must be set", at.child("name")));
  }
  if (volumeSourcesOf(volume).length !== 1) {
    causes.push(invalidCause(`${at.toString()} must have exactly one source type set`, at));
  }
  causes.push(...validateCloudInitVolume(at, volume));
  if (volume.downwardMetrics !== undefined && !config.isFeatureGateEnabled(FeatureGate.DownwardMetrics)) {
    causes.push(
      invalidCause("downwardMetrics disks are not allowed: DownwardMetrics feature gate is not enabled.", at),
    );
  }
  causes.push(...validateHostDisk(at, volume, config));
  if (volume.configMap !== undefined && (volume.configMap.name ?? "") === "") {
    causes.push(requiredField(at.child("configMap", "name")));
  }
  if (volume.secret !== undefined && (volume.secret.secretName ?? "") === "") {
    causes.push(requiredField(at.child("secret", "secretName")));
  }
  if (volume.serviceAccount !== undefined && (volume.serviceAccount.serviceAccountName ?? "") === "") {
    causes.push(requiredField(at.child("serviceAccount", "serviceAccountName")));
  }
  return causes;
}

function validateHostDisk(at: Path, volume: Volume, config: ClusterConfig): StatusCause[] {
  const hostDisk = volume.hostDisk;
  if (hostDisk === undefined) return [];
  const causes: StatusCause[] = [];
  if (!config.isFeatureGateEnabled(FeatureGate.HostDisk)) {
    causes.push(invalidCause("HostDisk feature gate is not enabled", at));
  }
  const pathField = at.child("hostDisk", "path");
  if (hostDisk.path === "") {
    causes.push(
      cause(CauseType.NotFound, `${pathField.toString()} is required for hostDisk volume`, pathField),
    );
  }
  const typeField = at.child("hostDisk", "type");
  if (hostDisk.type !== "Disk" && hostDisk.type !== "DiskOrCreate") {
    causes.push(
      invalidCause(
        `${typeField.toString()} has invalid value '${hostDisk.type}', allowed are 'Disk' or 'DiskOrCreate'`,
        typeField,
      ),
    );
  }
  // An existing disk image has its size already; a capacity only makes sense when it may be created.
  if (hostDisk.type === "Disk" && !quantityOf(hostDisk.capacity).isZero()) {
    const capacityField = at.child("hostDisk", "capacity");
    causes.push(
      invalidCause(
        `${capacityField.toString()} is allowed to pass only with ${typeField.toString()} equal to 'DiskOrCreate'`,
        capacityField,
      ),
    );
  }
  return causes;
}

const SINGLETON_SOURCES = [
  ["serviceAccount", "serviceAccount"],
  ["downwardMetrics", "downwardMetric"],
  ["memoryDump", "memory dump"],
] as const;

/** Upstream's validateVolumes; `field` is `spec.volumes`. */
export function validateVolumes(
  field: Path,
  volumes: readonly Volume[],
  config: ClusterConfig,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const firstIndexByName = new Map<string, number>();
  volumes.forEach((volume, index) => {
    const at = field.index(index);
    const firstIndex = firstIndexByName.get(volume.name);
    if (firstIndex === undefined) firstIndexByName.set(volume.name, index);
    else {
      causes.push(
        invalidCause(
          `${at.toString()} and ${field.index(firstIndex).toString()} must not have the same Name.`,
          at.child("name"),
        ),
      );
    }
    causes.push(...validateVolumeSource(at, volume, config));
  });
  for (const [source, wording] of SINGLETON_SOURCES) {
    if (volumes.filter((volume) => volume[source] !== undefined).length > 1) {
      causes.push(invalidCause(`${field.toString()} must have max one ${wording} volume set`, field));
    }
  }
  return causes;
}
