// The volume flags of `virtctl create vm` (upstream vm.go): containerdisks and PVCs used as they
// are, a sysprep ConfigMap or Secret, and DataVolumeTemplates imported from the CDI sources.
import type { VirtualMachine } from "../../../api/generated/v1.js";
import type { DataVolumeSpec } from "../../../api/generated/v1beta1.js";
import { isDNS1123Label } from "../../../virt-api/webhooks/validating-webhook/admitters/k8s-validation.js";
import {
  NotFoundError,
  flagError,
  mapParams,
  paramByName,
  parseGoQuantity,
  splitPrefixedName,
} from "../params/params.js";
import * as tables from "./params.js";
import type { CreateVM } from "./state.js";
import { addDiskWithBootOrder, addVolume, volumeShouldNotExist } from "./state.js";

export const CONTAINERDISK_VOLUME_FLAG = "volume-containerdisk";
export const PVC_VOLUME_FLAG = "volume-pvc";
export const VOLUME_IMPORT_FLAG = "volume-import";
export const SYSPREP_VOLUME_FLAG = "volume-sysprep";
export const DATASOURCE_VOLUME_FLAG = "volume-datasource";
export const CLONE_PVC_VOLUME_FLAG = "volume-clone-pvc";
export const BLANK_VOLUME_FLAG = "volume-blank";

const SYSPREP_DISK = "sysprepdisk";

const message = (error: unknown) => (error as Error).message;

function checkName(flag: string, name: string): void {
  const errors = isDNS1123Label(name);
  if (errors.length > 0) throw flagError(flag, `invalid name "${name}": ${errors.join(",")}`);
}

/** `src` as `prefix/name`, refused under the flag's name. */
function sourceName(flag: string, src: string): { prefix: string; name: string } {
  try {
    return splitPrefixedName(src);
  } catch (error) {
    throw flagError(flag, `src invalid: ${message(error)}`);
  }
}

export function withContainerdiskVolume(state: CreateVM, vm: VirtualMachine): void {
  state.containerdiskVolumes.forEach((text, index) => {
    const src = mapParams(CONTAINERDISK_VOLUME_FLAG, text, tables.volumeSource);
    if (src.src === "") throw flagError(CONTAINERDISK_VOLUME_FLAG, "src must be specified");
    const name = src.name || `${vm.metadata?.name ?? ""}-containerdisk-${index}`;
    checkName(CONTAINERDISK_VOLUME_FLAG, name);
    volumeShouldNotExist(CONTAINERDISK_VOLUME_FLAG, vm, name);
    addVolume(vm, { name, containerDisk: { image: src.src } });
    addDiskWithBootOrder(state, CONTAINERDISK_VOLUME_FLAG, vm, name, src.bootorder);
  });
}

export function withPvcVolume(state: CreateVM, vm: VirtualMachine): void {
  for (const text of state.pvcVolumes) {
    const src = mapParams(PVC_VOLUME_FLAG, text, tables.volumeSource);
    if (src.src === "") throw flagError(PVC_VOLUME_FLAG, "src must be specified");
    const { prefix: namespace, name: claimName } = sourceName(PVC_VOLUME_FLAG, src.src);
    if (namespace !== "") {
      throw flagError(PVC_VOLUME_FLAG, `not allowed to specify namespace of pvc "${claimName}"`);
    }
    const name = src.name || claimName;
    checkName(PVC_VOLUME_FLAG, name);
    volumeShouldNotExist(PVC_VOLUME_FLAG, vm, name);
    addVolume(vm, { name, persistentVolumeClaim: { claimName } });
    addDiskWithBootOrder(state, PVC_VOLUME_FLAG, vm, name, src.bootorder);
  }
}

