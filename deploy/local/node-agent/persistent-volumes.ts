import type { ObjectSource } from "./env.js";
import type { PersistentVolume, Pod, Volume } from "./k8s-types.js";
import type { FsGroupOwnership, PersistentVolumeSource } from "./pod-runtime.js";

// A pod's persistentVolumeClaim volume resolved as kubelet's volume manager does: the claim must exist,
// not be deleting and be Bound; its PV must point back at it; the PV's volumeMode must fit how the
// containers use the volume (volumeMounts: Filesystem, volumeDevices: Block). Only the node-local sources
// exist here (hostPath, as local-path-provisioner makes them, and local). The messages are kubelet's.

/** PV spec fields that are not its volume source. */
const PV_SPEC_FIELDS = new Set([
  "accessModes",
  "capacity",
  "claimRef",
  "mountOptions",
  "nodeAffinity",
  "persistentVolumeReclaimPolicy",
  "storageClassName",
  "volumeAttributesClassName",
  "volumeMode",
]);

/** What keeps a volume from being processed: kubelet retries, and reports it as FailedMount. */
export class VolumeProcessingError extends Error {}

/** A PV source the node agent has no plugin for. */
export class UnsupportedPersistentVolumeError extends Error {}

type ClaimVolume = Volume & { persistentVolumeClaim: NonNullable<Volume["persistentVolumeClaim"]> };

function volumeUse(pod: Pod, volume: string): { mounted: boolean; device: boolean } {
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  return {
    mounted: containers.some((c) => (c.volumeMounts ?? []).some((m) => m.name === volume)),
    device: containers.some((c) => (c.volumeDevices ?? []).some((d) => d.name === volume)),
  };
}

function fsGroupOf(pod: Pod): FsGroupOwnership | undefined {
  const security = pod.spec.securityContext;
  if (security?.fsGroup === undefined) return undefined;
  const changePolicy = security.fsGroupChangePolicy === "OnRootMismatch" ? "OnRootMismatch" : "Always";
  return { gid: security.fsGroup, changePolicy };
}

function sourceName(pv: PersistentVolume): string {
  return Object.keys(pv.spec ?? {}).find((key) => !PV_SPEC_FIELDS.has(key)) ?? "none";
}

async function boundVolume(objects: ObjectSource, namespace: string, claimName: string) {
  const claim = await objects.persistentVolumeClaim(namespace, claimName);
  if (!claim) {
    throw new Error(`failed to fetch PVC from API server: persistentvolumeclaims "${claimName}" not found`);
  }
  if (claim.metadata.deletionTimestamp) throw new Error("PVC is being deleted");
  if (claim.status?.phase !== "Bound") throw new Error("PVC is not bound");
  const pvName = claim.spec?.volumeName ?? "";
  if (pvName === "") throw new Error("PVC has empty pvc.Spec.VolumeName");
  const pv = await objects.persistentVolume(pvName);
  if (!pv) {
    throw new Error(`failed to fetch PV ${pvName} from API server: persistentvolumes "${pvName}" not found`);
  }
  const claimRef = pv.spec?.claimRef;
  if (!claimRef) {
    throw new Error(
      `found PV object ${pvName} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`,
    );
  }
  if (claimRef.uid !== claim.metadata.uid) {
    throw new Error(
      `found PV object ${pvName} but its pv.Spec.ClaimRef.UID (${claimRef.uid ?? ""}) does not point to claim.UID (${claim.metadata.uid})`,
    );
  }
  return pv;
}

/** Resolves the claim to the node-local source of its PV, or throws one of the errors above. */
export async function persistentVolumeSource(
  pod: Pod,
  volume: ClaimVolume,
  objects: ObjectSource,
): Promise<PersistentVolumeSource> {
  const { claimName, readOnly = false } = volume.persistentVolumeClaim;
  const namespace = pod.metadata.namespace ?? "default";
  let pv: PersistentVolume;
  try {
    pv = await boundVolume(objects, namespace, claimName);
  } catch (err) {
    throw new VolumeProcessingError(
      `error processing PVC ${namespace}/${claimName}: ${(err as Error).message}`,
    );
  }
  const pvName = pv.metadata.name;
  const volumeMode: PersistentVolumeSource["volumeMode"] =
    pv.spec?.volumeMode === "Block" ? "Block" : "Filesystem";
  const use = volumeUse(pod, volume.name);
  if (use.mounted && volumeMode !== "Filesystem") {
    throw new VolumeProcessingError(
      `volume ${volume.name} has volumeMode ${volumeMode}, but is specified in volumeMounts`,
    );
  }
  if (use.device && volumeMode !== "Block") {
    throw new VolumeProcessingError(
      `volume ${volume.name} has volumeMode ${volumeMode}, but is specified in volumeDevices`,
    );
  }
  const common = { kind: "persistentVolume" as const, pvName, volumeMode, readOnly };
  const hostPath = pv.spec?.hostPath;
  if (hostPath) {
    // The hostPath plugin maps no block devices, and changes no ownership (kubelet's hostPath mounter).
    if (volumeMode === "Block") {
      throw new VolumeProcessingError(
        `failed to get Plugin from volumeSpec for volume "${pvName}" err=no volume plugin matched`,
      );
    }
    return {
      ...common,
      plugin: "hostPath",
      path: hostPath.path,
      ...(hostPath.type ? { type: hostPath.type } : {}),
    };
  }
  const local = pv.spec?.local;
  if (local) {
    // kubelet's local mounter applies fsGroup to writable Filesystem volumes only; block devices keep
    // their owner (the container runtime gives the node to the container's user).
    const fsGroup = volumeMode === "Filesystem" && !readOnly ? fsGroupOf(pod) : undefined;
    return { ...common, plugin: "local", path: local.path, ...(fsGroup ? { fsGroup } : {}) };
  }
  throw new UnsupportedPersistentVolumeError(
    `volume "${volume.name}" uses PersistentVolumeClaim "${claimName}" bound to PersistentVolume "${pvName}" with source ${sourceName(pv)}, which the node agent does not support (supported: hostPath, local)`,
  );
}
