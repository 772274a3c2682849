/**
 * Where the launcher Pod carries config volumes (configMap, secret, downwardAPI, serviceAccount) and
 * where the launcher writes their ISO images; the same places as upstream pkg/config. virt-controller
 * mounts the sources here, virt-launcher reads them and writes the disks.
 */
import { VirtPrivateDir } from "../util/constants.js";

/** The volume kinds upstream's config disks know. */
export const ConfigType = {
  ConfigMap: "configmap",
  Secret: "secret",
  DownwardAPI: "downwardapi",
  ServiceAccount: "serviceaccount",
} as const;

export const MountBaseDir = VirtPrivateDir;

/** A configMap volume `<name>` is mounted at `<ConfigMapSourceDir>/<name>`. */
export const ConfigMapSourceDir = `${MountBaseDir}/config-map`;
export const SysprepSourceDir = `${MountBaseDir}/sysprep`;
export const SecretSourceDir = `${MountBaseDir}/secret`;
export const DownwardAPISourceDir = `${MountBaseDir}/downwardapi`;
/** The pod's own ServiceAccount token mount; a serviceAccount volume is read from here. */
export const ServiceAccountSourceDir = "/var/run/secrets/kubernetes.io/serviceaccount/";

export const ConfigMapDisksDir = `${MountBaseDir}/config-map-disks`;
export const SecretDisksDir = `${MountBaseDir}/secret-disks`;
export const SysprepDisksDir = `${MountBaseDir}/sysprep-disks`;
export const DownwardAPIDisksDir = `${MountBaseDir}/downwardapi-disks`;
export const DownwardMetricDisksDir = `${MountBaseDir}/downwardmetric-disk`;
export const DownwardMetricDisk = `${DownwardAPIDisksDir}/vhostmd0`;
export const ServiceAccountDiskDir = `${MountBaseDir}/service-account-disk`;
export const ServiceAccountDiskName = "service-account.iso";

/** PVC (Filesystem) and hostDisk volumes `<name>` are mounted at `<PvcBaseDir>/<name>` (upstream pkg/host-disk). */
export const PvcBaseDir = `${MountBaseDir}/vmi-disks`;

/** `<dir>/<volume name>`, the mount of one volume under one of the source dirs above. */
export function volumeSourcePath(dir: string, volumeName: string): string {
  return `${dir}/${volumeName}`;
}
