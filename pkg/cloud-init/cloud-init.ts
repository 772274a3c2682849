// cloud-init data for the guest (upstream pkg/cloud-init): read the VMI's cloudInitNoCloud or
// cloudInitConfigDrive volume (inline, base64, or from a Secret mounted into the pod), add the
// meta-data KubeVirt generates, and write it as the data source's ISO under
// `<local dir>/<namespace>/<name>/` (noCloud.iso or configdrive.iso).
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type {
  CloudInitConfigDriveSource,
  CloudInitNoCloudSource,
  VirtualMachineInstance,
} from "../api/generated/v1.js";
import type { FileOwnership } from "../ephemeral-disk/ownership.js";
import { sanitizeHostname } from "../network/dns/resolveconf.js";
import type { IsoCreationFunc } from "./iso.js";
import { defaultIsoFunc } from "./iso.js";

export const DataSource = { NoCloud: "noCloud", ConfigDrive: "configDrive" } as const;
export type DataSource = (typeof DataSource)[keyof typeof DataSource];

const INSTANCETYPE_ANNOTATION = "kubevirt.io/instancetype-name";
const CLUSTER_INSTANCETYPE_ANNOTATION = "kubevirt.io/cluster-instancetype-name";

/** Keys as upstream's JSON tags spell them. */
export interface NoCloudMetadata {
  "instance-type"?: string;
  "instance-id": string;
  "local-hostname"?: string;
}

export interface ConfigDriveMetadata {
  instance_type?: string;
  instance_id: string;
  local_hostname?: string;
  hostname?: string;
  uuid?: string;
}

export type CloudInitData = {
  userData: string;
  networkData: string;
  volumeName: string;
} & (
  | { dataSource: typeof DataSource.NoCloud; metaData: NoCloudMetadata }
  | { dataSource: typeof DataSource.ConfigDrive; metaData: ConfigDriveMetadata }
);

type Source = CloudInitNoCloudSource | CloudInitConfigDriveSource;

function instanceType(vmi: VirtualMachineInstance): string | undefined {
  const annotations = vmi.metadata?.annotations ?? {};
  return annotations[CLUSTER_INSTANCETYPE_ANNOTATION] || annotations[INSTANCETYPE_ANNOTATION] || undefined;
}

/** The firmware UUID the defaults gave the VMI (upstream draws a random one when there is none). */
function cloudInitUUID(vmi: VirtualMachineInstance): string {
  return vmi.spec.domain.firmware?.uuid ?? crypto.randomUUID();
}

function rawOrBase64(raw: string | undefined, base64: string | undefined): string {
  if (raw) return raw;
  return base64 ? Buffer.from(base64, "base64").toString("utf8") : "";
}

