// Uninstall (upstream's apply/delete.go DeleteAll): CRDs first, held by the operator's finalizer until the
// apiserver has removed every custom resource of them, then the workloads, webhooks, APIServices,
// Services, RBAC, Secrets and ConfigMaps; finally the kubevirt.io/ labels virt-handler put on nodes.
import { keyOf } from "../../../controller/object.js";
import type { InstalledCrd, JsonPatchOp } from "../../cluster.js";
import { VIRT_OPERATOR_COMPONENT_FINALIZER } from "../../util/labels.js";
import { DELETION_ORDER, OPERATOR_RESOURCES, WATCHED_RESOURCES } from "../../resources.js";
import { deleteIfPresent } from "./apply.js";
import type { ReconcileContext } from "./context.js";
import { deleteDummyWebhookValidators } from "./reconcile.js";

type DeleteContext = Pick<ReconcileContext, "client" | "stores" | "expectations" | "kvKey" | "logger">;

const FINALIZERS = "/metadata/finalizers";

/** The apiserver's sign that a deleted CRD has no custom resources left. */
export function crdInstanceDeletionCompleted(crd: InstalledCrd): boolean {
  if (!crd.metadata?.deletionTimestamp) return false;
  return (crd.status?.conditions ?? []).some(
    (c) => c.type === "Terminating" && c.status === "False" && c.reason === "InstanceDeletionCompleted",
  );
}

const hasFinalizer = (crd: InstalledCrd) =>
  crd.metadata?.finalizers?.includes(VIRT_OPERATOR_COMPONENT_FINALIZER) ?? false;

async function patchCrd(ctx: DeleteContext, crd: InstalledCrd, ops: JsonPatchOp[]): Promise<void> {
  await ctx.client.patch(OPERATOR_RESOURCES.crds, "", crd.metadata?.name ?? "", ops);
}

/**
 * Deletes the CRDs with the operator's finalizer on, and takes the finalizer off only once every CRD has
 * lost its custom resources, so no CRD disappears while instances of another one are still being removed.
 */
async function crdHandleDeletion(ctx: DeleteContext): Promise<void> {
  const crds = ctx.stores.crds.list();
  for (const crd of crds) {
    if (crd.metadata?.deletionTimestamp || hasFinalizer(crd)) continue;
    await patchCrd(ctx, crd, [
      {
        op: "add",
        path: FINALIZERS,
        value: [...(crd.metadata?.finalizers ?? []), VIRT_OPERATOR_COMPONENT_FINALIZER],
      },
    ]);
  }
  for (const crd of crds) await deleteIfPresent(ctx, "crds", keyOf(crd));
  if (!crds.every(crdInstanceDeletionCompleted)) return;
  for (const crd of crds.filter(hasFinalizer)) {
    const finalizers = crd.metadata?.finalizers ?? [];
    const rest = finalizers.filter((f) => f !== VIRT_OPERATOR_COMPONENT_FINALIZER);
    await patchCrd(
      ctx,
      crd,
      rest.length === 0
        ? [{ op: "remove", path: FINALIZERS }]
        : [
            { op: "test", path: FINALIZERS, value: finalizers },
            { op: "replace", path: FINALIZERS, value: rest },
          ],
    );
  }
}

/** JSON Pointer escaping of a map key (RFC 6901). */
const pointerEscape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

async function deleteKubeVirtLabelsFromNodes(ctx: DeleteContext): Promise<void> {
  const nodes = await ctx.client.list(WATCHED_RESOURCES.nodes, "", {
    labelSelector: "kubevirt.io/schedulable",
  });
  for (const node of nodes) {
    const keys = Object.keys(node.metadata?.labels ?? {}).filter((k) => k.startsWith("kubevirt.io/"));
    if (keys.length === 0) continue;
    const ops = keys.map((k): JsonPatchOp => ({
      op: "remove",
      path: `/metadata/labels/${pointerEscape(k)}`,
    }));
    await ctx.client.patch(WATCHED_RESOURCES.nodes, "", node.metadata?.name ?? "", ops);
    ctx.logger.info({ node: node.metadata?.name }, "removed kubevirt labels from node");
  }
}

/** One deletion pass; call again until every store is empty. */
export async function deleteAll(ctx: DeleteContext): Promise<void> {
  await crdHandleDeletion(ctx);
  if (ctx.stores.crds.list().length > 0) return;
  for (const resource of DELETION_ORDER) {
    for (const obj of ctx.stores[resource].list()) await deleteIfPresent(ctx, resource, keyOf(obj));
  }
  await deleteKubeVirtLabelsFromNodes(ctx);
  await deleteDummyWebhookValidators(ctx);
}

/** Whether nothing the operator installs is left (upstream's Stores.AllEmpty). */
export function allStoresEmpty(stores: DeleteContext["stores"]): boolean {
  return (Object.keys(OPERATOR_RESOURCES) as Array<keyof typeof OPERATOR_RESOURCES>).every(
    (resource) => stores[resource].list().length === 0,
  );
}
