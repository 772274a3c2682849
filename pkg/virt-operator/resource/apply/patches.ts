// The KubeVirt CR's spec.customizeComponents (upstream's apply/patches.go): its patches, and patches built
// from its flags, are applied to the install strategy's objects before they are reconciled, and every
// object of the patched kinds carries a hash of the customizations, so that changing them re-applies them.
import { createHash } from "node:crypto";
import type { CustomizeComponents, CustomizeComponentsPatch, Flags } from "../../../api/generated/v1.js";
import { applyJsonPatch, decodeJsonPatch } from "../../../apimachinery/patch/json-patch.js";
import { applyMergePatch } from "../../../apimachinery/patch/merge-patch.js";
import { applyStrategicMergePatch } from "../../../apimachinery/patch/strategic-merge-patch.js";
import type { KubeObject } from "../../../controller/object.js";
import { goMarshal } from "../../../util/go-json.js";
import { KUBEVIRT_CUSTOMIZE_COMPONENT_ANNOTATION_HASH } from "../../util/labels.js";
import { VIRT_API_NAME, VIRT_CONTROLLER_NAME, VIRT_HANDLER_NAME } from "../generate/components/names.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import { strategicMergeKeysOf } from "./strategic-merge-keys.js";

export const JSON_PATCH_TYPE = "json";
export const MERGE_PATCH_TYPE = "merge";
export const STRATEGIC_MERGE_PATCH_TYPE = "strategic";

export interface Customizer {
  /** The CR's patches, then one per component that has flags. */
  readonly patches: readonly CustomizeComponentsPatch[];
  readonly hash: string;
}

/**
 * Upstream sorts the CR's patches by length while hashing them, and that sort reorders the very list it
 * then applies: patches apply shortest first (ties in the CR's order). Kept, so that patches touching the
 * same field end the same way.
 */
function byPatchLength(patches: readonly CustomizeComponentsPatch[]): CustomizeComponentsPatch[] {
  const length = (p: CustomizeComponentsPatch) => Buffer.byteLength(p.patch ?? "");
  return [...patches].sort((a, b) => length(a) - length(b));
}

export function newCustomizer(customizations: CustomizeComponents = {}): Customizer {
  const patches = byPatchLength(customizations.patches ?? []);
  return {
    patches: [...patches, ...flagsToPatches(customizations.flags)],
    hash: customizationsHash(customizations),
  };
}

const FLAG_TARGETS = [
  { component: "api", name: VIRT_API_NAME, resourceType: "Deployment" },
  { component: "controller", name: VIRT_CONTROLLER_NAME, resourceType: "Deployment" },
  { component: "handler", name: VIRT_HANDLER_NAME, resourceType: "DaemonSet" },
] as const;

/**
 * One strategic patch per component with flags, setting its container's command to the binary followed
 * by the flags. The container's args (the operator's own flags) stay and come after them on the command
 * line; a component reading a flag twice keeps the last value, as Go's pflag does.
 */
export function flagsToPatches(flags: Flags | undefined): CustomizeComponentsPatch[] {
  return FLAG_TARGETS.flatMap(({ component, name, resourceType }) => {
    const values = flags?.[component] ?? {};
    if (Object.keys(values).length === 0) return [];
    const command = [name, ...flagsToArray(values)];
    const patch = { spec: { template: { spec: { containers: [{ name, command }] } } } };
    return [
      { resourceName: name, resourceType, patch: JSON.stringify(patch), type: STRATEGIC_MERGE_PATCH_TYPE },
    ];
  });
}

/**
 * Flags in name order: `--name value`, `--name` for an empty value, `--name=true|false` for booleans.
 * Names and values are lowercased, as upstream does.
 */
export function flagsToArray(flags: Readonly<Record<string, string>>): string[] {
  return Object.keys(flags)
    .sort()
    .flatMap((flag) => {
      const name = flag.toLowerCase();
      const value = (flags[flag] ?? "").toLowerCase();
      if (value === "") return [`--${name}`];
      if (value === "true" || value === "false") return [`--${name}=${value}`];
      return [`--${name}`, value];
    });
}

