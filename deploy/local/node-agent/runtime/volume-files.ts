// The files kubelet writes for configMap, secret, downwardAPI and projected volumes, computed from the
// volume source and the objects the caller fetched: which keys become which paths, and with which mode
// (an item's own mode, else the volume's defaultMode, else 0644). Messages are kubelet's.

export const DEFAULT_FILE_MODE = 0o644;

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface FileProjection {
  /** Relative to the volume directory. */
  path: string;
  data: Buffer;
  mode: number;
}

export interface ConfigMapData {
  data?: Record<string, string>;
  /** base64, as on the wire. */
  binaryData?: Record<string, string>;
}

export interface SecretData {
  /** base64, as on the wire. */
  data?: Record<string, string>;
}

export interface ConfigMapSource {
  name?: string;
  items?: KeyToPath[];
  optional?: boolean;
  defaultMode?: number;
}

export interface SecretSource {
  secretName?: string;
  items?: KeyToPath[];
  optional?: boolean;
  defaultMode?: number;
}

export interface DownwardApiItem {
  path: string;
  mode?: number;
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: { resource: string; containerName?: string; divisor?: string | number };
}

export interface ServiceAccountTokenSource {
  path: string;
  audience?: string;
  expirationSeconds?: number;
}

export interface ProjectionSource {
  configMap?: Omit<ConfigMapSource, "defaultMode">;
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardApiItem[] };
  serviceAccountToken?: ServiceAccountTokenSource;
}

/** What the caller fetched or computed for a pod; absent objects are `undefined`. */
export interface VolumeDataLookup {
  configMap(name: string): ConfigMapData | undefined;
  secret(name: string): SecretData | undefined;
  /** The value of a downward API item (fieldRef or resourceFieldRef), as the caller resolves it for env. */
  downwardValue(item: DownwardApiItem): string;
  /** A token from the TokenRequest API for this projection. */
  serviceAccountToken(source: ServiceAccountTokenSource): string;
}

export class VolumeDataError extends Error {
  override readonly name = "VolumeDataError";
}

function selectKeys(
  available: Map<string, Buffer>,
  items: KeyToPath[] | undefined,
  defaultMode: number,
  missingKey: (key: string) => string,
  optional: boolean,
): FileProjection[] {
  if (!items || items.length === 0) {
    return [...available].map(([key, data]) => ({ path: key, data, mode: defaultMode }));
  }
  const files: FileProjection[] = [];
  for (const item of items) {
    const data = available.get(item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new VolumeDataError(missingKey(item.key));
    }
    files.push({ path: item.path, data, mode: item.mode ?? defaultMode });
  }
  return files;
}

function configMapEntries(object: ConfigMapData): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  for (const [key, value] of Object.entries(object.data ?? {})) entries.set(key, Buffer.from(value, "utf8"));
  for (const [key, value] of Object.entries(object.binaryData ?? {}))
    entries.set(key, Buffer.from(value, "base64"));
  return entries;
}

function secretEntries(object: SecretData): Map<string, Buffer> {
  return new Map(
    Object.entries(object.data ?? {}).map(([key, value]) => [key, Buffer.from(value, "base64")]),
  );
}

export function configMapFiles(
  source: ConfigMapSource,
  lookup: Pick<VolumeDataLookup, "configMap">,
  defaultMode = source.defaultMode ?? DEFAULT_FILE_MODE,
): FileProjection[] {
  const name = source.name ?? "";
  const object = lookup.configMap(name);
  if (!object) {
    if (source.optional) return [];
    throw new VolumeDataError(`configmap "${name}" not found`);
  }
  const missing = (key: string) => `configmap references non-existent config key: ${key}`;
  return selectKeys(configMapEntries(object), source.items, defaultMode, missing, source.optional ?? false);
}

export function secretFiles(
  source: SecretSource,
  lookup: Pick<VolumeDataLookup, "secret">,
  defaultMode = source.defaultMode ?? DEFAULT_FILE_MODE,
): FileProjection[] {
  const name = source.secretName ?? "";
  const object = lookup.secret(name);
  if (!object) {
    if (source.optional) return [];
    throw new VolumeDataError(`secret "${name}" not found`);
  }
  const missing = (key: string) => `references non-existent secret key: ${key}`;
  return selectKeys(secretEntries(object), source.items, defaultMode, missing, source.optional ?? false);
}

export function downwardApiFiles(
  source: { items?: DownwardApiItem[]; defaultMode?: number },
  lookup: Pick<VolumeDataLookup, "downwardValue">,
  defaultMode = source.defaultMode ?? DEFAULT_FILE_MODE,
): FileProjection[] {
  return (source.items ?? []).map((item) => ({
    path: item.path,
    data: Buffer.from(lookup.downwardValue(item), "utf8"),
    mode: item.mode ?? defaultMode,
  }));
}

export function projectedFiles(
  source: { sources?: ProjectionSource[]; defaultMode?: number },
  lookup: VolumeDataLookup,
): FileProjection[] {
  const defaultMode = source.defaultMode ?? DEFAULT_FILE_MODE;
  return (source.sources ?? []).flatMap((projection): FileProjection[] => {
    if (projection.configMap) return configMapFiles(projection.configMap, lookup, defaultMode);
    if (projection.secret) {
      const { name, ...rest } = projection.secret;
      return secretFiles({ ...rest, secretName: name }, lookup, defaultMode);
    }
    if (projection.downwardAPI) return downwardApiFiles(projection.downwardAPI, lookup, defaultMode);
    if (projection.serviceAccountToken) {
      const token = lookup.serviceAccountToken(projection.serviceAccountToken);
      return [
        { path: projection.serviceAccountToken.path, data: Buffer.from(token, "utf8"), mode: defaultMode },
      ];
    }
    throw new VolumeDataError("projected volume source has no supported projection");
  });
}
