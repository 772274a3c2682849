// VirtualMachineInstancePresets (upstream mutators/preset.go, deprecated but served): on creation, every
// preset of the VMI's namespace whose selector matches the VMI's labels fills in the domain settings
// the VMI leaves unset, and the VMI is annotated with each preset that took effect.
import type {
  DomainSpec,
  VirtualMachineInstance,
  VirtualMachineInstancePreset,
} from "../../../../api/generated/v1.js";
import type { Quantity } from "../../../../api/generated/k8s.js";
import { Selector } from "../../../../controller/label-selector.js";
import { compareQuantities } from "../../../../util/quantity-math.js";
import {
  ClockOffsetType,
  CPUType,
  FeaturesType,
  FirmwareType,
  goQuantitiesIdentical,
  goQuantityText,
  goText,
  IOThreadsPolicyType,
  TimerType,
  WatchdogType,
} from "./preset-go-text.js";
import { semanticallyEqual } from "../../../../apimachinery/semantic-equal.js";

export const PresetExclusionAnnotation = "virtualmachineinstancepresets.admission.kubevirt.io/exclude";
export const PresetAnnotationPrefix = "virtualmachinepreset.kubevirt.io/";
/** The value of each preset annotation: the API version that applied it. */
export const PresetAnnotationValue = "kubevirt.io/v1";

/** Reads the presets of a namespace (upstream: the informer's cache). */
export type PresetLister = (namespace: string) => Promise<readonly VirtualMachineInstancePreset[]>;

export type PresetResult = { ok: true } | { ok: false; message: string };

/** utilerrors.NewAggregate(...).Error(): duplicates dropped, brackets around more than one message. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? "") : `[${unique.join(", ")}]`;
}

function requestsEqual(a: Record<string, Quantity>, b: Record<string, Quantity>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => key in a && key in b && compareQuantities(a[key], b[key]) === 0);
}

type PrintedType = Parameters<typeof goText>[0];

/** A setting that differs, worded as upstream's `%v != %v`. */
const differ = (field: string, type: PrintedType, preset: unknown, vmi: unknown): string | undefined =>
  semanticallyEqual(preset, vmi) ? undefined : `${field}: ${goText(type, preset)} != ${goText(type, vmi)}`;

/** Upstream's checkMergeConflicts: each setting both specs carry with different values. */
function mergeConflicts(preset: DomainSpec, vmi: DomainSpec): string[] {
  const found: (string | undefined)[] = [];
  const vmiRequests = vmi.resources?.requests ?? {};
  for (const [key, presetRequest] of Object.entries(preset.resources?.requests ?? {})) {
    const vmiRequest = vmiRequests[key];
    // Upstream compares the Quantity structs with !=, so 1Gi and 1024Mi differ (one keeps its text).
    if (vmiRequest !== undefined && !goQuantitiesIdentical(String(presetRequest), String(vmiRequest))) {
      const shown = (request: Quantity) => goQuantityText(String(request));
      found.push(`spec.resources.requests[${key}]: ${shown(presetRequest)} != ${shown(vmiRequest)}`);
    }
  }
  if (preset.cpu && vmi.cpu) found.push(differ("spec.cpu", CPUType, preset.cpu, vmi.cpu));
  if (preset.firmware && vmi.firmware) {
    found.push(differ("spec.firmware", FirmwareType, preset.firmware, vmi.firmware));
  }
  if (preset.clock && vmi.clock) {
    const offset = (clock: NonNullable<DomainSpec["clock"]>) => ({
      utc: clock.utc,
      timezone: clock.timezone,
    });
    found.push(differ("spec.clock.clockoffset", ClockOffsetType, offset(preset.clock), offset(vmi.clock)));
    if (preset.clock.timer && vmi.clock.timer) {
      found.push(differ("spec.clock.timer", TimerType, preset.clock.timer, vmi.clock.timer));
    }
  }
  if (preset.features && vmi.features) {
    found.push(differ("spec.features", FeaturesType, preset.features, vmi.features));
  }
  const presetWatchdog = preset.devices?.watchdog;
  const vmiWatchdog = vmi.devices?.watchdog;
  if (presetWatchdog && vmiWatchdog)
    found.push(differ("spec.devices.watchdog", WatchdogType, presetWatchdog, vmiWatchdog));
  if (preset.ioThreadsPolicy !== undefined && vmi.ioThreadsPolicy !== undefined) {
    found.push(
      differ("spec.ioThreadsPolicy", IOThreadsPolicyType, preset.ioThreadsPolicy, vmi.ioThreadsPolicy),
    );
  }
  return found.filter((message): message is string => message !== undefined);
}

/**
 * Upstream's mergeDomainSpec: a setting is copied only when the VMI has none; the preset counts as
 * applied when any of its settings ends up equal on the VMI.
 */
