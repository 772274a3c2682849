// The libvirt domain schema for the subset the converter produces: types named after upstream's
// pkg/virt-launcher/virtwrap/api/schema.go (Go field names in camelCase), each with its XML mapping.
import type { Devices } from "./schema-devices.js";
import { devicesType } from "./schema-devices.js";
import type { Empty } from "./xml-codec.js";
import {
  attr,
  bool,
  chardata,
  child,
  childOr,
  children,
  empty,
  int,
  requiredAttr,
  requiredChild,
  requiredTextChild,
  str,
  struct,
  textChild,
  uint,
  wrapped,
} from "./xml-codec.js";

export * from "./schema-devices.js";

/** The namespace libvirt's qemu driver uses for its command-line passthrough elements. */
export const QEMUNamespace = "http://libvirt.org/schemas/domain/qemu/1.0";
/** The namespace of KubeVirt's own element under <metadata>. */
export const KubeVirtMetadataNamespace = "http://kubevirt.io";

export interface Memory {
  value: number;
  unit: string;
}
const memoryType = struct<Memory>({ value: chardata(uint), unit: requiredAttr("unit", str) });

export interface MaxMemory {
  value: number;
  unit: string;
  slots: number;
}
const maxMemoryType = struct<MaxMemory>({
  value: chardata(uint),
  unit: requiredAttr("unit", str),
  slots: requiredAttr("slots", uint),
});

export interface OSType {
  os: string;
  arch?: string;
  machine?: string;
}
export interface BootMenu {
  enable: string;
  timeout?: number;
}
export interface OS {
  type: OSType;
  smbios?: { mode: string };
  bootMenu?: BootMenu;
  bios?: { useSerial?: string };
  kernel?: string;
  initrd?: string;
  kernelArgs?: string;
}
const osType = struct<OS>({
  type: requiredChild(
    "type",
    struct<OSType>({ os: chardata(str), arch: attr("arch", str), machine: attr("machine", str) }),
  ),
  smbios: child("smbios", struct<{ mode: string }>({ mode: requiredAttr("mode", str) })),
  bootMenu: child(
    "bootmenu",
    struct<BootMenu>({ enable: requiredAttr("enable", str), timeout: attr("timeout", uint) }),
  ),
  bios: child("bios", struct<{ useSerial?: string }>({ useSerial: attr("useserial", str) })),
  kernel: textChild("kernel", str),
  initrd: textChild("initrd", str),
  kernelArgs: textChild("cmdline", str),
});

export interface Entry {
  name: string;
  value: string;
}
const entryType = struct<Entry>({ name: requiredAttr("name", str), value: chardata(str) });

export interface SysInfo {
  type: string;
  system?: Entry[];
  bios?: Entry[];
  baseBoard?: Entry[];
  chassis?: Entry[];
}
const sysInfoType = struct<SysInfo>({
  type: requiredAttr("type", str),
  system: wrapped("system", "entry", entryType),
  bios: wrapped("bios", "entry", entryType),
  baseBoard: wrapped("baseBoard", "entry", entryType),
  chassis: wrapped("chassis", "entry", entryType),
});

export interface Timer {
  name: string;
  tickPolicy?: string;
  present?: string;
  track?: string;
  frequency?: string;
}
export interface Clock {
  offset?: string;
  timezone?: string;
  adjustment?: string;
  timer?: Timer[];
}
const clockType = struct<Clock>({
  offset: attr("offset", str),
  timezone: attr("timezone", str),
  adjustment: attr("adjustment", str),
  timer: children(
    "timer",
    struct<Timer>({
      name: requiredAttr("name", str),
      tickPolicy: attr("tickpolicy", str),
      present: attr("present", str),
      track: attr("track", str),
      frequency: attr("frequency", str),
    }),
  ),
});

/** Kept in the domain's metadata so a restarted launcher still knows a shutdown was asked for. */
export interface GracePeriodMetadata {
  deletionGracePeriodSeconds: number;
  /** RFC 3339. */
  deletionTimestamp?: string;
  markedForGracefulShutdown?: boolean;
}
const gracePeriodType = struct<GracePeriodMetadata>({
  deletionGracePeriodSeconds: requiredTextChild("deletionGracePeriodSeconds", int),
  deletionTimestamp: textChild("deletionTimestamp", str),
  markedForGracefulShutdown: textChild("markedForGracefulShutdown", bool),
});

