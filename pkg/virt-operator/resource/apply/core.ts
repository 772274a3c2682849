// RBAC and Services (upstream's apply/core.go and rbac.go). A Service whose type or cluster IP must change
// is deleted and recreated on a later pass, since both are immutable.
import { keyOf } from "../../../controller/object.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import type { Service } from "../generate/components/k8s-types.js";
import { createOrPatch, deleteIfPresent } from "./apply.js";
import type { KindRules } from "./apply.js";
import { containsDesired } from "./compare.js";
import type { ReconcileContext } from "./context.js";
import {
  clusterRoleBindingRules,
  clusterRoleRules,
  roleBindingRules,
  roleRulesOf,
  serviceAccountRules,
} from "./kinds.js";

export async function createOrUpdateRbac(ctx: ReconcileContext, strategy: InstallStrategy): Promise<void> {
  for (const sa of strategy.serviceAccounts) await createOrPatch(ctx, serviceAccountRules, sa);
  for (const cr of strategy.clusterRoles) await createOrPatch(ctx, clusterRoleRules, cr);
  for (const crb of strategy.clusterRoleBindings) await createOrPatch(ctx, clusterRoleBindingRules, crb);
  for (const role of strategy.roles) await createOrPatch(ctx, roleRulesOf, role);
  for (const rb of strategy.roleBindings) await createOrPatch(ctx, roleBindingRules, rb);
}

const isClusterIP = (service: Service) => (service.spec.type ?? "ClusterIP") === "ClusterIP";

function immutableFieldChanged(desired: Service, cached: Service): boolean {
  const typeSame = isClusterIP(desired) && isClusterIP(cached);
  const clusterIPChanged =
    desired.spec.clusterIP !== undefined && desired.spec.clusterIP !== cached.spec.clusterIP;
  return !typeSame || clusterIPChanged;
}

/** The desired spec with what the server assigned kept, so comparing and patching leave it alone. */
function withServerAssigned(desired: Service, cached: Service): Service["spec"] {
  return {
    ...desired.spec,
    clusterIP: cached.spec.clusterIP,
    type: cached.spec.type,
    sessionAffinity: desired.spec.sessionAffinity ?? cached.spec.sessionAffinity,
  };
}

const serviceRules: KindRules<Service> = {
  resource: "services",
  upToDate: (existing, desired) => containsDesired(existing.spec, withServerAssigned(desired, existing)),
  patchOps: (desired, existing) => [
    { op: "replace", path: "/spec", value: withServerAssigned(desired, existing) },
  ],
  trackGeneration: false,
};

/** Returns true while a Service is being replaced: the caller stops and waits for the deletion. */
export async function createOrUpdateServices(
  ctx: ReconcileContext,
  strategy: InstallStrategy,
): Promise<boolean> {
  for (const service of strategy.services) {
    const cached = ctx.stores.services.get(keyOf(service)) as Service | undefined;
    if (cached && immutableFieldChanged(service, cached)) {
      await deleteIfPresent(ctx, "services", keyOf(service));
      return true;
    }
    await createOrPatch(ctx, serviceRules, service);
  }
  return false;
}
