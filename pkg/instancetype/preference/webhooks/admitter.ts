// Upstream pkg/instancetype/preference/webhooks: the VirtualMachine(Cluster)Preference admitter. Creations
// and updates are checked against the schema, then the preferred CPU topology and spread options; a
// deprecated topology name is admitted with a warning naming its replacement.
import { Path } from "../../../api/field.js";
import {
  accepted,
  fieldErrorCauses,
  invalidCause,
  refused,
  type AdmissionInput,
  type Verdict,
} from "../../webhooks/verdict.js";
import type { StatusCause } from "../../../api/generated/k8s.js";
import type { VirtualMachinePreferenceSpec } from "../../../api/generated/v1beta1.js";
import type { DefinitionName } from "../../../api/generated/index.js";
import { parseDefinition } from "../../../api/parse.js";
import { preferredSpread } from "../apply/vmi.js";
import { isPreferredTopologySupported } from "../validation/cpu.js";

const DEPRECATED_TOPOLOGIES: Readonly<Record<string, string>> = {
  preferSockets: "sockets",
  preferCores: "cores",
  preferThreads: "threads",
  preferSpread: "spread",
  preferAny: "any",
};

const SPREAD_ACROSS = ["CoresThreads", "SocketsCores", "SocketsCoresThreads"];

export function validatePreferenceSpec(field: Path, spec: VirtualMachinePreferenceSpec): StatusCause[] {
  const topology = spec.cpu?.preferredCPUTopology;
  if (topology === undefined) return [];
  const cpu = field.child("cpu");
  if (!isPreferredTopologySupported(topology)) {
    return [invalidCause(`unknown preferredCPUTopology ${topology}`, cpu.child("preferredCPUTopology"))];
  }
  if (topology !== "spread" && topology !== "preferSpread") return [];
  const { ratio, across } = preferredSpread(spec);
  if (!SPREAD_ACROSS.includes(across)) {
    return [invalidCause(`across ${across} is not supported`, cpu.child("spreadOptions", "across"))];
  }
  if (across === "CoresThreads" && ratio !== 2) {
    return [
      invalidCause(
        "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads",
        cpu.child("spreadOptions", "ratio"),
      ),
    ];
  }
  return [];
}

function deprecationWarnings(spec: VirtualMachinePreferenceSpec): string[] {
  const topology = spec.cpu?.preferredCPUTopology;
  const replacement = topology === undefined ? undefined : DEPRECATED_TOPOLOGIES[topology];
  if (replacement === undefined) return [];
  return [
    `PreferredCPUTopology ${topology} is deprecated for removal in a future release, please use ${replacement} instead`,
  ];
}

function admit(request: AdmissionInput, definition: DefinitionName): Verdict {
  if (request.operation !== "CREATE" && request.operation !== "UPDATE") return accepted();
  const parsed = parseDefinition(definition, request.object);
  if (!parsed.ok) return refused(fieldErrorCauses(parsed.errors));
  const spec = (parsed.value as { spec: VirtualMachinePreferenceSpec }).spec;
  const causes = validatePreferenceSpec(Path.of("spec"), spec);
  return causes.length > 0 ? refused(causes) : accepted(deprecationWarnings(spec));
}

export const admitPreference = (request: AdmissionInput): Verdict =>
  admit(request, "v1beta1.VirtualMachinePreference");
export const admitClusterPreference = (request: AdmissionInput): Verdict =>
  admit(request, "v1beta1.VirtualMachineClusterPreference");
