import type { Pod, Volume, VolumeProjection } from "./k8s-types.js";
import type { FileVolumePlugin, PersistentVolumeSource, VolumeFile, VolumeRequest } from "./pod-runtime.js";
import { parseQuantity } from "./quantity.js";
import type { ObjectSource } from "./env.js";
import {
  containerResourceValue,
  DownwardApiError,
  podFieldValue,
  type NodeAllocatable,
  type PodRuntimeFacts,
} from "./downward-api.js";
import { errorMessage } from "../../../pkg/util/error-message.js";
import {
  persistentVolumeSource,
  UnsupportedPersistentVolumeError,
  VolumeProcessingError,
} from "./persistent-volumes.js";

// Turns a pod's volumes into what the runtime sets up: emptyDir and hostPath pass through; configMap,
// secret, downwardAPI and projected volumes are rendered here into files (fetching the objects and the
// service-account token), with kubelet's default mode 0644 and its error messages; persistentVolumeClaim
// volumes are resolved to their bound PV's node-local source (persistent-volumes.ts).

export const DEFAULT_MODE = 0o644;

/** The volume cannot be set up yet (a missing object): kubelet keeps the pod in ContainerCreating and retries. */
export class VolumeSetUpError extends Error {
  /** `verbatim`: `cause` is already a complete message (the runtime words its own). */
  constructor(volume: string, cause: string, verbatim = false) {
    super(verbatim ? cause : `MountVolume.SetUp failed for volume "${volume}" : ${cause}`);
  }
}

/** A volume type the agent does not implement: reported as CreateContainerConfigError, never silently skipped. */
export class UnsupportedVolumeError extends Error {}

export interface TokenSource {
  /** A bound service-account token for the pod, refreshed before it expires. */
  token(pod: Pod, audience: string | undefined, expirationSeconds: number): Promise<string>;
}

export interface VolumeContext {
  pod: Pod;
  runtime: PodRuntimeFacts;
  allocatable: NodeAllocatable;
  objects: ObjectSource;
  tokens: TokenSource;
  /**
   * Claims already resolved for this pod, by volume name: kubelet resolves a pod's PVC once, so a claim
   * that is later deleting (kept by PVC protection while in use) does not hold the running pod.
   */
  resolvedClaims?: Map<string, PersistentVolumeSource>;
}

const SUPPORTED = [
  "emptyDir",
  "hostPath",
  "configMap",
  "secret",
  "downwardAPI",
  "projected",
  "persistentVolumeClaim",
] as const;
const IGNORED_KEYS = new Set(["name", ...SUPPORTED]);

type KeyItems = { key: string; path: string; mode?: number }[] | undefined;

function selectKeys(
  data: Record<string, Buffer>,
  items: KeyItems,
  mode: number,
  optional: boolean,
  missingKey: (key: string) => string,
): VolumeFile[] {
  if (!items) return Object.entries(data).map(([key, content]) => ({ path: key, content, mode }));
  const files: VolumeFile[] = [];
  for (const item of items) {
    const content = data[item.key];
    if (content === undefined) {
      if (optional) continue;
      throw new Error(missingKey(item.key));
    }
    files.push({ path: item.path, content, mode: item.mode ?? mode });
  }
  return files;
}

async function configMapFiles(
  ctx: VolumeContext,
  source: { name?: string; items?: KeyItems; optional?: boolean },
  mode: number,
): Promise<VolumeFile[]> {
  const name = source.name ?? "";
  const cm = await ctx.objects.configMap(ctx.pod.metadata.namespace ?? "default", name);
  if (!cm) {
    if (source.optional) return [];
    throw new Error(`configmap "${name}" not found`);
  }
  const data: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(cm.data ?? {})) data[k] = Buffer.from(v, "utf8");
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) data[k] = Buffer.from(v, "base64");
  return selectKeys(
    data,
    source.items,
    mode,
    source.optional ?? false,
    (k) => `configmap references non-existent config key: ${k}`,
  );
}

async function secretFiles(
  ctx: VolumeContext,
  source: { name?: string; items?: KeyItems; optional?: boolean },
  mode: number,
): Promise<VolumeFile[]> {
  const name = source.name ?? "";
  const secret = await ctx.objects.secret(ctx.pod.metadata.namespace ?? "default", name);
  if (!secret) {
    if (source.optional) return [];
    throw new Error(`secret "${name}" not found`);
  }
  const data: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) data[k] = Buffer.from(v, "base64");
  return selectKeys(
    data,
    source.items,
    mode,
    source.optional ?? false,
    (k) => `references non-existent secret key: ${k}`,
  );
}

type DownwardItems = NonNullable<NonNullable<Volume["downwardAPI"]>["items"]>;

function downwardFiles(ctx: VolumeContext, items: DownwardItems, mode: number): VolumeFile[] {
  return items.map((item) => {
    let value: string;
    if (item.fieldRef) value = podFieldValue(ctx.pod, item.fieldRef.fieldPath, ctx.runtime, true);
    else if (item.resourceFieldRef) {
      const ref = item.resourceFieldRef;
      const container = ctx.pod.spec.containers.find((c) => c.name === ref.containerName);
      if (!container) throw new DownwardApiError(`container ${ref.containerName ?? ""} not found`);
      value = containerResourceValue(container, ref.resource, ref.divisor, ctx.allocatable);
    } else throw new DownwardApiError(`downwardAPI item ${item.path} names no field`);
    return { path: item.path, content: Buffer.from(value, "utf8"), mode: item.mode ?? mode };
  });
}