export interface KubeVirtMetadata {
  uid: string;
  gracePeriod?: GracePeriodMetadata;
}
export interface Metadata {
  kubeVirt: KubeVirtMetadata;
}
const metadataType = struct<Metadata>({
  kubeVirt: requiredChild(
    "kubevirt",
    struct<KubeVirtMetadata>(
      { uid: requiredTextChild("uid", str), gracePeriod: child("graceperiod", gracePeriodType) },
      { xmlns: KubeVirtMetadataNamespace },
    ),
  ),
});

export interface FeatureState {
  state?: string;
}
const featureStateType = struct<FeatureState>({ state: attr("state", str) });

export interface Features {
  acpi?: Empty;
  apic?: Empty;
  smm?: Empty;
  vmPort?: FeatureState;
}
const featuresType = struct<Features>({
  acpi: child("acpi", empty),
  apic: child("apic", empty),
  smm: child("smm", empty),
  vmPort: child("vmport", featureStateType),
});

export interface CPUFeature {
  name: string;
  policy?: string;
}
export interface CPUTopology {
  sockets?: number;
  cores?: number;
  threads?: number;
}
export interface NUMACell {
  id: string;
  cpus?: string;
  memory?: number;
  unit?: string;
}
export interface NUMA {
  cells?: NUMACell[];
}
export interface CPU {
  mode?: string;
  model?: string;
  features?: CPUFeature[];
  topology?: CPUTopology;
  numa?: NUMA;
}
const cpuType = struct<CPU>({
  mode: attr("mode", str),
  model: textChild("model", str),
  features: children(
    "feature",
    struct<CPUFeature>({ name: requiredAttr("name", str), policy: attr("policy", str) }),
  ),
  topology: child(
    "topology",
    struct<CPUTopology>({
      sockets: attr("sockets", uint),
      cores: attr("cores", uint),
      threads: attr("threads", uint),
    }),
  ),
  numa: child(
    "numa",
    struct<NUMA>({
      cells: children(
        "cell",
        struct<NUMACell>({
          id: requiredAttr("id", str),
          cpus: attr("cpus", str),
          memory: attr("memory", uint),
          unit: attr("unit", str),
        }),
      ),
    }),
  ),
});

export interface VCPU {
  placement: string;
  cpus: number;
}
export interface VCPUsVCPU {
  id: number;
  enabled?: string;
  hotpluggable?: string;
  order?: number;
}
const vcpuType = struct<VCPU>({ placement: requiredAttr("placement", str), cpus: chardata(uint) });
const vcpusType = struct<{ vcpu?: VCPUsVCPU[] }>({
  vcpu: children(
    "vcpu",
    struct<VCPUsVCPU>({
      id: requiredAttr("id", uint),
      enabled: attr("enabled", str),
      hotpluggable: attr("hotpluggable", str),
      order: attr("order", uint),
    }),
  ),
});

export interface DomainSpec {
  type: string;
  xmlNS?: string;
  name: string;
  uuid?: string;
  memory: Memory;
  maxMemory?: MaxMemory;
  os: OS;
  sysInfo?: SysInfo;
  devices: Devices;
  clock?: Clock;
  metadata?: Metadata;
  features?: Features;
  cpu: CPU;
  vcpu?: VCPU;
  vcpus?: { vcpu?: VCPUsVCPU[] };
  onReboot?: string;
}
export const domainSpecType = struct<DomainSpec>({
  type: requiredAttr("type", str),
  xmlNS: attr("xmlns:qemu", str),
  name: requiredTextChild("name", str),
  uuid: textChild("uuid", str),
  memory: requiredChild("memory", memoryType),
  maxMemory: child("maxMemory", maxMemoryType),
  os: requiredChild("os", osType),
  sysInfo: child("sysinfo", sysInfoType),
  devices: childOr("devices", devicesType, () => ({})),
  clock: child("clock", clockType),
  metadata: child("metadata", metadataType),
  features: child("features", featuresType),
  cpu: childOr("cpu", cpuType, () => ({})),
  vcpu: child("vcpu", vcpuType),
  vcpus: child("vcpus", vcpusType),
  onReboot: textChild("on_reboot", str),
});

/** Upstream's api.Domain: the VMI it belongs to, and the libvirt domain definition. */
export interface Domain {
  objectMeta: { name: string; namespace: string };
  spec: DomainSpec;
}

export const DomainOnRebootDestroy = "destroy";
export const DomainOnRebootRestart = "restart";
