// What kubevirt-ts does not build yet, in one table. KubeVirt accepts these, but accepting them here
// would leave a VM stuck (no launcher support, no device plugin, no CDI...), so the webhooks refuse them
// with one stable, explicit cause per use, naming the field. The wording is ours, not upstream's.
// Remove a row when its feature lands.
import type { ObjectMeta } from "../../../../api/generated/k8s.js";
import type {
  Interface,
  Network,
  VirtualMachineInstanceSpec,
  VirtualMachineSpec,
} from "../../../../api/generated/v1.js";
import { notSupportedCause, type Path, type StatusCause } from "./causes.js";
import { HookSidecarListAnnotation } from "./metadata.js";
import { VOLUME_SOURCES } from "./volumes.js";

export const SUPPORTED_VOLUME_SOURCES = ["containerDisk", "cloudInitNoCloud", "emptyDisk"] as const;
export const SUPPORTED_BINDINGS = ["masquerade", "bridge"] as const;
export const SUPPORTED_NETWORK_SOURCES = ["pod"] as const;

/** Interface bindings KubeVirt has; slirp, passt and macvtap get upstream's "discontinued" causes instead. */
const BINDINGS = [
  "bridge",
  "masquerade",
  "sriov",
  "passtBinding",
  "binding",
] as const satisfies ReadonlyArray<keyof Interface>;
const NETWORK_SOURCES = ["pod", "multus", "resourceClaim"] as const satisfies ReadonlyArray<keyof Network>;

type Finder<T> = (subject: T, at: Path) => Path[];

/** One row: what is not supported (the subject of the message), where it is used, how to find its uses. */
export type NotYetSupportedRow =
  | { scope: "instance spec"; what: string; find: Finder<VirtualMachineInstanceSpec> }
  | { scope: "vm spec"; what: string; find: Finder<VirtualMachineSpec> }
  | { scope: "metadata"; what: string; find: Finder<ObjectMeta | undefined> };

const notIn = <T extends string>(all: readonly T[], supported: readonly string[]): T[] =>
  all.filter((item) => !supported.includes(item));

/** Paths of the items of a list that use the feature, e.g. `spec.volumes[2].hostDisk`. */
function usesIn<T>(
  items: readonly T[] | undefined,
  listPath: Path,
  member: string,
  used: (item: T) => boolean,
): Path[] {
  return (items ?? []).flatMap((item, index) => (used(item) ? [listPath.index(index).child(member)] : []));
}

const volumeSourceRows = notIn(VOLUME_SOURCES, SUPPORTED_VOLUME_SOURCES).map(
  (source): NotYetSupportedRow => ({
    scope: "instance spec",
    what: `the ${source} volume source (supported: ${SUPPORTED_VOLUME_SOURCES.join(", ")})`,
    find: (spec, at) =>
      usesIn(spec.volumes, at.child("volumes"), source, (volume) => volume[source] !== undefined),
  }),
);

const bindingRows = notIn(BINDINGS, SUPPORTED_BINDINGS).map((binding): NotYetSupportedRow => ({
  scope: "instance spec",
  what: `the ${binding} interface binding (supported: ${SUPPORTED_BINDINGS.join(", ")})`,
  find: (spec, at) =>
    usesIn(
      spec.domain.devices.interfaces,
      at.child("domain", "devices", "interfaces"),
      binding,
      (iface) => iface[binding] !== undefined,
    ),
}));

const networkSourceRows = notIn(NETWORK_SOURCES, SUPPORTED_NETWORK_SOURCES).map(
  (source): NotYetSupportedRow => ({
    scope: "instance spec",
    what: `the ${source} network source (supported: ${SUPPORTED_NETWORK_SOURCES.join(", ")})`,
    find: (spec, at) =>
      usesIn(spec.networks, at.child("networks"), source, (network) => network[source] !== undefined),
  }),
);

/** A feature used whenever a member of the VMI spec is present. */
function instanceMember(
  what: string,
  member: (spec: VirtualMachineInstanceSpec) => unknown,
  ...segments: [string, ...string[]]
): NotYetSupportedRow {
  return {
    scope: "instance spec",
    what,
    find: (spec, at) => (member(spec) === undefined ? [] : [at.child(...segments)]),
  };
}

/** A feature used whenever a member of the VM spec is present. */
function vmMember(what: string, member: keyof VirtualMachineSpec): NotYetSupportedRow {
  return {
    scope: "vm spec",
    what,
    find: (spec, at) => (spec[member] === undefined ? [] : [at.child(member)]),
  };
}

export const NOT_YET_SUPPORTED: readonly NotYetSupportedRow[] = [
  ...volumeSourceRows,
  ...bindingRows,
  ...networkSourceRows,
  instanceMember("GPU passthrough", (spec) => spec.domain.devices.gpus, "domain", "devices", "gpus"),
  instanceMember(
    "host device passthrough",
    (spec) => spec.domain.devices.hostDevices,
    "domain",
    "devices",
    "hostDevices",
  ),
  instanceMember(
    "dynamic resource allocation (resourceClaims)",
    (spec) => spec.resourceClaims,
    "resourceClaims",
  ),
  vmMember("the instancetype reference", "instancetype"),
  vmMember("the preference reference", "preference"),
  vmMember("the dataVolumeTemplates field", "dataVolumeTemplates"),
  {
    scope: "metadata",
    what: `the ${HookSidecarListAnnotation} annotation`,
    find: (metadata, at) =>
      metadata?.annotations?.[HookSidecarListAnnotation] === undefined
        ? []
        : [at.child("annotations").key(HookSidecarListAnnotation)],
  },
];

/** `the X (supported: a, b)` reads `the X is not supported by kubevirt-ts yet (supported: a, b)`. */
export function notYetSupportedMessage(what: string): string {
  const hint = / \(supported: [^)]*\)$/.exec(what)?.[0] ?? "";
  return `${what.slice(0, what.length - hint.length)} is not supported by kubevirt-ts yet${hint}`;
}

const causesFor = (what: string, uses: readonly Path[]): StatusCause[] =>
  uses.map((use) => notSupportedCause(notYetSupportedMessage(what), use));

/** `at` is the spec's path (`spec`, `spec.template.spec`). */
export function validateInstanceSpecSupported(at: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return NOT_YET_SUPPORTED.flatMap((row) =>
    row.scope === "instance spec" ? causesFor(row.what, row.find(spec, at)) : [],
  );
}

export function validateVMSpecSupported(at: Path, spec: VirtualMachineSpec): StatusCause[] {
  return NOT_YET_SUPPORTED.flatMap((row) =>
    row.scope === "vm spec" ? causesFor(row.what, row.find(spec, at)) : [],
  );
}

/** `at` is the metadata's path (`metadata`, `spec.template.metadata`). */
export function validateMetadataSupported(at: Path, metadata: ObjectMeta | undefined): StatusCause[] {
  return NOT_YET_SUPPORTED.flatMap((row) =>
    row.scope === "metadata" ? causesFor(row.what, row.find(metadata, at)) : [],
  );
}
