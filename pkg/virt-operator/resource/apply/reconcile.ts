// One reconcile pass of an install (upstream's Reconciler.Sync, create/rollback path), in upstream's order:
// placeholder webhook → CRDs → RBAC → Services → CA, CA bundle, webhook configurations, APIServices and
// certificates → virt-api (then wait for it) → virt-controller → virt-handler → clean up what the install
// no longer has → the common instance types and preferences. Returns true once everything is created and
// rolled out. The CR's customizeComponents are applied to the strategy first, as upstream's NewReconciler
// does. Upstream's update path (moving between KubeVirt versions) is not ported: this operator only
// installs its own version.
import "reflect-metadata";
import { newCA, toPem } from "../../../certificates/triple.js";
import { keyOf } from "../../../controller/object.js";
import type { KubeObject } from "../../../controller/object.js";
import { daemonSetIsReady, deploymentIsReady } from "../../util/readycheck.js";
import type { OperatorResource } from "../../resources.js";
import type { DaemonSet, Deployment } from "../generate/components/k8s-types.js";
import { DUMMY_WEBHOOK_PREFIX } from "../generate/components/names.js";
import { newDummyValidatingWebhookConfiguration } from "../generate/components/webhooks.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import { OPERATOR_RESOURCES } from "../../resources.js";
import { createOrPatch, deleteIfPresent } from "./apply.js";
import { syncDaemonSet, syncDeployment } from "./apps.js";
import { createOrUpdateComponentsWithCertificates } from "./certificate-secrets.js";
import type { ReconcileContext } from "./context.js";
import { errorMessage } from "../../../util/error-message.js";
import { createOrUpdateRbac, createOrUpdateServices } from "./core.js";
import { deleteInstancetypesNotInInstallStrategy, syncCommonInstancetypes } from "./instancetypes.js";
import { crdRules } from "./kinds.js";
import { injectOperatorMetadata, objectMatchesVersion } from "./metadata.js";
import { customizeInstallStrategy } from "./patches.js";

type ReadContext = Pick<ReconcileContext, "kv" | "stores">;

export function deploymentsReady(ctx: ReadContext, list: readonly Deployment[]): boolean {
  return list.every((d) => deploymentIsReady(ctx.kv, d, ctx.stores.deployments, ctx.stores.pods));
}

export function daemonSetsReady(ctx: ReadContext, list: readonly DaemonSet[]): boolean {
  return list.every((d) => daemonSetIsReady(ctx.kv, d, ctx.stores.daemonSets, ctx.stores.pods));
}

/** Blocks creating objects of CRDs new to this cluster until virt-api can validate them. */
async function createDummyWebhookValidator(ctx: ReconcileContext, strategy: InstallStrategy): Promise<void> {
  const generation = ctx.kv.metadata?.generation ?? 0;
  const webhooks = ctx.stores.validatingWebhooks.list();
  if (webhooks.some((w) => objectMatchesVersion(w.metadata, ctx.target, generation))) return;
  const newCrds = strategy.crds
    .filter((crd) => !ctx.stores.crds.get(crd.metadata.name))
    .map((crd) => ({ group: crd.spec.group, plural: crd.spec.names.plural, crdName: crd.metadata.name }));
  if (newCrds.length === 0) return;
  // Only has to parse: the webhook points at a Service that does not exist.
  const fakeCA = await toPem(await newCA("fake.kubevirt.io", { validityMs: 24 * 3600 * 1000 }));
  const config = newDummyValidatingWebhookConfiguration(
    ctx.kv.metadata?.namespace ?? "",
    newCrds,
    Buffer.from(fakeCA.certPem).toString("base64"),
  );
  injectOperatorMetadata(ctx.kv, (config.metadata ??= {}), ctx.target, true);
  ctx.expectations.validatingWebhooks.raiseExpectations(ctx.kvKey, 1, 0);
  try {
    await ctx.client.create(OPERATOR_RESOURCES.validatingWebhooks, config);
  } catch (err) {
    ctx.expectations.validatingWebhooks.lowerExpectations(ctx.kvKey, 1, 0);
    throw new Error(`unable to create validation webhook: ${errorMessage(err)}`);
  }
}

export async function deleteDummyWebhookValidators(
  ctx: Pick<ReconcileContext, "client" | "stores" | "expectations" | "kvKey">,
): Promise<void> {
  for (const webhook of ctx.stores.validatingWebhooks.list()) {
    if (webhook.metadata?.name?.startsWith(DUMMY_WEBHOOK_PREFIX)) {
      await deleteIfPresent(ctx, "validatingWebhooks", keyOf(webhook));
    }
  }
}