function mergeDomainSpec(preset: DomainSpec, vmi: DomainSpec): { applied: boolean; conflicts: string[] } {
  const conflicts = mergeConflicts(preset, vmi);
  let applied = false;
  const copy = <T>(value: T): T => structuredClone(value);
  const presetRequests = preset.resources?.requests ?? {};
  if (Object.keys(presetRequests).length > 0) {
    const resources = (vmi.resources ??= {});
    resources.requests ??= copy(presetRequests);
    if (requestsEqual(resources.requests, presetRequests)) applied = true;
  }
  if (preset.cpu) {
    vmi.cpu ??= copy(preset.cpu);
    if (semanticallyEqual(vmi.cpu, preset.cpu)) applied = true;
  }
  if (preset.firmware) {
    vmi.firmware ??= copy(preset.firmware);
    if (semanticallyEqual(vmi.firmware, preset.firmware)) applied = true;
  }
  if (preset.clock) {
    // A new clock takes the preset's offset only; its timer is merged on its own below.
    vmi.clock ??= copy({ utc: preset.clock.utc, timezone: preset.clock.timezone });
    if (semanticallyEqual(vmi.clock, preset.clock)) applied = true;
    if (preset.clock.timer) {
      vmi.clock.timer ??= copy(preset.clock.timer);
      if (semanticallyEqual(vmi.clock.timer, preset.clock.timer)) applied = true;
    }
  }
  if (preset.features) {
    vmi.features ??= copy(preset.features);
    if (semanticallyEqual(vmi.features, preset.features)) applied = true;
  }
  const presetWatchdog = preset.devices?.watchdog;
  if (presetWatchdog) {
    const devices = (vmi.devices ??= {});
    devices.watchdog ??= copy(presetWatchdog);
    if (semanticallyEqual(devices.watchdog, presetWatchdog)) applied = true;
  }
  if (preset.ioThreadsPolicy !== undefined) {
    vmi.ioThreadsPolicy ??= preset.ioThreadsPolicy;
    if (vmi.ioThreadsPolicy === preset.ioThreadsPolicy) applied = true;
  }
  return { applied, conflicts };
}

const domainOf = (preset: VirtualMachineInstancePreset): DomainSpec =>
  preset.spec?.domain ?? ({ devices: {} } as DomainSpec);
const nameOf = (preset: VirtualMachineInstancePreset): string => preset.metadata?.name ?? "";

/** Upstream's checkPresetConflicts: every pair of matching presets must merge cleanly. */
function presetConflicts(presets: readonly VirtualMachineInstancePreset[]): string[] {
  const found: string[] = [];
  presets.forEach((preset, index) => {
    for (const visited of presets.slice(0, index)) {
      const conflicts = mergeConflicts(domainOf(preset), domainOf(visited));
      if (conflicts.length > 0) {
        found.push(`presets '${nameOf(preset)}' and '${nameOf(visited)}' conflict: ${aggregate(conflicts)}`);
      }
    }
  });
  return found;
}

export function isVMIExcluded(vmi: VirtualMachineInstance): boolean {
  return vmi.metadata?.annotations?.[PresetExclusionAnnotation] === "true";
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** apimachinery's check of a matchLabels value, which the shared Selector does not make. */
function checkLabelValues(matchLabels: Record<string, string> | undefined): void {
  for (const [key, value] of Object.entries(matchLabels ?? {})) {
    if (LABEL_VALUE.test(value) && value.length <= 63) continue;
    throw new Error(
      `values[0][${key}]: Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  }
}

/** The presets whose selector matches the VMI's labels; an invalid selector is an error, as upstream. */
function matchingPresets(
  presets: readonly VirtualMachineInstancePreset[],
  vmi: VirtualMachineInstance,
): VirtualMachineInstancePreset[] {
  // A preset's selector is a value in Go, so an absent one selects everything.
  return presets.filter((preset) => {
    const selector = preset.spec?.selector ?? {};
    checkLabelValues(selector.matchLabels);
    return Selector.fromLabelSelector(selector).matches(vmi.metadata?.labels ?? {});
  });
}

/**
 * Upstream's applyPresets, on `vmi` in place. Presets conflicting with each other refuse the VMI;
 * settings conflicting with the VMI's own are left as the VMI has them (and reported through `warn`).
 */
export function applyPresets(
  vmi: VirtualMachineInstance,
  presets: readonly VirtualMachineInstancePreset[],
  warn: (message: string) => void = () => {},
): PresetResult {
  if (isVMIExcluded(vmi)) return { ok: true };
  let matching: VirtualMachineInstancePreset[];
  try {
    matching = matchingPresets(presets, vmi);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (matching.length === 0) return { ok: true };
  const conflicts = presetConflicts(matching);
  if (conflicts.length > 0) {
    return {
      ok: false,
      message: `VirtualMachinePresets cannot be applied due to conflicts: ${aggregate(conflicts)}`,
    };
  }
  for (const preset of matching) {
    const name = nameOf(preset);
    const { applied, conflicts: skipped } = mergeDomainSpec(domainOf(preset), vmi.spec.domain);
    const detail = skipped.length > 0 ? aggregate(skipped) : "<nil>";
    if (!applied) {
      warn(`Unable to apply VirtualMachineInstancePreset '${name}': ${detail}`);
      continue;
    }
    if (skipped.length > 0) {
      warn(`Some settings were not applied for VirtualMachineInstancePreset '${name}': ${detail}`);
    }
    const metadata = (vmi.metadata ??= {});
    (metadata.annotations ??= {})[`${PresetAnnotationPrefix}${name}`] = PresetAnnotationValue;
  }
  return { ok: true };
}
