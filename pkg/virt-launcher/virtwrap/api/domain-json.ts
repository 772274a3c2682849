// api.Domain as JSON, the way upstream's launcher writes it (GetDomain, domain notify events):
// upstream's domain schema has no JSON tags, so the spec and status keys are Go field names
// ("Spec": {"Devices": {"Disks": [...]}}), the object meta uses Kubernetes' keys, and the type meta
// says kind "Domain", apiVersion "1.2.2". This port's schema names fields after those Go fields in
// camelCase; the table below holds the names that do not come back by upper-casing one letter.
import { z } from "zod";
import type { DomainObject, DomainStatus, GuestOSInfo, InterfaceStatus } from "./domain-object.js";
import { LifeCycle, StateChangeReason } from "./domain-status.js";

/** camelCase field -> upstream's Go field name, where that is not just the capitalized form. */
const GO_FIELD_NAMES: Readonly<Record<string, string>> = {
  acpi: "ACPI",
  apic: "APIC",
  bios: "BIOS",
  cpu: "CPU",
  cpus: "CPUs",
  id: "ID",
  io: "IO",
  iommu: "IOMMU",
  iothread: "IOThread",
  mac: "MAC",
  mtu: "MTU",
  numa: "NUMA",
  os: "OS",
  pciHole64: "PCIHole64",
  smbios: "SMBios",
  smm: "SMM",
  uid: "UID",
  uuid: "UUID",
  vcpu: "VCPU",
  vcpus: "VCPUs",
  vgamem: "VGAMem",
  vmPort: "VMPort",
  vram: "VRam",
};
const CAMEL_FIELD_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(GO_FIELD_NAMES).map(([camel, go]) => [go, camel]),
);

export function goFieldName(camel: string): string {
  return GO_FIELD_NAMES[camel] ?? camel.charAt(0).toUpperCase() + camel.slice(1);
}

export function camelFieldName(go: string): string {
  return CAMEL_FIELD_NAMES[go] ?? go.charAt(0).toLowerCase() + go.slice(1);
}

function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (typeof value !== "object" || value === null || Buffer.isBuffer(value)) return value;
  const renamed: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child !== undefined) renamed[rename(key)] = renameKeys(child, rename);
  }
  return renamed;
}

function interfaceStatusJSON(status: InterfaceStatus): object {
  return { Mac: status.mac, Ip: status.ip, IPs: status.ips ?? null, InterfaceName: status.interfaceName };
}

const NO_OS_INFO: GuestOSInfo = {
  name: "",
  kernelRelease: "",
  version: "",
  prettyName: "",
  versionId: "",
  kernelVersion: "",
  machine: "",
  id: "",
};

function osInfoJSON(info: GuestOSInfo): object {
  return {
    Name: info.name,
    KernelRelease: info.kernelRelease,
    Version: info.version,
    PrettyName: info.prettyName,
    VersionId: info.versionId,
    KernelVersion: info.kernelVersion,
    Machine: info.machine,
    Id: info.id,
  };
}

function statusJSON(status: DomainStatus): object {
  return {
    Status: status.status,
    Reason: status.reason,
    Interfaces: status.interfaces?.map(interfaceStatusJSON) ?? null,
    OSInfo: osInfoJSON(status.osInfo ?? NO_OS_INFO),
    FSFreezeStatus: { Status: status.fsFreezeStatus ?? "" },
    GuestPanicInfo: null,
    PanicCount: 0,
  };
}