/** A secret-backed field's file: the first of the names upstream accepts. */
async function readSecretFile(dir: string, names: readonly string[]): Promise<string> {
  let lastError: unknown;
  for (const name of names) {
    try {
      return await readFile(join(dir, name), "utf8");
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** userData/networkData, with secret references resolved from `<secret dir>/<volume>/`. */
async function readSource(
  source: Source,
  volumeName: string,
  secretSourceDir: string,
): Promise<{ userData: string; networkData: string }> {
  const secretDir = join(secretSourceDir, volumeName);
  let userData = rawOrBase64(source.userData, source.userDataBase64);
  let networkData = rawOrBase64(source.networkData, source.networkDataBase64);
  // `secretRef` is the user data's secret (upstream's UserDataSecretRef).
  const userSecret = source.secretRef
    ? readSecretFile(secretDir, ["userdata", "userData"]).then((data) => (userData = data))
    : undefined;
  const networkSecret = source.networkDataSecretRef
    ? readSecretFile(secretDir, ["networkdata", "networkData"]).then((data) => (networkData = data))
    : undefined;
  const results = await Promise.allSettled([userSecret, networkSecret]);
  // As upstream: only when both references were given and neither could be read.
  if (userSecret && networkSecret && results.every((result) => result.status === "rejected")) {
    throw new Error(`no cloud-init data-source found at volume: ${volumeName}`);
  }
  if (!userData && !networkData) {
    throw new Error(
      "userDataBase64, userData, networkDataBase64 or networkData is required for a cloud-init data source",
    );
  }
  return { userData, networkData };
}

/** The VMI's cloud-init data, or undefined when it has no cloud-init volume. */
export async function readCloudInitVolumeDataSource(
  vmi: VirtualMachineInstance,
  secretSourceDir: string,
): Promise<CloudInitData | undefined> {
  const { name = "", namespace = "" } = vmi.metadata ?? {};
  const hostname = sanitizeHostname(name, vmi.spec.hostname);
  const type = instanceType(vmi);
  for (const volume of vmi.spec.volumes ?? []) {
    if (volume.cloudInitNoCloud) {
      const data = await readSource(volume.cloudInitNoCloud, volume.name, secretSourceDir);
      const metaData: NoCloudMetadata = {
        ...(type ? { "instance-type": type } : {}),
        "instance-id": cloudInitUUID(vmi),
        ...(hostname ? { "local-hostname": hostname } : {}),
      };
      return { ...data, volumeName: volume.name, dataSource: DataSource.NoCloud, metaData };
    }
    if (volume.cloudInitConfigDrive) {
      const data = await readSource(volume.cloudInitConfigDrive, volume.name, secretSourceDir);
      const metaData: ConfigDriveMetadata = {
        ...(type ? { instance_type: type } : {}),
        instance_id: `${name}.${namespace}`,
        ...(hostname ? { hostname } : {}),
        uuid: cloudInitUUID(vmi),
      };
      return { ...data, volumeName: volume.name, dataSource: DataSource.ConfigDrive, metaData };
    }
  }
  return undefined;
}

const ISO_FILE: Record<DataSource, string> = { noCloud: "noCloud.iso", configDrive: "configdrive.iso" };

export function domainBasePath(localDir: string, vmiName: string, namespace: string): string {
  return join(localDir, namespace, vmiName);
}

export function isoFilePath(
  localDir: string,
  source: DataSource,
  vmiName: string,
  namespace: string,
): string {
  return join(domainBasePath(localDir, vmiName, namespace), ISO_FILE[source]);
}

/** The files inside the volume, by path, as each data source lays them out. */
export function volumeFiles(data: CloudInitData): { volumeID: string; files: Record<string, string> } {
  if (data.dataSource === DataSource.NoCloud) {
    return {
      volumeID: "cidata",
      files: {
        "meta-data": JSON.stringify(data.metaData),
        "user-data": data.userData,
        ...(data.networkData ? { "network-config": data.networkData } : {}),
      },
    };
  }
  return {
    volumeID: "config-2",
    files: {
      "openstack/latest/meta_data.json": JSON.stringify(data.metaData),
      "openstack/latest/user_data": data.userData,
      ...(data.networkData ? { "openstack/latest/network_data.json": data.networkData } : {}),
    },
  };
}

export interface LocalDataOptions {
  /** `<ephemeral disk dir>/cloud-init-data`. */
  localDir: string;
  ownership: FileOwnership;
  isoFunc?: IsoCreationFunc;
}

/** Writes the ISO (through a staging file, so QEMU never sees a half-written one); returns its path. */
export async function generateLocalData(
  vmi: VirtualMachineInstance,
  data: CloudInitData,
  options: LocalDataOptions,
): Promise<string> {
  const { name = "", namespace = "" } = vmi.metadata ?? {};
  if (!name) throw new Error("the VMI has no name");
  const base = domainBasePath(options.localDir, name, namespace);
  const dataDir = join(base, "data");
  const iso = isoFilePath(options.localDir, data.dataSource, name, namespace);
  const staging = `${iso}.staging`;
  const { volumeID, files } = volumeFiles(data);
  await rm(dataDir, { recursive: true, force: true });
  await rm(staging, { force: true });
  try {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dataDir, path)), { recursive: true });
      await writeFile(join(dataDir, path), content, { mode: 0o600 });
    }
    await (options.isoFunc ?? defaultIsoFunc)(staging, volumeID, dataDir);
  } finally {
    // The data stays only inside the ISO.
    await rm(dataDir, { recursive: true, force: true });
  }
  await options.ownership.setFileOwnership(staging);
  await rename(staging, iso);
  return iso;
}