/** Go's json.Marshal of v1.CustomizeComponents: its field order, omitempty, HTML-safe escapes. */
function goJson(customizations: CustomizeComponents): string {
  const patches = byPatchLength(customizations.patches ?? []).map((p) => ({
    resourceName: p.resourceName ?? "",
    resourceType: p.resourceType ?? "",
    patch: p.patch ?? "",
    type: p.type ?? "",
  }));
  const sortedMap = (values: Record<string, string> | undefined) =>
    values && Object.keys(values).length > 0
      ? Object.fromEntries(
          Object.keys(values)
            .sort()
            .map((k) => [k, values[k]]),
        )
      : undefined;
  const flags = customizations.flags && {
    api: sortedMap(customizations.flags.api),
    controller: sortedMap(customizations.flags.controller),
    handler: sortedMap(customizations.flags.handler),
  };
  return goMarshal({ patches: patches.length > 0 ? patches : undefined, flags });
}

/** Upstream's identifier of a set of customizations (SHA-1 names them, it protects nothing). */
export function customizationsHash(customizations: CustomizeComponents): string {
  return createHash("sha1").update(goJson(customizations)).digest("hex");
}

/** "*" matches anything; otherwise names and kinds match case-insensitively. */
function valueMatchesKey(value: string, key: string): boolean {
  return value === "*" || value.toLowerCase() === key.toLowerCase();
}

export function patchesForResource(
  customizer: Customizer,
  resourceType: string,
  name: string,
): CustomizeComponentsPatch[] {
  return customizer.patches.filter(
    (p) => valueMatchesKey(p.resourceType, resourceType) && valueMatchesKey(p.resourceName, name),
  );
}

export function applyPatch<T extends KubeObject>(obj: T, patch: CustomizeComponentsPatch): T {
  switch (patch.type) {
    case JSON_PATCH_TYPE:
      return applyJsonPatch(obj, decodeJsonPatch(patch.patch));
    case MERGE_PATCH_TYPE:
      return applyMergePatch(obj, JSON.parse(patch.patch)) as T;
    case STRATEGIC_MERGE_PATCH_TYPE:
      return applyStrategicMergePatch(obj, JSON.parse(patch.patch), strategicMergeKeysOf(obj.kind)) as T;
    default:
      throw new Error("PatchType is not supported");
  }
}

/** Patched copies of the objects, each annotated with the customizations' hash. */
export function applyCustomizations<T extends KubeObject>(
  customizer: Customizer,
  objects: readonly T[],
): T[] {
  const annotation: CustomizeComponentsPatch = {
    resourceName: "",
    resourceType: "",
    patch: JSON.stringify({
      metadata: { annotations: { [KUBEVIRT_CUSTOMIZE_COMPONENT_ANNOTATION_HASH]: customizer.hash } },
    }),
    type: STRATEGIC_MERGE_PATCH_TYPE,
  };
  return objects.map((obj) =>
    [...patchesForResource(customizer, obj.kind ?? "", obj.metadata?.name ?? ""), annotation].reduce(
      (patched, patch) => applyPatch(patched, patch),
      obj,
    ),
  );
}

/** The strategy with the kinds upstream customizes patched; the rest (CRDs, RBAC...) as they are. */
export function customizeInstallStrategy(
  strategy: InstallStrategy,
  customizations: CustomizeComponents | undefined,
): InstallStrategy {
  const customizer = newCustomizer(customizations);
  const customize = <T extends KubeObject>(objects: readonly T[]) => applyCustomizations(customizer, objects);
  return {
    ...strategy,
    apiDeployments: customize(strategy.apiDeployments),
    controllerDeployments: customize(strategy.controllerDeployments),
    services: customize(strategy.services),
    daemonSets: customize(strategy.daemonSets),
    validatingWebhookConfigurations: customize(strategy.validatingWebhookConfigurations),
    mutatingWebhookConfigurations: customize(strategy.mutatingWebhookConfigurations),
    apiServices: customize(strategy.apiServices),
    certificateSecrets: customize(strategy.certificateSecrets),
  };
}

/** Whether one of the CR's JSON patches replaces the Deployment's /spec/replicas. */
export function replicasAlreadyPatched(
  patches: readonly CustomizeComponentsPatch[] | undefined,
  deploymentName: string,
): boolean {
  return (patches ?? []).some((patch) => {
    if (patch.resourceName !== deploymentName) return false;
    try {
      return decodeJsonPatch(patch.patch).some((op) => op.op === "replace" && op.path === "/spec/replicas");
    } catch {
      // Merge and strategic patches do not decode as JSON patches: upstream skips them too.
      return false;
    }
  });
}
