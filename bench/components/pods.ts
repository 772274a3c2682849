// KubeVirt's component pods as the benchmark reads them from kubectl's answers, with DESIGN.md's idle
// RSS target of each component.

export const COMPONENTS = ["virt-api", "virt-controller", "virt-handler", "virt-operator"] as const;
export type Component = (typeof COMPONENTS)[number];

/**
 * DESIGN.md "Targets": idle RSS of virt-api / virt-controller / virt-handler ≤ 80 / 64 / 48 MB (upstream
 * ≈ 140 / 63 / 20 MB); virt-operator has no line there, 80 as virt-api's. Compared in MiB, as
 * bench/launcher-overhead compares its target.
 */
export const TARGET_MIB: Record<Component, number> = {
  "virt-api": 80,
  "virt-controller": 64,
  "virt-handler": 48,
  "virt-operator": 80,
};
export const UPSTREAM_MB: Partial<Record<Component, number>> = {
  "virt-api": 140,
  "virt-controller": 63,
  "virt-handler": 20,
};

export interface ComponentPod {
  component: Component;
  name: string;
  uid: string;
  node: string;
  /** Holds the component's leader-election lease (virt-controller, virt-operator). */
  leader: boolean;
}

export interface Pod {
  metadata?: { name?: string; uid?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

export interface Lease {
  metadata?: { name?: string };
  spec?: { holderIdentity?: string };
}

const isComponent = (value: string | undefined): value is Component =>
  (COMPONENTS as readonly (string | undefined)[]).includes(value);

/** The running component pods (label kubevirt.io=<component>), by component then name. */
export function componentPods(pods: readonly Pod[], leases: readonly Lease[]): ComponentPod[] {
  const holders = new Set(leases.map((lease) => lease.spec?.holderIdentity).filter(Boolean));
  const found: ComponentPod[] = [];
  for (const pod of pods) {
    const component = pod.metadata?.labels?.["kubevirt.io"];
    const { name, uid } = pod.metadata ?? {};
    const node = pod.spec?.nodeName;
    if (!isComponent(component) || !name || !uid || !node) continue;
    if (pod.status?.phase !== "Running" || pod.metadata?.deletionTimestamp) continue;
    found.push({ component, name, uid, node, leader: holders.has(name) });
  }
  const rank = (c: Component): number => COMPONENTS.indexOf(c);
  return found.sort((a, b) => rank(a.component) - rank(b.component) || a.name.localeCompare(b.name));
}

/** The components with no running pod. */
export function missingComponents(pods: readonly ComponentPod[]): Component[] {
  return COMPONENTS.filter((component) => !pods.some((pod) => pod.component === component));
}
