// What kubevirt-ts implements of a VMI so far, written once as an allow-list. The validating webhook
// refuses a VM or VMI that sets anything outside it, and the launcher's converter refuses the same VMI
// before defining a domain, so a VM is never accepted and then stuck. Each use outside the subset is one
// finding with its field path and a message ending "is not supported by kubevirt-ts yet". Only the parts
// that shape the domain are checked (`spec.domain`, `spec.volumes`, `spec.networks`, resource claims,
// the architecture and a few annotations); scheduling, probes and the like are other components' work.
// Widen the allow-list when a feature lands: both users follow.
import { Path } from "../api/field.js";
import type { ObjectMeta } from "../api/generated/k8s.js";
import type { VirtualMachineInstanceSpec } from "../api/generated/v1.js";

export const SUPPORTED_VOLUME_SOURCES = [
  "containerDisk",
  "cloudInitNoCloud",
  "cloudInitConfigDrive",
  "emptyDisk",
  "ephemeral",
  "persistentVolumeClaim",
  "dataVolume",
  "hostDisk",
  "configMap",
  "secret",
  "serviceAccount",
  "downwardAPI",
] as const;
export const SUPPORTED_BINDINGS = ["masquerade", "bridge"] as const;
export const SUPPORTED_NETWORK_SOURCES = ["pod", "multus"] as const;
export const SUPPORTED_ARCHITECTURES = ["amd64"] as const;

/** One use of something kubevirt-ts does not implement yet. */
export interface NotYetSupported {
  field: Path;
  message: string;
}

/** `the X (supported: a, b)` reads `the X is not supported by kubevirt-ts yet (supported: a, b)`. */
export function notYetSupportedMessage(what: string): string {
  const hint = / \(supported: [^)]*\)$/.exec(what)?.[0] ?? "";
  return `${what.slice(0, what.length - hint.length)} is not supported by kubevirt-ts yet${hint}`;
}

/** Names what an unknown member is, for the message; the default is the member's field path. */
type Subject = (member: string, field: Path) => string;

/**
 * `true`: the whole subtree is implemented. A plain object: only these members are. `Each`: every item
 * of a list is checked. `Described`: members, with a better subject for the unknown ones. `Refused`: a
 * known feature, named in the message.
 */
type Allowed = true | Each | Described | Refused | { readonly [member: string]: Allowed };

class Each {
  constructor(readonly item: Allowed) {}
}
class Described {
  constructor(
    readonly members: { readonly [member: string]: Allowed },
    readonly subject: Subject,
  ) {}
}
class Refused {
  constructor(readonly what: string) {}
}

const each = (item: Allowed): Each => new Each(item);
const supportedHint = (supported: readonly string[]): string => `(supported: ${supported.join(", ")})`;

/** Interface members that pick a binding (`binding` names a plugin); other unknown members go by their path. */
const BINDING_MEMBERS = new Set([
  "bridge",
  "masquerade",
  "sriov",
  "passtBinding",
  "slirp",
  "passt",
  "macvtap",
]);

const disk: Allowed = {
  name: true,
  bootOrder: true,
  cache: true,
  io: true,
  errorPolicy: true,
  serial: true,
  tag: true,
  disk: { bus: true, readonly: true },
  cdrom: true,
  // SCSI persistent reservation (lun.reservation) needs the pr-helper; not built yet.
  lun: { bus: true, readonly: true },
};

const networkInterface = new Described(
  {
    name: true,
    masquerade: true,
    bridge: true,
    model: true,
    macAddress: true,
    bootOrder: true,
    state: true,
    // Served by virt-handler's DHCP server and NAT rules, not part of the domain.
    ports: true,
    portRanges: true,
    dhcpOptions: true,
    tag: true,
  },
  (member, field) => {
    if (member === "binding") return `a network binding plugin ${supportedHint(SUPPORTED_BINDINGS)}`;
    if (BINDING_MEMBERS.has(member))
      return `the ${member} interface binding ${supportedHint(SUPPORTED_BINDINGS)}`;
    return field.toString();
  },
);

const domain: Allowed = {
  resources: true,
  // The reserved overhead sizes the launcher pod (virt-controller), not the domain.
  memory: { guest: true, maxGuest: true, reservedOverhead: true },
  cpu: { sockets: true, cores: true, threads: true, maxSockets: true, model: true, features: true },
  machine: true,
  // Nothing places kernelBoot's container files where the converter looks, so it is refused for now.
  firmware: { uuid: true, serial: true, bootloader: { bios: true } },
  features: { acpi: true, apic: true, smm: true },
  clock: true,
  chassis: true,
  rebootPolicy: true,
  devices: {
    disks: each(disk),
    interfaces: each(networkInterface),
    gpus: new Refused("GPU passthrough"),
    hostDevices: new Refused("host device passthrough"),
    rng: true,
    inputs: true,
    video: true,
    autoattachGraphicsDevice: true,
    autoattachInputDevice: true,
    autoattachMemBalloon: true,
    autoattachPodInterface: true,
    autoattachSerialConsole: true,
    logSerialConsole: true,
    useVirtioTransitional: true,
    blockMultiQueue: true,
    disableHotplug: true,
  },
};

