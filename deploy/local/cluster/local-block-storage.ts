// Block volumes: one `local` PersistentVolume (volumeMode Block) per loop device of a node
// (loop-devices.ts), pinned to that node, and the local-block StorageClass, which provisions nothing
// and binds when the first consumer is scheduled (the scheduler's VolumeBinding plugin picks a PV on
// the pod's node, kube-controller-manager's PV controller completes the bind).
import type { V1PersistentVolume, V1StorageClass } from "@kubernetes/client-node";
import { stringify } from "yaml";
import type { Layout } from "./layout.js";
import { kubectlAs } from "./kubevirt.js";
import {
  ensureLoopDevices,
  LOOP_DEVICE_SIZE_BYTES,
  LOOP_DEVICES_PER_NODE,
  type Run,
} from "./loop-devices.js";
import { runCommand } from "./run-command.js";
import type { Say } from "./start.js";
import type { LoopDeviceRecord } from "./state.js";
import { topology } from "./topology.js";

export const LOCAL_BLOCK_STORAGE_CLASS = "local-block";
/** Marks the PVs this file renders, so a stale one can be found. */
export const LOCAL_BLOCK_LABEL = "kubevirt-ts.io/local-block";
const HOSTNAME_LABEL = "kubernetes.io/hostname";

export function localBlockPVName(record: Pick<LoopDeviceRecord, "node" | "index">): string {
  return `local-block-${record.node}-${record.index}`;
}

/** Bytes as a Kubernetes quantity, in the largest binary unit that divides them. */
export function binaryQuantity(bytes: number): string {
  for (const [suffix, size] of [
    ["Ti", 1024 ** 4],
    ["Gi", 1024 ** 3],
    ["Mi", 1024 ** 2],
    ["Ki", 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${suffix}`;
  }
  return String(bytes);
}

export function localBlockStorageClass(): V1StorageClass {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: LOCAL_BLOCK_STORAGE_CLASS },
    provisioner: "kubernetes.io/no-provisioner",
    volumeBindingMode: "WaitForFirstConsumer",
  };
}

export function localBlockPV(record: LoopDeviceRecord): V1PersistentVolume {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: localBlockPVName(record), labels: { [LOCAL_BLOCK_LABEL]: record.node } },
    spec: {
      capacity: { storage: binaryQuantity(record.sizeBytes) },
      volumeMode: "Block",
      accessModes: ["ReadWriteOnce"],
      // a static volume's data is kept when its claim goes; nothing could clean it
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: LOCAL_BLOCK_STORAGE_CLASS,
      local: { path: record.device },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: HOSTNAME_LABEL, operator: "In", values: [record.node] }] },
          ],
        },
      },
    },
  };
}

export function localBlockObjects(
  records: readonly LoopDeviceRecord[],
): (V1StorageClass | V1PersistentVolume)[] {
  return [localBlockStorageClass(), ...records.map(localBlockPV)];
}

interface ExistingPV {
  metadata: { name: string };
  spec?: { local?: { path?: string } };
  status?: { phase?: string };
}

/**
 * PVs of an earlier `up` whose device changed (a PV's source cannot be updated): to delete before
 * applying. A bound one is an error, since its pod holds the old device.
 */
export function stalePVs(existing: readonly ExistingPV[], wanted: readonly V1PersistentVolume[]): string[] {
  const stale: string[] = [];
  for (const pv of existing) {
    const want = wanted.find((w) => w.metadata?.name === pv.metadata.name);
    if (!want || want.spec?.local?.path === pv.spec?.local?.path) continue;
    if (pv.status?.phase === "Bound") {
      throw new Error(
        `persistentvolumes "${pv.metadata.name}": spec.local.path is ${pv.spec?.local?.path ?? ""}, the device is now ${want.spec?.local?.path ?? ""}, and the volume is Bound: delete its claim first`,
      );
    }
    stale.push(pv.metadata.name);
  }
  return stale;
}

/** Attaches the loop devices and applies their PVs and the StorageClass; idempotent. */
export async function installLocalBlockStorage(l: Layout, say: Say, run: Run = runCommand): Promise<void> {
  const records = await ensureLoopDevices(
    l,
    {
      nodes: topology.nodes.map((node) => node.name),
      perNode: LOOP_DEVICES_PER_NODE,
      sizeBytes: LOOP_DEVICE_SIZE_BYTES,
    },
    run,
  );
  const kubectl = kubectlAs(l);
  const objects = localBlockObjects(records);
  const listing = JSON.parse(await kubectl(["get", "pv", "-l", LOCAL_BLOCK_LABEL, "-o", "json"])) as {
    items: ExistingPV[];
  };
  const stale = stalePVs(
    listing.items,
    objects.filter((o): o is V1PersistentVolume => o.kind === "PersistentVolume"),
  );
  if (stale.length > 0) await kubectl(["delete", "pv", ...stale, "--wait=true"]);
  await kubectl(["apply", "-f", "-"], objects.map((object) => stringify(object)).join("---\n"));
  say(
    `storage: ${records.length} local Block PVs (StorageClass ${LOCAL_BLOCK_STORAGE_CLASS}) on ${records.map((r) => r.device).join(", ")}`,
  );
}
