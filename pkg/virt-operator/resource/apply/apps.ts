// Deployments, their PodDisruptionBudgets and DaemonSets (upstream's apply/apps.go). Pod templates carry the
// install annotations (without the CR generation, so editing the CR does not roll every pod), and the
// CR's infra/workloads placement. Upstream rolls a changed virt-handler out canary-first; this port patches
// the DaemonSet directly and leaves the rollout to its RollingUpdate strategy.
import { NODE_SCHEDULABLE_LABEL } from "../../util/labels.js";
import { WATCHED_RESOURCES } from "../../resources.js";
import type { DaemonSet, Deployment } from "../generate/components/k8s-types.js";
import { newPodDisruptionBudgetForDeployment } from "../generate/components/deployments.js";
import { VIRT_API_NAME, VIRT_HANDLER_NAME } from "../generate/components/names.js";
import { DefaultPlacement, injectPlacementMetadata } from "../placement/placement.js";
import { createOrPatch, deleteIfPresent } from "./apply.js";
import type { ReconcileContext } from "./context.js";
import { daemonSetRules, deploymentRules, podDisruptionBudgetRules } from "./kinds.js";
import { injectOperatorMetadata } from "./metadata.js";
import { replicasAlreadyPatched } from "./patches.js";

/** One virt-api per node for single-node clusters, else one per ten schedulable nodes, at least two. */
export function desiredApiReplicas(schedulableNodes: number): number {
  if (schedulableNodes === 1) return 1;
  return Math.max(2, Math.floor(schedulableNodes / 10));
}

async function replicasFor(ctx: ReconcileContext, deployment: Deployment): Promise<number | undefined> {
  const infraReplicas = ctx.kv.spec.infra?.replicas;
  if (infraReplicas !== undefined) {
    ctx.logger.warn(
      { deployment: deployment.metadata?.name },
      "applying custom number of infra replica. this is an advanced feature that prevents auto-scaling for core kubevirt components. Please use with caution!",
    );
    return infraReplicas;
  }
  const name = deployment.metadata?.name ?? "";
  if (name !== VIRT_API_NAME || replicasAlreadyPatched(ctx.kv.spec.customizeComponents?.patches, name)) {
    return deployment.spec.replicas;
  }
  try {
    const nodes = await ctx.client.list(WATCHED_RESOURCES.nodes, "", {
      labelSelector: `${NODE_SCHEDULABLE_LABEL}=true`,
    });
    return desiredApiReplicas(nodes.length);
  } catch (err) {
    ctx.logger.warn({ err }, "failed to get number of nodes to determine virt-api replicas");
    return deployment.spec.replicas;
  }
}

export async function syncDeployment(ctx: ReconcileContext, required: Deployment): Promise<Deployment> {
  const deployment = structuredClone(required);
  const template = deployment.spec.template;
  template.metadata ??= {};
  injectOperatorMetadata(ctx.kv, template.metadata, ctx.target, false);
  if (template.spec) {
    injectPlacementMetadata(
      ctx.kv.spec.infra,
      template.spec,
      DefaultPlacement.RequireControlPlanePreferNonWorker,
    );
  }
  deployment.spec.replicas = await replicasFor(ctx, deployment);
  const { object } = await createOrPatch(ctx, deploymentRules, deployment);
  await syncPodDisruptionBudget(ctx, deployment);
  return object;
}

/** A PDB keeping all but one replica; none (and any old one deleted) when there is a single replica. */
async function syncPodDisruptionBudget(ctx: ReconcileContext, deployment: Deployment): Promise<void> {
  const pdb = newPodDisruptionBudgetForDeployment(deployment);
  if (pdb.spec.minAvailable === 0) {
    await deleteIfPresent(ctx, "podDisruptionBudgets", `${pdb.metadata?.namespace}/${pdb.metadata?.name}`);
    return;
  }
  await createOrPatch(ctx, podDisruptionBudgetRules, pdb);
}

export async function syncDaemonSet(ctx: ReconcileContext, required: DaemonSet): Promise<DaemonSet> {
  const daemonSet = structuredClone(required);
  const template = daemonSet.spec.template;
  template.metadata ??= {};
  injectOperatorMetadata(ctx.kv, template.metadata, ctx.target, false);
  if (template.spec) injectPlacementMetadata(ctx.kv.spec.workloads, template.spec, DefaultPlacement.AnyNode);
  const perNode = ctx.kv.spec.configuration?.virtualMachineInstancesPerNode;
  const container = template.spec?.containers[0];
  if (daemonSet.metadata?.name === VIRT_HANDLER_NAME && perNode !== undefined && container) {
    container.command = [...(container.command ?? []), "--max-devices", String(perNode)];
  }
  return (await createOrPatch(ctx, daemonSetRules, daemonSet)).object;
}
