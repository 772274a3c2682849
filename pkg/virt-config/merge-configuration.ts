// Upstream builds the effective configuration by marshalling the KubeVirt CR's spec.configuration
// (every field `omitempty`) and unmarshalling it over the defaults. This reproduces that overlay on
// plain JSON: objects merge key by key, lists replace, and values Go would have dropped on the way
// (empty strings, empty lists, nulls, and zero for the plain — non-pointer — integers) leave the
// default in place. Pointer integers and booleans (`memBalloonStatsPeriod: 0`, `permit...: false`) do count.
import type { KubeVirtConfiguration } from "../api/generated/v1.js";

type JsonObject = Record<string, unknown>;

/** Plain Go integers with a non-zero default: writing 0 there changes nothing upstream. */
const ZERO_MEANS_UNSET = new Set([
  "developerConfiguration.memoryOvercommit",
  "developerConfiguration.pvcTolerateLessSpaceUpToPercent",
  "developerConfiguration.minimumReservePVCBytes",
  "developerConfiguration.cpuAllocationRatio",
  "developerConfiguration.logVerbosity.virtAPI",
  "developerConfiguration.logVerbosity.virtController",
  "developerConfiguration.logVerbosity.virtHandler",
  "developerConfiguration.logVerbosity.virtLauncher",
  "developerConfiguration.logVerbosity.virtOperator",
  "developerConfiguration.logVerbosity.virtSynchronizationController",
  "liveUpdateConfiguration.maxHotplugRatio",
]);

/** Go maps (not structs) that can sit over a default: their entries are taken as they are. */
const MAP_FIELDS = new Set([
  "autoCPULimitNamespaceLabelSelector.matchLabels",
  "changedBlockTrackingLabelSelectors.namespaceLabelSelector.matchLabels",
  "changedBlockTrackingLabelSelectors.virtualMachineLabelSelector.matchLabels",
  "developerConfiguration.logVerbosity.nodeVerbosity",
  "developerConfiguration.nodeSelectors",
  "ksmConfiguration.nodeLabelSelector.matchLabels",
  "network.binding",
  "obsoleteCPUModels",
]);

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isDroppedByMarshal(value: unknown, path: string): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value) && value.length === 0) return true;
  return value === 0 && ZERO_MEANS_UNSET.has(path);
}

function overlay(base: JsonObject, override: JsonObject, prefix: string): JsonObject {
  const result: JsonObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (isDroppedByMarshal(value, path)) continue;
    const current = result[key];
    if (isPlainObject(value) && MAP_FIELDS.has(path)) {
      result[key] = { ...(isPlainObject(current) ? current : {}), ...structuredClone(value) };
    } else if (isPlainObject(value)) {
      result[key] = overlay(isPlainObject(current) ? current : {}, value, path);
    } else {
      result[key] = structuredClone(value);
    }
  }
  return result;
}

/** The configuration upstream derives from `defaults` and a KubeVirt CR's `spec.configuration`. */
export function overlayConfiguration(
  defaults: KubeVirtConfiguration,
  override: KubeVirtConfiguration | undefined,
): KubeVirtConfiguration {
  const base = structuredClone(defaults) as JsonObject;
  if (override === undefined) return base as KubeVirtConfiguration;
  return overlay(base, override as JsonObject, "") as KubeVirtConfiguration;
}