const volume = new Described(
  Object.fromEntries([["name", true], ...SUPPORTED_VOLUME_SOURCES.map((source) => [source, true])]),
  (source) => `the ${source} volume source ${supportedHint(SUPPORTED_VOLUME_SOURCES)}`,
);

const network = new Described(
  Object.fromEntries([["name", true], ...SUPPORTED_NETWORK_SOURCES.map((source) => [source, true])]),
  (source) => `the ${source} network source ${supportedHint(SUPPORTED_NETWORK_SOURCES)}`,
);

/** The members of the VMI spec that shape the domain; others are outside this check. */
const instanceSpec: { readonly [member: string]: Allowed } = {
  domain,
  volumes: each(volume),
  networks: each(network),
  resourceClaims: new Refused("dynamic resource allocation (resourceClaims)"),
};

/** Annotations that change the domain in ways not implemented yet, with the values that turn them on. */
const ANNOTATIONS: ReadonlyArray<{ key: string; active: (value: string) => boolean }> = [
  { key: "kubevirt.io/ignitiondata", active: (value) => value.includes("ignition") },
  { key: "kubevirt.io/placePCIDevicesOnRootComplex", active: (value) => value === "true" },
  // Hook sidecars rewrite the domain before it is defined; without them the VM would differ.
  { key: "hooks.kubevirt.io/hookSidecars", active: (value) => value.trim() !== "" },
];

/** Unset, off or empty: the field asks for nothing (`dedicatedCpuPlacement: false`, `gpus: []`). */
function asksForNothing(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === false ||
    value === "" ||
    value === 0 ||
    (Array.isArray(value) && value.length === 0)
  );
}

const byPath: Subject = (_member, field) => field.toString();

function check(value: unknown, allowed: Allowed, at: Path, found: NotYetSupported[]): void {
  if (allowed === true || asksForNothing(value)) return;
  if (allowed instanceof Refused) {
    found.push({ field: at, message: notYetSupportedMessage(allowed.what) });
    return;
  }
  if (allowed instanceof Each) {
    if (Array.isArray(value)) value.forEach((item, i) => check(item, allowed.item, at.index(i), found));
    return;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  const [members, subject] =
    allowed instanceof Described ? [allowed.members, allowed.subject] : [allowed, byPath];
  for (const [member, child] of Object.entries(value)) {
    const field = at.child(member);
    const childAllowed = Object.hasOwn(members, member) ? members[member] : undefined;
    if (childAllowed !== undefined) check(child, childAllowed, field, found);
    else if (!asksForNothing(child))
      found.push({ field, message: notYetSupportedMessage(subject(member, field)) });
  }
}

/** Every use in a VMI spec (at `spec` or `spec.template.spec`) of what kubevirt-ts does not implement yet. */
export function notYetSupportedInSpec(at: Path, spec: VirtualMachineInstanceSpec): NotYetSupported[] {
  const found: NotYetSupported[] = [];
  for (const [member, allowed] of Object.entries(instanceSpec)) {
    check(spec[member as keyof VirtualMachineInstanceSpec], allowed, at.child(member), found);
  }
  const architecture = spec.architecture;
  if (architecture && !SUPPORTED_ARCHITECTURES.some((supported) => supported === architecture)) {
    const what = `the ${architecture} architecture ${supportedHint(SUPPORTED_ARCHITECTURES)}`;
    found.push({ field: at.child("architecture"), message: notYetSupportedMessage(what) });
  }
  return found;
}

/** Annotations (of `metadata` or `spec.template.metadata`) asking for what kubevirt-ts does not implement yet. */
export function notYetSupportedInMetadata(at: Path, metadata: ObjectMeta | undefined): NotYetSupported[] {
  const annotations = metadata?.annotations ?? {};
  return ANNOTATIONS.flatMap(({ key, active }) => {
    const value = Object.hasOwn(annotations, key) ? annotations[key] : undefined;
    if (value === undefined || !active(value)) return [];
    const field = at.child("annotations").key(key);
    return [{ field, message: notYetSupportedMessage(`the ${key} annotation`) }];
  });
}

/** Both, for a whole VMI: what the launcher's converter refuses. */
export function notYetSupportedInVMI(vmi: {
  metadata?: ObjectMeta;
  spec: VirtualMachineInstanceSpec;
}): NotYetSupported[] {
  return [
    ...notYetSupportedInSpec(Path.of("spec"), vmi.spec),
    ...notYetSupportedInMetadata(Path.of("metadata"), vmi.metadata),
  ];
}