export function withSysprepVolume(state: CreateVM, vm: VirtualMachine): void {
  const src = mapParams(SYSPREP_VOLUME_FLAG, state.sysprepVolume, tables.sysprepVolumeSource);
  if (src.src === "") throw flagError(SYSPREP_VOLUME_FLAG, "src must be specified");
  const { prefix: namespace, name } = sourceName(SYSPREP_VOLUME_FLAG, src.src);
  if (namespace !== "") {
    throw flagError(SYSPREP_VOLUME_FLAG, `not allowed to specify namespace of configmap or secret "${name}"`);
  }
  const type = src.type || "configmap";
  volumeShouldNotExist(SYSPREP_VOLUME_FLAG, vm, SYSPREP_DISK);
  const reference = { name: src.src };
  switch (type.toLowerCase()) {
    case "configmap":
      addVolume(vm, { name: SYSPREP_DISK, sysprep: { configMap: reference } });
      return;
    case "secret":
      addVolume(vm, { name: SYSPREP_DISK, sysprep: { secret: reference } });
      return;
    default:
      throw flagError(
        SYSPREP_VOLUME_FLAG,
        `invalid sysprep source type "${type}", supported values are: configmap, secret`,
      );
  }
}

// --- --volume-import

interface ImportedSource {
  spec: DataVolumeSpec;
  bootOrder: number | undefined;
}

const requireFlag = (condition: boolean, why: string) => {
  if (!condition) throw flagError(VOLUME_IMPORT_FLAG, why);
};

/** Drops Go's omitempty fields left empty. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(([, value]) => value !== "" && value !== undefined),
  ) as T;
}

/** pvc and snapshot sources: `src` must name the namespace. */
function namespacedSource(text: string, kind: "pvc" | "snapshot") {
  const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSource);
  requireFlag(src.src !== "", "src must be specified");
  const { prefix: namespace, name } = sourceName(VOLUME_IMPORT_FLAG, src.src);
  requireFlag(namespace !== "", `namespace of ${kind} "${name}" must be specified`);
  return { source: { name, namespace }, bootOrder: src.bootorder };
}

const IMPORT_SOURCES: Readonly<Record<string, (text: string) => ImportedSource>> = {
  blank(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceBlank);
    return { spec: { source: { blank: {} } }, bootOrder: src.bootorder };
  },
  gcs(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceGcs);
    requireFlag(src.url !== "", "url is required with gcs volume source");
    return {
      spec: { source: { gcs: compact({ url: src.url, secretRef: src.secretref }) } },
      bootOrder: src.bootorder,
    };
  },
  http(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceHTTP);
    requireFlag(src.url !== "", "url is required with http volume source");
    const http = compact({
      url: src.url,
      secretRef: src.secretref,
      certConfigMap: src.certconfigmap,
      extraHeaders: src.extraheaders,
      secretExtraHeaders: src.secretextraheaders,
    });
    return { spec: { source: { http } }, bootOrder: src.bootorder };
  },
  imageio(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceImageIO);
    requireFlag(
      src.url !== "" && src.diskid !== "",
      "url and diskid are both required with imageio volume source",
    );
    const imageio = compact({
      url: src.url,
      diskId: src.diskid,
      secretRef: src.secretref,
      certConfigMap: src.certconfigmap,
    });
    return { spec: { source: { imageio } }, bootOrder: src.bootorder };
  },
  pvc(text) {
    const { source, bootOrder } = namespacedSource(text, "pvc");
    return { spec: { source: { pvc: source } }, bootOrder };
  },
  registry(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceRegistry);
    requireFlag(
      src.pullmethod === "" || src.pullmethod === "pod" || src.pullmethod === "node",
      "pullmethod must be set to pod or node",
    );
    requireFlag(
      (src.url === "") !== (src.imagestream === ""),
      "exactly one of url or imagestream must be defined",
    );
    const registry = compact({
      pullMethod: src.pullmethod,
      certConfigMap: src.certconfigmap,
      imageStream: src.imagestream,
      url: src.url,
      secretRef: src.secretref,
    });
    return { spec: { source: { registry } }, bootOrder: src.bootorder };
  },
  s3(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceS3);
    requireFlag(src.url !== "", "url is required with s3 volume source");
    const s3 = compact({ url: src.url, certConfigMap: src.certconfigmap, secretRef: src.secretref });
    return { spec: { source: { s3 } }, bootOrder: src.bootorder };
  },
  vddk(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSourceVDDK);
    for (const param of ["url", "uuid", "thumbprint", "secretref", "backingfile"] as const) {
      requireFlag(src[param] !== "", `${param} is required with vddk volume source`);
    }
    const vddk = compact({
      url: src.url,
      uuid: src.uuid,
      thumbprint: src.thumbprint,
      secretRef: src.secretref,
      initImageURL: src.initimageurl,
      backingFile: src.backingfile,
    });
    return { spec: { source: { vddk } }, bootOrder: src.bootorder };
  },
  snapshot(text) {
    const { source, bootOrder } = namespacedSource(text, "snapshot");
    return { spec: { source: { snapshot: source } }, bootOrder };
  },
  ds(text) {
    const src = mapParams(VOLUME_IMPORT_FLAG, text, tables.dataVolumeSource);
    requireFlag(src.src !== "", "src must be specified");
    const { prefix: namespace, name } = sourceName(VOLUME_IMPORT_FLAG, src.src);
    const sourceRef = { kind: "DataSource", name, ...(namespace ? { namespace } : {}) };
    return { spec: { sourceRef }, bootOrder: src.bootorder };
  },
};

