// The part of the VMI spec the converter implements, written down as an allow-list so that
// anything else a VMI asks for is refused by name instead of being silently dropped. Fields
// that only other components act on (scheduling, probes, the DHCP options the handler serves)
// are outside this check: only `spec.domain`, `spec.volumes` and `spec.networks` shape the domain.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { UnsupportedCause } from "./errors.js";
import { unsupported } from "./errors.js";

/** `true`: the whole subtree is understood. An object: only these keys are. */
type Allowed = true | ListOf | { readonly [key: string]: Allowed };
/** Each item of a list is checked against `each`. */
class ListOf {
  constructor(readonly each: Allowed) {}
}
const list = (each: Allowed): ListOf => new ListOf(each);

const diskAllowed: Allowed = {
  name: true,
  bootOrder: true,
  cache: true,
  io: true,
  errorPolicy: true,
  serial: true,
  tag: true,
  disk: { bus: true, readonly: true },
  cdrom: true,
};

const interfaceAllowed: Allowed = {
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
};

const domainAllowed: Allowed = {
  resources: true,
  // The reserved overhead sizes the launcher pod (virt-controller), not the domain.
  memory: { guest: true, maxGuest: true, reservedOverhead: true },
  cpu: { sockets: true, cores: true, threads: true, maxSockets: true, model: true, features: true },
  machine: true,
  firmware: { uuid: true, serial: true, bootloader: { bios: true }, kernelBoot: true },
  features: { acpi: true, apic: true, smm: true },
  clock: true,
  chassis: true,
  rebootPolicy: true,
  devices: {
    disks: list(diskAllowed),
    interfaces: list(interfaceAllowed),
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

const volumeAllowed: Allowed = {
  name: true,
  containerDisk: true,
  emptyDisk: true,
  cloudInitNoCloud: true,
};

const networkAllowed: Allowed = { name: true, pod: true };

/** Annotations that change the domain in ways not implemented yet, with the value that turns them on. */
const unsupportedAnnotations: ReadonlyArray<{ key: string; active: (value: string) => boolean }> = [
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

function check(value: unknown, allowed: Allowed, path: string, found: UnsupportedCause[]): void {
  if (allowed === true || asksForNothing(value)) return;
  if (allowed instanceof ListOf) {
    if (Array.isArray(value)) value.forEach((item, i) => check(item, allowed.each, `${path}[${i}]`, found));
    return;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (asksForNothing(child)) continue;
    const childAllowed = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
    if (childAllowed === undefined) found.push(unsupported(`${path}.${key}`));
    else check(child, childAllowed, `${path}.${key}`, found);
  }
}

/** Every field of the VMI that would shape the domain but is outside the implemented subset. */
export function unsupportedFields(vmi: VirtualMachineInstance): UnsupportedCause[] {
  const found: UnsupportedCause[] = [];
  check(vmi.spec.domain, domainAllowed, "spec.domain", found);
  check(vmi.spec.volumes, list(volumeAllowed), "spec.volumes", found);
  check(vmi.spec.networks, list(networkAllowed), "spec.networks", found);
  const annotations = vmi.metadata?.annotations ?? {};
  for (const { key, active } of unsupportedAnnotations) {
    const value = Object.hasOwn(annotations, key) ? annotations[key] : undefined;
    if (value !== undefined && active(value)) found.push(unsupported(`metadata.annotations[${key}]`));
  }
  const architecture = vmi.spec.architecture;
  if (architecture && architecture !== "amd64") {
    found.push(unsupported("spec.architecture", `architecture "${architecture}" is not supported yet`));
  }
  return found;
}