/** The domain as upstream's encoding/json renders an api.Domain. */
export function domainToJSON(domain: DomainObject): string {
  const { name, namespace, uid, deletionTimestamp } = domain.objectMeta;
  return JSON.stringify({
    kind: "Domain",
    apiVersion: "1.2.2",
    ObjectMeta: {
      name,
      namespace,
      ...(uid ? { uid } : {}),
      creationTimestamp: null,
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
    Spec: renameKeys(domain.spec, goFieldName),
    Status: statusJSON(domain.status),
  });
}

const InterfaceStatusJSON = z.object({
  Mac: z.string().optional(),
  Ip: z.string().optional(),
  IPs: z.array(z.string()).nullish(),
  InterfaceName: z.string().optional(),
});

const OSInfoJSON = z.object({
  Name: z.string().default(""),
  KernelRelease: z.string().default(""),
  Version: z.string().default(""),
  PrettyName: z.string().default(""),
  VersionId: z.string().default(""),
  KernelVersion: z.string().default(""),
  Machine: z.string().default(""),
  Id: z.string().default(""),
});

// What virt-handler acts on is checked; the rest of the spec follows the launcher's own schema.
const DomainJSON = z.object({
  ObjectMeta: z.object({
    name: z.string(),
    namespace: z.string(),
    uid: z.string().optional(),
    deletionTimestamp: z.string().nullish(),
  }),
  Spec: z.looseObject({
    Name: z.string().optional(),
    Metadata: z
      .looseObject({
        KubeVirt: z.looseObject({
          UID: z.string().optional(),
          GracePeriod: z
            .looseObject({
              DeletionGracePeriodSeconds: z.number(),
              DeletionTimestamp: z.string().nullish(),
              MarkedForGracefulShutdown: z.boolean().nullish(),
            })
            .nullish(),
          Migration: z
            .looseObject({
              UID: z.string().nullish(),
              StartTimestamp: z.string().nullish(),
              EndTimestamp: z.string().nullish(),
              Failed: z.boolean().nullish(),
              FailureReason: z.string().nullish(),
              AbortStatus: z.string().nullish(),
              Mode: z.string().nullish(),
            })
            .nullish(),
        }),
      })
      .optional(),
    Devices: z.looseObject({}).optional(),
  }),
  Status: z.object({
    Status: z.union([z.enum(Object.values(LifeCycle)), z.literal("")]),
    Reason: z.union([z.enum(Object.values(StateChangeReason)), z.literal("")]),
    Interfaces: z.array(InterfaceStatusJSON).nullish(),
    OSInfo: OSInfoJSON.nullish(),
    FSFreezeStatus: z.object({ Status: z.string().default("") }).nullish(),
  }),
});

/** Reads an api.Domain JSON document (as domainToJSON or upstream's launcher writes it). */
export function parseDomainJSON(text: string): DomainObject {
  const parsed = DomainJSON.parse(JSON.parse(text));
  const { name, namespace, uid, deletionTimestamp } = parsed.ObjectMeta;
  const { XMLName: _xmlName, ...spec } = parsed.Spec;
  const interfaces = parsed.Status.Interfaces?.map((status) => ({
    mac: status.Mac ?? "",
    ip: status.Ip ?? "",
    ...(status.IPs ? { ips: status.IPs } : {}),
    interfaceName: status.InterfaceName ?? "",
  }));
  const os = parsed.Status.OSInfo;
  const fsFreezeStatus = parsed.Status.FSFreezeStatus?.Status;
  return {
    objectMeta: {
      name,
      namespace,
      ...(uid ? { uid } : {}),
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
    spec: renameKeys(spec, camelFieldName) as DomainObject["spec"],
    status: {
      status: parsed.Status.Status,
      reason: parsed.Status.Reason,
      ...(interfaces ? { interfaces } : {}),
      // An empty OSInfo is how upstream's launcher says "no agent data yet".
      ...(os && os.Name !== ""
        ? {
            osInfo: {
              name: os.Name,
              kernelRelease: os.KernelRelease,
              version: os.Version,
              prettyName: os.PrettyName,
              versionId: os.VersionId,
              kernelVersion: os.KernelVersion,
              machine: os.Machine,
              id: os.Id,
            },
          }
        : {}),
      ...(fsFreezeStatus ? { fsFreezeStatus } : {}),
    },
  };
}