/** The import types whose DataVolume may go without a size. */
const SIZE_OPTIONAL = new Set(["pvc", "snapshot", "ds"]);

/** A named parameter, or the flag's refusal when the text does not parse. */
function importParam(name: string, text: string): string | NotFoundError {
  try {
    return paramByName(name, text);
  } catch (error) {
    if (error instanceof NotFoundError) return error;
    throw flagError(VOLUME_IMPORT_FLAG, message(error));
  }
}

export function withImportedVolume(state: CreateVM, vm: VirtualMachine): void {
  for (const text of state.volumeImport) {
    const type = importParam("type", text);
    if (type instanceof NotFoundError) throw flagError(VOLUME_IMPORT_FLAG, type.message);
    const source = IMPORT_SOURCES[type];
    if (!source) {
      throw flagError(
        VOLUME_IMPORT_FLAG,
        `invalid volume import type "${type}", see help for supported values`,
      );
    }
    const { spec, bootOrder } = source(text);
    const size = importParam("size", text);
    if (size instanceof NotFoundError && !SIZE_OPTIONAL.has(type)) {
      throw flagError(VOLUME_IMPORT_FLAG, size.message);
    }
    const named = importParam("name", text);
    const name = typeof named === "string" ? named : `imported-volume-${state.randomSuffix()}`;
    createDataVolume(spec, typeof size === "string" ? size : "", name, vm);
    addDiskWithBootOrder(state, VOLUME_IMPORT_FLAG, vm, name, bootOrder);
  }
}

function createDataVolume(spec: DataVolumeSpec, size: string, name: string, vm: VirtualMachine): void {
  checkName(VOLUME_IMPORT_FLAG, name);
  volumeShouldNotExist(VOLUME_IMPORT_FLAG, vm, name);
  const resources = size === "" ? {} : { requests: { storage: parseGoQuantity(size).toString() } };
  (vm.spec.dataVolumeTemplates ??= []).push({
    metadata: { name },
    spec: { ...spec, storage: { resources } },
  });
  addVolume(vm, { name, dataVolume: { name } });
}

/**
 * The deprecated volume flags become --volume-import entries of their type, each put first (so
 * that, as upstream, the later flags of this kind come before the earlier ones).
 */
export function aliasToVolumeImport(
  state: CreateVM,
  flag: string,
  type: "ds" | "pvc" | "blank",
  volumes: readonly string[],
): void {
  // Upstream writes this itself: cobra's deprecation notice would go to the manifest's stream.
  state.warn(`Flag --${flag} has been deprecated, use flag --volume-import instead\n`);
  for (const volume of volumes) {
    if (volume === "") throw flagError(VOLUME_IMPORT_FLAG, "params may not be empty");
    state.volumeImport.unshift(`type:${type},${volume}`);
  }
  state.changed.add(VOLUME_IMPORT_FLAG);
}
