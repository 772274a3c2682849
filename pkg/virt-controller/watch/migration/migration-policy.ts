// MigrationPolicies (upstream watch/migration/migrationpolicy.go and the api's GetMigrationConfByPolicy):
// the policy whose selectors match the VMI's labels and its namespace's labels with the most labels wins,
// the VMI's labels break a tie, and then the lexicographically first name; its fields override the
// cluster's migration configuration, which the handoff writes into the VMI's migration state.
import type { MigrationConfiguration } from "../../../api/generated/v1.js";
import type { StoredMigrationPolicy } from "./vmim.js";

interface MatchScore {
  vmiLabels: number;
  namespaceLabels: number;
}

const total = (score: MatchScore): number => score.vmiLabels + score.namespaceLabels;

function greaterThan(score: MatchScore, other: MatchScore): boolean {
  if (total(score) === total(other)) return score.vmiLabels > other.vmiLabels;
  return total(score) > total(other);
}

const equals = (score: MatchScore, other: MatchScore): boolean =>
  score.vmiLabels === other.vmiLabels && score.namespaceLabels === other.namespaceLabels;

type Labels = Record<string, string> | undefined;

/** How many of the selector's labels `labels` carries, or undefined when one is missing or differs. */
function countMatching(selector: Record<string, string>, labels: Record<string, string>): number | undefined {
  let count = 0;
  for (const [key, value] of Object.entries(selector)) {
    if (labels[key] !== value) return undefined;
    count++;
  }
  return count;
}

/**
 * Whether the policy matches, and by how many labels. As upstream, each selector is only consulted when
 * the VMI has labels at all (the namespace selector too), and a policy without selectors never matches.
 */
export function countMatchingLabels(
  policy: StoredMigrationPolicy,
  vmiLabels: Labels,
  namespaceLabels: Labels,
): MatchScore | undefined {
  const selectors = policy.spec.selectors as StoredMigrationPolicy["spec"]["selectors"] | undefined;
  if (!selectors) return undefined;
  const score: MatchScore = { vmiLabels: 0, namespaceLabels: 0 };
  if (selectors.virtualMachineInstanceSelector && vmiLabels) {
    const count = countMatching(selectors.virtualMachineInstanceSelector, vmiLabels);
    if (count === undefined) return undefined;
    score.vmiLabels = count;
  }
  if (selectors.namespaceSelector && vmiLabels) {
    const count = countMatching(selectors.namespaceSelector, namespaceLabels ?? {});
    if (count === undefined) return undefined;
    score.namespaceLabels = count;
  }
  return score;
}

/** The policy applying to a VMI with these labels in a namespace with these labels, if any. */
export function matchPolicy(
  policies: readonly StoredMigrationPolicy[],
  vmiLabels: Labels,
  namespaceLabels: Labels,
): StoredMigrationPolicy | undefined {
  let best: MatchScore = { vmiLabels: 0, namespaceLabels: 0 };
  let matching: StoredMigrationPolicy[] = [];
  for (const policy of policies) {
    const score = countMatchingLabels(policy, vmiLabels, namespaceLabels);
    if (!score) continue;
    if (greaterThan(score, best)) {
      best = score;
      matching = [policy];
    } else if (equals(score, best)) {
      matching.push(policy);
    }
  }
  // Equally detailed policies: the first by name, arbitrary but deterministic.
  return matching.reduce<StoredMigrationPolicy | undefined>(
    (first, policy) =>
      !first || (policy.metadata?.name ?? "") < (first.metadata?.name ?? "") ? policy : first,
    undefined,
  );
}

/**
 * The cluster configuration overridden by the policy's fields; `changed` is false when the policy sets
 * none of them. allowWorkloadDisruption follows allowPostCopy unless the policy sets it.
 */
export function migrationConfByPolicy(
  policy: StoredMigrationPolicy,
  cluster: MigrationConfiguration,
): { configuration: MigrationConfiguration; changed: boolean } {
  const spec = policy.spec;
  const configuration = structuredClone(cluster);
  let changed = false;
  if (spec.allowAutoConverge !== undefined) {
    changed = true;
    configuration.allowAutoConverge = spec.allowAutoConverge;
  }
  if (spec.bandwidthPerMigration !== undefined) {
    changed = true;
    configuration.bandwidthPerMigration = spec.bandwidthPerMigration;
  }
  if (spec.completionTimeoutPerGiB !== undefined) {
    changed = true;
    configuration.completionTimeoutPerGiB = spec.completionTimeoutPerGiB;
  }
  if (spec.allowPostCopy !== undefined) {
    changed = true;
    configuration.allowPostCopy = spec.allowPostCopy;
  }
  if (spec.allowWorkloadDisruption !== undefined) {
    changed = true;
    configuration.allowWorkloadDisruption = spec.allowWorkloadDisruption;
  } else if (spec.allowPostCopy !== undefined) {
    configuration.allowWorkloadDisruption = spec.allowPostCopy;
  }
  return { configuration, changed };
}

/** Upstream's GetMigrationConfiguration: allowWorkloadDisruption follows allowPostCopy unless set. */
export function clusterMigrationConfiguration(
  configured: MigrationConfiguration | undefined,
): MigrationConfiguration {
  const configuration = structuredClone(configured ?? {});
  configuration.allowWorkloadDisruption ??= configuration.allowPostCopy ?? false;
  return configuration;
}

export interface EffectiveMigrationConfiguration {
  configuration: MigrationConfiguration;
  /** The policy that changed the configuration, if one did. */
  policyName?: string;
}

/** What the VMI's migration state carries: the cluster's configuration, or a matching policy's. */
export function effectiveMigrationConfiguration(
  cluster: MigrationConfiguration,
  policies: readonly StoredMigrationPolicy[],
  vmiLabels: Labels,
  namespaceLabels: Labels,
): EffectiveMigrationConfiguration {
  const policy = matchPolicy(policies, vmiLabels, namespaceLabels);
  if (!policy) return { configuration: structuredClone(cluster) };
  const { configuration, changed } = migrationConfByPolicy(policy, cluster);
  if (!changed) return { configuration: structuredClone(cluster) };
  return { configuration, policyName: policy.metadata?.name ?? "" };
}
