// The domain's starting point and its defaults (upstream api/schema.go NewMinimalDomainSpec,
// api/defaults.go and arch-defaulter/amd64.go).
import type { DomainSpec } from "./schema.js";
import { QEMUNamespace } from "./schema.js";

/** libvirt's domain name for a VMI: `<namespace>_<name>`. */
export function vmiNamespaceKeyFunc(vmi: { metadata?: { name?: string; namespace?: string } }): string {
  return `${vmi.metadata?.namespace ?? ""}_${vmi.metadata?.name ?? ""}`;
}

export function newMinimalDomainSpec(domainName: string): DomainSpec {
  return {
    type: "",
    name: domainName,
    memory: { unit: "MB", value: 9 },
    os: { type: { os: "" } },
    devices: {},
    cpu: {},
  };
}

/** amd64 is the only architecture of the walking skeleton; q35 is the newest q35 machine's alias. */
const amd64 = { osTypeArch: "x86_64", osTypeMachine: "q35" } as const;

/** Upstream's SetObjectDefaults_Domain: the qemu namespace, KVM unless told otherwise, an hvm x86_64 guest. */
export function setDomainDefaults(spec: DomainSpec): void {
  spec.xmlNS = QEMUNamespace;
  if (!spec.type) spec.type = "kvm";
  spec.os.type.os = "hvm";
  if (!spec.os.type.arch) spec.os.type.arch = amd64.osTypeArch;
  if (!spec.os.type.machine) spec.os.type.machine = amd64.osTypeMachine;
}
