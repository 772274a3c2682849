// Where infrastructure pods run: the KubeVirt CR's spec.infra / spec.workloads nodePlacement merged into a
// pod spec, and upstream's defaults when none is given (pkg/virt-operator/resource/placement).
import type {
  V1Affinity,
  V1NodeSelectorTerm,
  V1PodSpec,
  V1PreferredSchedulingTerm,
  V1Toleration,
} from "@kubernetes/client-node";
import type { ComponentConfig } from "../../../api/generated/v1.js";

export const enum DefaultPlacement {
  AnyNode,
  /** Control-plane nodes only, preferring ones that are not also workers (virt-api, virt-controller). */
  RequireControlPlanePreferNonWorker,
}

export const OS_LABEL = "kubernetes.io/os";

interface NodePlacement {
  nodeSelector?: Record<string, string>;
  affinity?: V1Affinity;
  tolerations?: V1Toleration[];
}

const exists = (key: string): V1NodeSelectorTerm => ({ matchExpressions: [{ key, operator: "Exists" }] });

function controlPlanePlacement(): NodePlacement {
  const preferNonWorker: V1PreferredSchedulingTerm = {
    weight: 100,
    preference: { matchExpressions: [{ key: "node-role.kubernetes.io/worker", operator: "DoesNotExist" }] },
  };
  return {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            exists("node-role.kubernetes.io/control-plane"),
            exists("node-role.kubernetes.io/master"),
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [preferNonWorker],
      },
    },
    tolerations: ["node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"].map((key) => ({
      key,
      operator: "Exists",
      effect: "NoSchedule",
    })),
  };
}

function defaultPlacement(option: DefaultPlacement): NodePlacement {
  return option === DefaultPlacement.RequireControlPlanePreferNonWorker ? controlPlanePlacement() : {};
}

/** Appends b's lists to a's, or takes b's when a has none: upstream merges term by term. */
function concat<T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined {
  if (!b || b.length === 0) return a;
  return [...(a ?? []), ...structuredClone(b)];
}

function mergeAffinity(pod: V1Affinity | undefined, extra: V1Affinity): V1Affinity {
  if (!pod) return structuredClone(extra);
  const out: V1Affinity = { ...pod };
  if (extra.nodeAffinity) {
    const node = out.nodeAffinity ? { ...out.nodeAffinity } : {};
    const extraRequired = extra.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    if (extraRequired) {
      node.requiredDuringSchedulingIgnoredDuringExecution = {
        nodeSelectorTerms:
          concat(
            node.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
            extraRequired.nodeSelectorTerms,
          ) ?? [],
      };
    }
    node.preferredDuringSchedulingIgnoredDuringExecution = concat(
      node.preferredDuringSchedulingIgnoredDuringExecution,
      extra.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution,
    );
    out.nodeAffinity = node;
  }
  for (const kind of ["podAffinity", "podAntiAffinity"] as const) {
    const add = extra[kind];
    if (!add) continue;
    const current = out[kind];
    out[kind] = {
      requiredDuringSchedulingIgnoredDuringExecution: concat(
        current?.requiredDuringSchedulingIgnoredDuringExecution,
        add.requiredDuringSchedulingIgnoredDuringExecution,
      ),
      preferredDuringSchedulingIgnoredDuringExecution: concat(
        current?.preferredDuringSchedulingIgnoredDuringExecution,
        add.preferredDuringSchedulingIgnoredDuringExecution,
      ),
    };
  }
  return out;
}

/**
 * Merges the component config's placement (or the default) into the pod spec: node selectors the pod
 * already sets win, affinity terms and tolerations are appended, and `kubernetes.io/os: linux` is added.
 */
export function injectPlacementMetadata(
  componentConfig: ComponentConfig | undefined,
  podSpec: V1PodSpec,
  option: DefaultPlacement,
): void {
  const placement: NodePlacement = componentConfig?.nodePlacement
    ? (structuredClone(componentConfig.nodePlacement) as NodePlacement)
    : defaultPlacement(option);
  const selector = { [OS_LABEL]: "linux", ...(placement.nodeSelector ?? {}) };
  podSpec.nodeSelector = { ...selector, ...(podSpec.nodeSelector ?? {}) };
  if (placement.affinity) podSpec.affinity = mergeAffinity(podSpec.affinity, placement.affinity);
  if (placement.tolerations && placement.tolerations.length > 0) {
    podSpec.tolerations = [...(podSpec.tolerations ?? []), ...placement.tolerations];
  }
}
