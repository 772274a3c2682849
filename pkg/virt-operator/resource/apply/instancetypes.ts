// The common cluster instance types and preferences (upstream's apply/instancetypes.go and the matching
// part of deleteObjectsNotInInstallStrategy): created or replaced with the operator's labels and
// annotations while spec.configuration.commonInstancetypesDeployment allows it, and the operator's own
// deleted when it does not. Upstream reads an unfiltered cache; the CRDs only exist once the install has
// created them, so this lists from the server, once per kind and pass.
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../../../controller/object.js";
import type { GroupVersionResource } from "../../../controller/gvr.js";
import { errorMessage } from "../../../util/error-message.js";
import type { KubeVirtCR } from "../../cluster.js";
import { COMMON_INSTANCETYPE_RESOURCES } from "../../resources.js";
import { APP_COMPONENT_LABEL, MANAGED_BY_LABEL, MANAGED_BY_OPERATOR } from "../../util/labels.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import type { ReconcileContext } from "./context.js";
import { appComponentOf, injectOperatorMetadata } from "./metadata.js";

type BundleObject = KubeObject & { spec: unknown };
type BundleStrategy = Pick<InstallStrategy, "instancetypes" | "preferences">;

interface BundleKind {
  gvr: GroupVersionResource;
  /** The word upstream's messages use. */
  noun: "instancetype" | "preference";
  desired(strategy: BundleStrategy): readonly BundleObject[];
}

const INSTANCETYPES: BundleKind = {
  gvr: COMMON_INSTANCETYPE_RESOURCES.clusterInstancetypes,
  noun: "instancetype",
  desired: (s) => s.instancetypes as unknown as BundleObject[],
};

const PREFERENCES: BundleKind = {
  gvr: COMMON_INSTANCETYPE_RESOURCES.clusterPreferences,
  noun: "preference",
  desired: (s) => s.preferences as unknown as BundleObject[],
};

/** Upstream's default: deployed unless the CR sets commonInstancetypesDeployment.enabled to false. */
export function commonInstancetypesDeploymentEnabled(kv: KubeVirtCR): boolean {
  return kv.spec.configuration?.commonInstancetypesDeployment?.enabled ?? true;
}

/** The labels upstream selects the operator's own bundle objects by. */
function managedSelector(kv: KubeVirtCR): string {
  return `${APP_COMPONENT_LABEL}=${appComponentOf(kv)},${MANAGED_BY_LABEL}=${MANAGED_BY_OPERATOR}`;
}

const nameOf = (o: KubeObject) => o.metadata?.name ?? "";

// Semantic equality as apimachinery's: an absent map equals an empty one.
const sameMap = (a: Record<string, string> | undefined, b: Record<string, string> | undefined) =>
  isDeepStrictEqual(a ?? {}, b ?? {});

async function createOrUpdate(ctx: ReconcileContext, kind: BundleKind, strategy: BundleStrategy) {
  const found = new Map(
    (await ctx.client.list<BundleObject>(kind.gvr, "")).map((o) => [nameOf(o), o] as const),
  );
  for (const required of kind.desired(strategy)) {
    const desired = structuredClone(required);
    desired.metadata ??= {};
    injectOperatorMetadata(ctx.kv, desired.metadata, ctx.target, true);
    const name = nameOf(desired);
    const existing = found.get(name);
    if (!existing) {
      try {
        await ctx.client.create(kind.gvr, desired);
      } catch (err) {
        throw new Error(`unable to create ${kind.noun} ${name}: ${errorMessage(err)}`);
      }
      ctx.logger.debug({ kind: kind.gvr.kind, name }, `${kind.noun} created`);
      continue;
    }
    if (
      sameMap(existing.metadata?.annotations, desired.metadata.annotations) &&
      sameMap(existing.metadata?.labels, desired.metadata.labels) &&
      isDeepStrictEqual(existing.spec, desired.spec)
    ) {
      continue;
    }
    // A full replace, as upstream's Update: labels or annotations others added do not survive.
    desired.metadata.resourceVersion = existing.metadata?.resourceVersion;
    try {
      await ctx.client.update(kind.gvr, desired);
    } catch (err) {
      throw new Error(`unable to update ${kind.noun} ${name}: ${errorMessage(err)}`);
    }
    ctx.logger.debug({ kind: kind.gvr.kind, name }, `${kind.noun} updated`);
  }
}

/** Deletes the operator's objects of the kind, once any of the bundle's names is on the cluster. */
async function deleteManaged(ctx: ReconcileContext, kind: BundleKind, strategy: BundleStrategy) {
  const present = new Set((await ctx.client.list(kind.gvr, "")).map(nameOf));
  if (!kind.desired(strategy).some((o) => present.has(nameOf(o)))) return;
  try {
    // Upstream's DeleteCollection by the same selector, one object at a time.
    for (const obj of await ctx.client.list(kind.gvr, "", { labelSelector: managedSelector(ctx.kv) })) {
      await ctx.client.delete(kind.gvr, "", nameOf(obj));
    }
  } catch (err) {
    // Upstream says "preferences" for both kinds.
    throw new Error(`unable to delete preferences: ${errorMessage(err)}`);
  }
}

/** Deletes the operator's objects of the kind that the bundle no longer has (an older bundle's). */
async function deleteOutdated(ctx: ReconcileContext, kind: BundleKind, strategy: BundleStrategy) {
  const wanted = new Set(kind.desired(strategy).map(nameOf));
  for (const obj of await ctx.client.list(kind.gvr, "", { labelSelector: managedSelector(ctx.kv) })) {
    if (obj.metadata?.deletionTimestamp || wanted.has(nameOf(obj))) continue;
    await ctx.client.delete(kind.gvr, "", nameOf(obj));
  }
}

/** Upstream's cleanup of instance types and preferences outside the install strategy. */
export async function deleteInstancetypesNotInInstallStrategy(
  ctx: ReconcileContext,
  strategy: BundleStrategy,
): Promise<void> {
  await deleteOutdated(ctx, INSTANCETYPES, strategy);
  await deleteOutdated(ctx, PREFERENCES, strategy);
}

/** The last step of a pass: deploy the bundle, or remove the operator's copy of it. */
export async function syncCommonInstancetypes(
  ctx: ReconcileContext,
  strategy: BundleStrategy,
): Promise<void> {
  if (commonInstancetypesDeploymentEnabled(ctx.kv)) {
    await createOrUpdate(ctx, INSTANCETYPES, strategy);
    await createOrUpdate(ctx, PREFERENCES, strategy);
  } else {
    await deleteManaged(ctx, INSTANCETYPES, strategy);
    await deleteManaged(ctx, PREFERENCES, strategy);
  }
}
