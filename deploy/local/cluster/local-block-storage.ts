// Block volumes: one `local` PersistentVolume (volumeMode Block) per loop device of a node
// (loop-devices.ts), pinned to that node, and the local-block StorageClass, which provisions nothing
// and binds when the first consumer is scheduled (the scheduler's VolumeBinding plugin picks a PV on
// the pod's node, kube-controller-manager's PV controller completes the bind). Once a claim is deleted
// its PV is Released; the node agent of its node wipes the device and creates the PV again, Available
// (deploy/local/node-agent/local-block-recycler.ts), allowed by a ClusterRole per node over its own PVs.
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1PersistentVolume,
  V1StorageClass,
} from "@kubernetes/client-node";
import { stringify } from "yaml";
import { LOCAL_BLOCK_LABEL, localBlockPVName } from "../node-agent/local-block-recycler.js";
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
/**
 * Marks the PVs this file renders with their node, so a stale one can be found and each node agent
 * recycles its own (the agent owns the name, and the PV names).
 */
export { LOCAL_BLOCK_LABEL, localBlockPVName };
const HOSTNAME_LABEL = "kubernetes.io/hostname";
const RBAC_GROUP = "rbac.authorization.k8s.io";

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
      // kube-controller-manager has no deleter for `local` volumes: Retain keeps it off a Released one,
      // which the node agent wipes and creates again (local-block-recycler.ts)
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

export const localBlockRecyclerRole = (node: string): string => `kubevirt-ts:local-block-recycler:${node}`;

/**
 * What a node agent's recycler may do, as the node's user (system:node:<node>; the Node authorizer
 * lets a node only get the PVs its pods use): list and watch PVs (it selects its own by label), create
 * them (RBAC cannot name an object not yet created), get and delete only its node's local-block PVs.
 * Its events are the Node authorizer's to allow, as for pod events.
 */
export function localBlockRecyclerRBAC(
  records: readonly LoopDeviceRecord[],
): (V1ClusterRole | V1ClusterRoleBinding)[] {
  const nodes = [...new Set(records.map((record) => record.node))];
  return nodes.flatMap((node) => {
    const name = localBlockRecyclerRole(node);
    const pvNames = records.filter((record) => record.node === node).map(localBlockPVName);
    const role: V1ClusterRole = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: "ClusterRole",
      metadata: { name },
      rules: [
        { apiGroups: [""], resources: ["persistentvolumes"], verbs: ["list", "watch", "create"] },
        {
          apiGroups: [""],
          resources: ["persistentvolumes"],
          verbs: ["get", "delete"],
          resourceNames: pvNames,
        },
      ],
    };
    const binding: V1ClusterRoleBinding = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name },
      subjects: [{ apiGroup: RBAC_GROUP, kind: "User", name: `system:node:${node}` }],
    };
    return [role, binding];
  });
}

export function localBlockObjects(
  records: readonly LoopDeviceRecord[],
): (V1StorageClass | V1PersistentVolume | V1ClusterRole | V1ClusterRoleBinding)[] {
  return [localBlockStorageClass(), ...records.map(localBlockPV), ...localBlockRecyclerRBAC(records)];
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