async function projectionFiles(
  ctx: VolumeContext,
  source: VolumeProjection,
  mode: number,
): Promise<VolumeFile[]> {
  if (source.configMap) return configMapFiles(ctx, source.configMap, mode);
  if (source.secret) return secretFiles(ctx, source.secret, mode);
  if (source.downwardAPI) return downwardFiles(ctx, source.downwardAPI.items ?? [], mode);
  if (source.serviceAccountToken) {
    const { audience, expirationSeconds, path } = source.serviceAccountToken;
    const token = await ctx.tokens.token(ctx.pod, audience, expirationSeconds ?? 3600);
    return [{ path, content: Buffer.from(token, "utf8"), mode }];
  }
  const kind = Object.keys(source).join(", ");
  throw new UnsupportedVolumeError(`projected volume source ${kind} is not supported by the node agent`);
}

function volumeKind(volume: Volume): string {
  return Object.keys(volume).find((k) => !IGNORED_KEYS.has(k)) ?? "unknown";
}

/** kubelet's volume manager words a volume it could not process so (the claim is missing, unbound, ...). */
function unprocessedVolume(volume: string, cause: string): VolumeSetUpError {
  const message = `Unable to attach or mount volumes: unmounted volumes=[${volume}], unattached volumes=[], failed to process volumes=[${volume}]: ${cause}`;
  return new VolumeSetUpError(volume, message, true);
}

async function claimVolume(
  ctx: VolumeContext,
  volume: Parameters<typeof persistentVolumeSource>[1],
): Promise<VolumeRequest> {
  const known = ctx.resolvedClaims?.get(volume.name);
  if (known) return { name: volume.name, source: known };
  try {
    const source = await persistentVolumeSource(ctx.pod, volume, ctx.objects);
    ctx.resolvedClaims?.set(volume.name, source);
    return { name: volume.name, source };
  } catch (err) {
    if (err instanceof UnsupportedPersistentVolumeError) throw new UnsupportedVolumeError(err.message);
    if (err instanceof VolumeProcessingError) throw unprocessedVolume(volume.name, err.message);
    throw new VolumeSetUpError(volume.name, errorMessage(err));
  }
}

async function renderVolume(ctx: VolumeContext, volume: Volume): Promise<VolumeRequest> {
  const { name } = volume;
  if (volume.emptyDir) {
    const { medium, sizeLimit } = volume.emptyDir;
    return {
      name,
      source: {
        kind: "emptyDir",
        ...(medium ? { medium } : {}),
        ...(sizeLimit !== undefined ? { sizeLimitBytes: parseQuantity(sizeLimit) } : {}),
      },
    };
  }
  if (volume.hostPath) {
    const { path, type } = volume.hostPath;
    return { name, source: { kind: "hostPath", path, ...(type ? { type } : {}) } };
  }
  if (volume.persistentVolumeClaim)
    return claimVolume(ctx, { ...volume, persistentVolumeClaim: volume.persistentVolumeClaim });
  let files: VolumeFile[];
  let plugin: FileVolumePlugin;
  try {
    if (volume.configMap) {
      plugin = "configMap";
      files = await configMapFiles(ctx, volume.configMap, volume.configMap.defaultMode ?? DEFAULT_MODE);
    } else if (volume.secret) {
      plugin = "secret";
      const { secretName, ...rest } = volume.secret;
      const source = { ...rest, ...(secretName ? { name: secretName } : {}) };
      files = await secretFiles(ctx, source, rest.defaultMode ?? DEFAULT_MODE);
    } else if (volume.downwardAPI) {
      plugin = "downwardAPI";
      files = downwardFiles(
        ctx,
        volume.downwardAPI.items ?? [],
        volume.downwardAPI.defaultMode ?? DEFAULT_MODE,
      );
    } else if (volume.projected) {
      plugin = "projected";
      const mode = volume.projected.defaultMode ?? DEFAULT_MODE;
      files = [];
      for (const source of volume.projected.sources ?? [])
        files.push(...(await projectionFiles(ctx, source, mode)));
    } else {
      throw new UnsupportedVolumeError(
        `volume "${name}" has type ${volumeKind(volume)}, which the node agent does not support (supported: ${SUPPORTED.join(", ")})`,
      );
    }
  } catch (err) {
    if (err instanceof UnsupportedVolumeError) throw err;
    throw new VolumeSetUpError(name, errorMessage(err));
  }
  return { name, source: { kind: "files", plugin, files } };
}

/** Renders all of the pod's volumes, or throws the first VolumeSetUpError/UnsupportedVolumeError. */
export async function renderVolumes(ctx: VolumeContext): Promise<VolumeRequest[]> {
  const out: VolumeRequest[] = [];
  for (const volume of ctx.pod.spec.volumes ?? []) out.push(await renderVolume(ctx, volume));
  return out;
}
