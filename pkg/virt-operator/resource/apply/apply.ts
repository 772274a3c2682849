// Create-or-patch of one installed object, the way every upstream createOrUpdate* does it: create when the
// cache does not have it (raising an expectation first), else patch only when labels/annotations, the
// tracked generation or the kind's own fields differ from what is desired. A second pass writes nothing.
import type { KubeObject } from "../../../controller/object.js";
import { keyOf } from "../../../controller/object.js";
import type { JsonPatchOp } from "../../cluster.js";
import { OPERATOR_RESOURCES, type OperatorResource } from "../../resources.js";
import type { ReconcileContext } from "./context.js";
import { errorMessage } from "../../../util/error-message.js";
import {
  expectedGeneration,
  injectOperatorMetadata,
  metadataPatch,
  metadataUpToDate,
  setGeneration,
} from "./metadata.js";

export interface KindRules<T extends KubeObject> {
  resource: OperatorResource;
  /** Whether the kind's own fields (spec, rules, webhooks...) of the stored object are as desired. */
  upToDate(existing: T, desired: T): boolean;
  /** Patch operations setting the kind's own fields. */
  patchOps(desired: T, existing: T): JsonPatchOp[];
  /** Record metadata.generation in status.generations and re-patch when someone else changed it. */
  trackGeneration: boolean;
  /** Look on the server when the cache misses: upstream adopts objects older installs did not label. */
  adopt?: boolean;
}

export type ApplyResult<T> = { action: "created" | "patched" | "unchanged"; object: T };

function kindOf(resource: OperatorResource): string {
  return (OPERATOR_RESOURCES[resource].kind ?? resource).toLowerCase();
}

async function lookup<T extends KubeObject>(
  ctx: ReconcileContext,
  rules: KindRules<T>,
  desired: T,
): Promise<T | undefined> {
  const cached = ctx.stores[rules.resource].get(keyOf(desired)) as T | undefined;
  if (cached || !rules.adopt) return cached;
  const gvr = OPERATOR_RESOURCES[rules.resource];
  return ctx.client.get<T>(gvr, desired.metadata?.namespace ?? "", desired.metadata?.name ?? "");
}

export async function createOrPatch<T extends KubeObject>(
  ctx: ReconcileContext,
  rules: KindRules<T>,
  required: T,
): Promise<ApplyResult<T>> {
  const gvr = OPERATOR_RESOURCES[rules.resource];
  const desired = structuredClone(required);
  desired.metadata ??= {};
  injectOperatorMetadata(ctx.kv, desired.metadata, ctx.target, true);
  const name = desired.metadata.name ?? "";
  const existing = await lookup(ctx, rules, desired);
  const expectations = ctx.expectations[rules.resource];

  if (!existing) {
    expectations.raiseExpectations(ctx.kvKey, 1, 0);
    let created: T;
    try {
      created = await ctx.client.create(gvr, desired);
    } catch (err) {
      expectations.lowerExpectations(ctx.kvKey, 1, 0);
      throw new Error(`unable to create ${kindOf(rules.resource)} ${name}: ${errorMessage(err)}`);
    }
    if (rules.trackGeneration) setGeneration(ctx.kv, gvr, created);
    ctx.logger.debug({ kind: gvr.kind, name }, "created");
    return { action: "created", object: created };
  }

  const generation = existing.metadata?.generation ?? 0;
  const generationOk =
    !rules.trackGeneration || generation === expectedGeneration(ctx.kv.status?.generations, gvr, desired);
  if (
    metadataUpToDate(existing.metadata, desired.metadata) &&
    generationOk &&
    rules.upToDate(existing, desired)
  ) {
    return { action: "unchanged", object: existing };
  }
  // Guard against a concurrent change the cache has not shown yet, as upstream does.
  const guard: JsonPatchOp[] = rules.trackGeneration
    ? [{ op: "test", path: "/metadata/generation", value: generation }]
    : [];
  const ops = [
    ...guard,
    ...metadataPatch(existing.metadata, desired.metadata),
    ...rules.patchOps(desired, existing),
  ];
  let patched: T;
  try {
    patched = await ctx.client.patch<T>(gvr, desired.metadata.namespace ?? "", name, ops);
  } catch (err) {
    throw new Error(`unable to patch ${kindOf(rules.resource)} ${name}: ${errorMessage(err)}`);
  }
  if (rules.trackGeneration) setGeneration(ctx.kv, gvr, patched);
  ctx.logger.debug({ kind: gvr.kind, name }, "patched");
  return { action: "patched", object: patched };
}

/** Deletes an object the cache holds, with a deletion expectation; objects already going are left alone. */
export async function deleteIfPresent(
  ctx: Pick<ReconcileContext, "client" | "stores" | "expectations" | "kvKey">,
  resource: OperatorResource,
  key: string,
): Promise<void> {
  const existing = ctx.stores[resource].get(key);
  if (!existing || existing.metadata?.deletionTimestamp) return;
  const expectations = ctx.expectations[resource];
  expectations.addExpectedDeletion(ctx.kvKey, key);
  try {
    await ctx.client.delete(
      OPERATOR_RESOURCES[resource],
      existing.metadata?.namespace ?? "",
      existing.metadata?.name ?? "",
    );
  } catch (err) {
    expectations.deletionObserved(ctx.kvKey, key);
    throw err;
  }
}