/** API first, then (once it serves) controllers and handlers; false while waiting. */
async function createOrRollBackSystem(
  ctx: ReconcileContext,
  strategy: InstallStrategy,
  apiRolledOver: boolean,
): Promise<boolean> {
  for (const deployment of strategy.apiDeployments) await syncDeployment(ctx, deployment);
  if (!apiRolledOver) return false;
  for (const deployment of strategy.controllerDeployments) await syncDeployment(ctx, deployment);
  for (const daemonSet of strategy.daemonSets) await syncDaemonSet(ctx, daemonSet);
  return true;
}

/** Names of the strategy's objects per kind: what is not among them is left over from another install. */
function strategyKeys(strategy: InstallStrategy): Partial<Record<OperatorResource, Set<string>>> {
  const keys = (objects: readonly KubeObject[]) => new Set(objects.map((o) => keyOf(o)));
  return {
    validatingWebhooks: keys(strategy.validatingWebhookConfigurations),
    mutatingWebhooks: keys(strategy.mutatingWebhookConfigurations),
    apiServices: keys(strategy.apiServices),
    secrets: keys(strategy.certificateSecrets),
    configMaps: keys(strategy.configMaps),
    crds: keys(strategy.crds),
    daemonSets: keys(strategy.daemonSets),
    deployments: keys([...strategy.apiDeployments, ...strategy.controllerDeployments]),
    services: keys(strategy.services),
    clusterRoleBindings: keys(strategy.clusterRoleBindings),
    clusterRoles: keys(strategy.clusterRoles),
    roleBindings: keys(strategy.roleBindings),
    roles: keys(strategy.roles),
    serviceAccounts: keys(strategy.serviceAccounts),
  };
}

/** Webhooks first: an outdated one could block deleting the rest. */
async function deleteObjectsNotInInstallStrategy(
  ctx: ReconcileContext,
  strategy: InstallStrategy,
): Promise<void> {
  for (const [resource, wanted] of Object.entries(strategyKeys(strategy)) as Array<
    [OperatorResource, Set<string>]
  >) {
    for (const obj of ctx.stores[resource].list()) {
      const key = keyOf(obj);
      if (wanted.has(key) || obj.metadata?.deletionTimestamp) continue;
      if (resource === "validatingWebhooks" && obj.metadata?.name?.startsWith(DUMMY_WEBHOOK_PREFIX)) continue;
      await deleteIfPresent(ctx, resource, key);
    }
  }
}

export async function reconcileInstall(ctx: ReconcileContext, target: InstallStrategy): Promise<boolean> {
  const strategy = customizeInstallStrategy(target, ctx.kv.spec.customizeComponents);
  const status = ctx.kv.status ?? {};
  const apiRolledOver = deploymentsReady(ctx, strategy.apiDeployments);
  const allRolledOver =
    apiRolledOver &&
    deploymentsReady(ctx, strategy.controllerDeployments) &&
    daemonSetsReady(ctx, strategy.daemonSets);
  // Once this version was fully rolled out, a pod restarting later does not mean a new rollout.
  const infrastructureRolledOver =
    allRolledOver ||
    (status.targetKubeVirtVersion === status.observedKubeVirtVersion &&
      status.targetKubeVirtRegistry === status.observedKubeVirtRegistry);

  if (!apiRolledOver) await createDummyWebhookValidator(ctx, strategy);
  else await deleteDummyWebhookValidators(ctx);

  for (const crd of strategy.crds) await createOrPatch(ctx, crdRules, crd);
  await createOrUpdateRbac(ctx, strategy);
  if (await createOrUpdateServices(ctx, strategy)) return false;
  await createOrUpdateComponentsWithCertificates(ctx, strategy);
  if (!(await createOrRollBackSystem(ctx, strategy, apiRolledOver))) return false;
  if (!infrastructureRolledOver) return false;
  await deleteObjectsNotInInstallStrategy(ctx, strategy);
  await deleteInstancetypesNotInInstallStrategy(ctx, strategy);
  await syncCommonInstancetypes(ctx, strategy);
  return true;
}

/** Whether every installed workload is ready (upstream's KubeVirtController.isReady). */
export function isReady(ctx: ReadContext): boolean {
  return (
    deploymentsReady(ctx, ctx.stores.deployments.list()) && daemonSetsReady(ctx, ctx.stores.daemonSets.list())
  );
}
