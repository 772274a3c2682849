// The install metadata on every object the operator writes (upstream's injectOperatorMetadata), and the
// "is the cached object already as desired" checks on labels, annotations and tracked generations.
import type { GenerationStatus } from "../../../api/generated/v1.js";
import type { KubeVirtCR as KubeVirt } from "../../cluster.js";
import type { GroupVersionResource } from "../../../controller/gvr.js";
import type { KubeObject, ObjectMeta } from "../../../controller/object.js";
import type { JsonPatchOp } from "../../cluster.js";
import {
  APP_COMPONENT,
  APP_COMPONENT_LABEL,
  APP_PART_OF_LABEL,
  APP_VERSION_LABEL,
  INSTALL_STRATEGY_IDENTIFIER_ANNOTATION,
  INSTALL_STRATEGY_REGISTRY_ANNOTATION,
  INSTALL_STRATEGY_VERSION_ANNOTATION,
  KUBEVIRT_GENERATION_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_OPERATOR,
  isManagedByOperator,
  isValidLabelValue,
} from "../../util/labels.js";

/** The version, registry and install-strategy ID the KubeVirt CR targets. */
export interface InstallTarget {
  version: string;
  registry: string;
  id: string;
}

export function targetOf(kv: KubeVirt): InstallTarget {
  return {
    version: kv.status?.targetKubeVirtVersion ?? "",
    registry: kv.status?.targetKubeVirtRegistry ?? "",
    id: kv.status?.targetDeploymentID ?? "",
  };
}

export function appComponentOf(kv: KubeVirt): string {
  const component = kv.spec.productComponent ?? "";
  return component !== "" && isValidLabelValue(component) ? component : APP_COMPONENT;
}

/**
 * Labels the object as the operator's and annotates it with the install it belongs to; `withGeneration`
 * also records the KubeVirt CR's generation (left off pod templates, so CR edits do not roll pods).
 */
export function injectOperatorMetadata(
  kv: KubeVirt,
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> },
  target: InstallTarget,
  withGeneration: boolean,
): void {
  const labels = { ...meta.labels };
  const productVersion = kv.spec.productVersion ?? "";
  if (productVersion !== "" && isValidLabelValue(productVersion)) labels[APP_VERSION_LABEL] = productVersion;
  const productName = kv.spec.productName ?? "";
  if (productName !== "" && isValidLabelValue(productName)) labels[APP_PART_OF_LABEL] = productName;
  labels[APP_COMPONENT_LABEL] = appComponentOf(kv);
  labels[MANAGED_BY_LABEL] = MANAGED_BY_OPERATOR;
  meta.labels = labels;
  const annotations = { ...meta.annotations };
  annotations[INSTALL_STRATEGY_VERSION_ANNOTATION] = target.version;
  annotations[INSTALL_STRATEGY_REGISTRY_ANNOTATION] = target.registry;
  annotations[INSTALL_STRATEGY_IDENTIFIER_ANNOTATION] = target.id;
  if (withGeneration) annotations[KUBEVIRT_GENERATION_ANNOTATION] = String(kv.metadata?.generation ?? 0);
  meta.annotations = annotations;
}

/** Whether an object was written for this install (version, registry, ID and CR generation). */
export function objectMatchesVersion(
  meta: ObjectMeta | undefined,
  target: InstallTarget,
  generation: number,
): boolean {
  const annotations = meta?.annotations;
  if (!annotations) return false;
  const recordedGeneration = annotations[KUBEVIRT_GENERATION_ANNOTATION];
  if (recordedGeneration !== undefined && recordedGeneration !== String(generation)) return false;
  return (
    annotations[INSTALL_STRATEGY_VERSION_ANNOTATION] === target.version &&
    annotations[INSTALL_STRATEGY_REGISTRY_ANNOTATION] === target.registry &&
    annotations[INSTALL_STRATEGY_IDENTIFIER_ANNOTATION] === target.id &&
    isManagedByOperator(meta?.labels)
  );
}

function contains(
  have: Record<string, string> | undefined,
  want: Record<string, string> | undefined,
): boolean {
  return Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
}

/** Upstream's EnsureObjectMeta test: every desired label and annotation is already on the object. */
export function metadataUpToDate(existing: ObjectMeta | undefined, desired: ObjectMeta | undefined): boolean {
  return contains(existing?.labels, desired?.labels) && contains(existing?.annotations, desired?.annotations);
}

/** Replaces labels and annotations with the existing ones overlaid by the desired ones. */
export function metadataPatch(
  existing: ObjectMeta | undefined,
  desired: ObjectMeta | undefined,
): JsonPatchOp[] {
  return [
    { op: "add", path: "/metadata/labels", value: { ...existing?.labels, ...desired?.labels } },
    {
      op: "add",
      path: "/metadata/annotations",
      value: { ...existing?.annotations, ...desired?.annotations },
    },
  ];
}

/** Upstream's group names in status.generations ("apps", "apiextensions.k8s.io/v1", ...). */
function generationGroup(gvr: GroupVersionResource): string {
  return gvr.resource === "customresourcedefinitions" ? "apiextensions.k8s.io/v1" : gvr.group;
}

function sameTarget(g: GenerationStatus, gvr: GroupVersionResource, obj: KubeObject): boolean {
  return (
    g.group === generationGroup(gvr) &&
    g.resource === gvr.resource &&
    (g.namespace ?? "") === (obj.metadata?.namespace ?? "") &&
    g.name === obj.metadata?.name
  );
}

/** The generation the operator last wrote an object at, or -1. */
export function expectedGeneration(
  generations: readonly GenerationStatus[] | undefined,
  gvr: GroupVersionResource,
  obj: KubeObject,
): number {
  return generations?.find((g) => sameTarget(g, gvr, obj))?.lastGeneration ?? -1;
}

export function setGeneration(kv: KubeVirt, gvr: GroupVersionResource, written: KubeObject): void {
  const status = (kv.status ??= {});
  const entry: GenerationStatus = {
    group: generationGroup(gvr),
    resource: gvr.resource,
    namespace: written.metadata?.namespace ?? "",
    name: written.metadata?.name ?? "",
    lastGeneration: written.metadata?.generation ?? 0,
  };
  const generations = status.generations ?? [];
  const index = generations.findIndex((g) => sameTarget(g, gvr, written));
  if (index >= 0) generations[index] = { ...generations[index], ...entry };
  else generations.push(entry);
  status.generations = generations;
}
