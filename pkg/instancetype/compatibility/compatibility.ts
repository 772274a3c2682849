// Upstream pkg/instancetype/compatibility: the spec held by a ControllerRevision that stores a copy of an
// instance type or preference. The revision's data is the whole object; only the v1beta1 kinds decode.
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import type { KubeObject } from "../../controller/object.js";
import { INSTANCETYPE_API_VERSION } from "../find/resources.js";

export interface InstancetypeControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

const INSTANCETYPE_KINDS = ["VirtualMachineInstancetype", "VirtualMachineClusterInstancetype"];
const PREFERENCE_KINDS = ["VirtualMachinePreference", "VirtualMachineClusterPreference"];

interface Decoded {
  kind: string;
  spec: unknown;
}

function decode(revision: InstancetypeControllerRevision): Decoded {
  const data = revision.data as { apiVersion?: unknown; kind?: unknown; spec?: unknown } | undefined;
  const apiVersion = typeof data?.apiVersion === "string" ? data.apiVersion : "";
  const kind = typeof data?.kind === "string" ? data.kind : "";
  if (kind === "") {
    throw new Error(
      "failed to decode object in ControllerRevision: Object 'Kind' is missing in revision data",
    );
  }
  const known = [...INSTANCETYPE_KINDS, ...PREFERENCE_KINDS].includes(kind);
  if (!known || apiVersion !== INSTANCETYPE_API_VERSION) {
    // kubevirt-ts serves only v1beta1, so older stored versions are not converted.
    throw new Error(
      `failed to decode object in ControllerRevision: no kind "${kind}" is registered for version "${apiVersion}" in scheme`,
    );
  }
  return { kind, spec: data?.spec ?? {} };
}

const unexpected = (kind: string) => new Error(`unexpected type in ControllerRevision: *v1beta1.${kind}`);

export function getInstancetypeSpec(
  revision: InstancetypeControllerRevision,
): VirtualMachineInstancetypeSpec {
  const { kind, spec } = decode(revision);
  if (!INSTANCETYPE_KINDS.includes(kind)) throw unexpected(kind);
  return structuredClone(spec) as VirtualMachineInstancetypeSpec;
}

export function getPreferenceSpec(revision: InstancetypeControllerRevision): VirtualMachinePreferenceSpec {
  const { kind, spec } = decode(revision);
  if (!PREFERENCE_KINDS.includes(kind)) throw unexpected(kind);
  return structuredClone(spec) as VirtualMachinePreferenceSpec;
}
