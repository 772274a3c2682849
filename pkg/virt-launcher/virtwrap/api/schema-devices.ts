// The <devices> part of the libvirt domain schema, for the subset the converter produces. Type and
// field names follow upstream's pkg/virt-launcher/virtwrap/api/schema.go (Go names in camelCase);
// XML names follow https://libvirt.org/formatdomain.html.
import type { Empty, XmlType } from "./xml-codec.js";
import {
  ATTR_PREFIX,
  attr,
  chardata,
  child,
  children,
  empty,
  requiredAttr,
  requiredChild,
  str,
  struct,
  textChild,
  uint,
} from "./xml-codec.js";

/** Aliases the user chose (device names from the VMI) carry this prefix in the XML. */
export const UserAliasPrefix = "ua-";

export interface Alias {
  name: string;
  userDefined: boolean;
}

export function newUserDefinedAlias(name: string): Alias {
  return { name, userDefined: true };
}

const aliasType: XmlType<Alias> = {
  encode: (alias) => ({
    [ATTR_PREFIX + "name"]: alias.userDefined ? UserAliasPrefix + alias.name : alias.name,
  }),
  decode: (node) => {
    const raw = node[ATTR_PREFIX + "name"];
    const written = typeof raw === "string" ? raw : "";
    return written.startsWith(UserAliasPrefix)
      ? { name: written.slice(UserAliasPrefix.length), userDefined: true }
      : { name: written, userDefined: false };
  },
};

export interface Address {
  type?: string;
  domain?: string;
  bus?: string;
  slot?: string;
  function?: string;
  controller?: string;
  target?: string;
  unit?: string;
}
const addressType = struct<Address>({
  type: attr("type", str),
  domain: attr("domain", str),
  bus: attr("bus", str),
  slot: attr("slot", str),
  function: attr("function", str),
  controller: attr("controller", str),
  target: attr("target", str),
  unit: attr("unit", str),
});

export interface BootOrder {
  order: number;
}
const bootOrderType = struct<BootOrder>({ order: requiredAttr("order", uint) });

// ---- disks

export interface DiskSource {
  dev?: string;
  file?: string;
  name?: string;
}
const diskSourceType = struct<DiskSource>({
  dev: attr("dev", str),
  file: attr("file", str),
  name: attr("name", str),
});

export interface DiskTarget {
  bus?: string;
  device?: string;
  tray?: string;
}
const diskTargetType = struct<DiskTarget>({
  bus: attr("bus", str),
  device: attr("dev", str),
  tray: attr("tray", str),
});

export interface DiskDriver {
  cache?: string;
  errorPolicy?: string;
  io?: string;
  name: string;
  type: string;
  queues?: number;
  discard?: string;
  iommu?: string;
}
const diskDriverType = struct<DiskDriver>({
  cache: attr("cache", str),
  errorPolicy: attr("error_policy", str),
  io: attr("io", str),
  name: requiredAttr("name", str),
  type: requiredAttr("type", str),
  queues: attr("queues", uint),
  discard: attr("discard", str),
  iommu: attr("iommu", str),
});

export interface BackingStoreFormat {
  type: string;
}
export interface BackingStore {
  type?: string;
  format?: BackingStoreFormat;
  source?: DiskSource;
}
const backingStoreType = struct<BackingStore>({
  type: attr("type", str),
  format: child("format", struct<BackingStoreFormat>({ type: requiredAttr("type", str) })),
  source: child("source", diskSourceType),
});

export interface Disk {
  device: string;
  type: string;
  model?: string;
  source: DiskSource;
  target: DiskTarget;
  serial?: string;
  driver?: DiskDriver;
  readOnly?: Empty;
  alias?: Alias;
  backingStore?: BackingStore;
  bootOrder?: BootOrder;
  address?: Address;
}
const diskType = struct<Disk>({
  device: requiredAttr("device", str),
  type: requiredAttr("type", str),
  model: attr("model", str),
  source: requiredChild("source", diskSourceType),
  target: requiredChild("target", diskTargetType),
  serial: textChild("serial", str),
  driver: child("driver", diskDriverType),
  readOnly: child("readonly", empty),
  alias: child("alias", aliasType),
  backingStore: child("backingStore", backingStoreType),
  bootOrder: child("boot", bootOrderType),
  address: child("address", addressType),
});

// ---- network interfaces

export interface InterfaceSource {
  network?: string;
  device?: string;
  bridge?: string;
  mode?: string;
}
export interface InterfaceTarget {
  device: string;
  managed?: string;
}
export interface InterfaceDriver {
  name: string;
  queues?: number;
  iommu?: string;
}
export interface Interface {
  type: string;
  source?: InterfaceSource;
  target?: InterfaceTarget;
  model?: { type: string };
  mac?: { mac: string };
  mtu?: { size: string };
  bootOrder?: BootOrder;
  linkState?: { state: string };
  alias?: Alias;
  driver?: InterfaceDriver;
  rom?: { enabled: string };
  address?: Address;
}
const interfaceType = struct<Interface>({
  type: requiredAttr("type", str),
  source: child(
    "source",
    struct<InterfaceSource>({
      network: attr("network", str),
      device: attr("dev", str),
      bridge: attr("bridge", str),
      mode: attr("mode", str),
    }),
  ),
  target: child(
    "target",
    struct<InterfaceTarget>({ device: requiredAttr("dev", str), managed: attr("managed", str) }),
  ),
  model: child("model", struct<{ type: string }>({ type: requiredAttr("type", str) })),
  mac: child("mac", struct<{ mac: string }>({ mac: requiredAttr("address", str) })),
  mtu: child("mtu", struct<{ size: string }>({ size: requiredAttr("size", str) })),
  bootOrder: child("boot", bootOrderType),
  linkState: child("link", struct<{ state: string }>({ state: requiredAttr("state", str) })),
  alias: child("alias", aliasType),
  driver: child(
    "driver",
    struct<InterfaceDriver>({
      name: requiredAttr("name", str),
      queues: attr("queues", uint),
      iommu: attr("iommu", str),
    }),
  ),
  rom: child("rom", struct<{ enabled: string }>({ enabled: requiredAttr("enabled", str) })),
  address: child("address", addressType),
});

// ---- character devices

export interface CharSource {
  mode?: string;
  path?: string;
}
const charSourceType = struct<CharSource>({ mode: attr("mode", str), path: attr("path", str) });

export interface SerialLog {
  file?: string;
  append?: string;
}
export interface Serial {
  type: string;
  target?: { port?: number };
  source?: CharSource;
  alias?: Alias;
  log?: SerialLog;
}
const serialType = struct<Serial>({
  type: requiredAttr("type", str),
  target: child("target", struct<{ port?: number }>({ port: attr("port", uint) })),
  source: child("source", charSourceType),
  alias: child("alias", aliasType),
  log: child("log", struct<SerialLog>({ file: attr("file", str), append: attr("append", str) })),
});

export interface ConsoleTarget {
  type?: string;
  port?: number;
}
export interface Console {
  type: string;
  target?: ConsoleTarget;
  source?: CharSource;
  alias?: Alias;
}
const consoleType = struct<Console>({
  type: requiredAttr("type", str),
  target: child("target", struct<ConsoleTarget>({ type: attr("type", str), port: attr("port", uint) })),
  source: child("source", charSourceType),
  alias: child("alias", aliasType),
});

export interface ChannelTarget {
  name?: string;
  type: string;
  /** Set by libvirt on a running domain: "connected" once the guest side (the agent) opened the port. */
  state?: string;
}
export interface Channel {
  type: string;
  source?: CharSource;
  target?: ChannelTarget;
}
const channelType = struct<Channel>({
  type: requiredAttr("type", str),
  source: child("source", charSourceType),
  target: child(
    "target",
    struct<ChannelTarget>({
      name: attr("name", str),
      type: requiredAttr("type", str),
      state: attr("state", str),
    }),
  ),
});

// ---- controllers, video, graphics, input, balloon, rng

export interface ControllerDriver {
  iothread?: number;
  queues?: number;
  iommu?: string;
}
export interface PCIHole64 {
  value: number;
  unit?: string;
}
export interface Controller {
  type: string;
  index: string;
  model?: string;
  driver?: ControllerDriver;
  alias?: Alias;
  address?: Address;
  pciHole64?: PCIHole64;
}
const controllerType = struct<Controller>({
  type: requiredAttr("type", str),
  index: requiredAttr("index", str),
  model: attr("model", str),
  driver: child(
    "driver",
    struct<ControllerDriver>({
      iothread: attr("iothread", uint),
      queues: attr("queues", uint),
      iommu: attr("iommu", str),
    }),
  ),
  alias: child("alias", aliasType),
  address: child("address", addressType),
  pciHole64: child("pcihole64", struct<PCIHole64>({ value: chardata(uint), unit: attr("unit", str) })),
});

export interface VideoModel {
  type: string;
  heads?: number;
  ram?: number;
  vram?: number;
  vgamem?: number;
}
export interface Video {
  model: VideoModel;
}
const videoType = struct<Video>({
  model: requiredChild(
    "model",
    struct<VideoModel>({
      type: requiredAttr("type", str),
      heads: attr("heads", uint),
      ram: attr("ram", uint),
      vram: attr("vram", uint),
      vgamem: attr("vgamem", uint),
    }),
  ),
});

export interface GraphicsListen {
  type: string;
  address?: string;
  socket?: string;
}
export interface Graphics {
  type: string;
  listen?: GraphicsListen;
}
const graphicsType = struct<Graphics>({
  type: requiredAttr("type", str),
  listen: child(
    "listen",
    struct<GraphicsListen>({
      type: requiredAttr("type", str),
      address: attr("address", str),
      socket: attr("socket", str),
    }),
  ),
});

export interface Input {
  type: string;
  bus: string;
  model?: string;
  alias?: Alias;
}
const inputType = struct<Input>({
  type: requiredAttr("type", str),
  bus: requiredAttr("bus", str),
  model: attr("model", str),
  alias: child("alias", aliasType),
});

export interface MemBalloon {
  model: string;
  freePageReporting?: string;
  stats?: { period: number };
  driver?: { iommu?: string };
}
const memBalloonType = struct<MemBalloon>({
  model: requiredAttr("model", str),
  freePageReporting: attr("freePageReporting", str),
  stats: child("stats", struct<{ period: number }>({ period: requiredAttr("period", uint) })),
  driver: child("driver", struct<{ iommu?: string }>({ iommu: attr("iommu", str) })),
});

export interface RngBackend {
  model: string;
  source: string;
}
export interface Rng {
  model: string;
  backend?: RngBackend;
  driver?: { iommu?: string };
}
const rngType = struct<Rng>({
  model: requiredAttr("model", str),
  backend: child("backend", struct<RngBackend>({ model: requiredAttr("model", str), source: chardata(str) })),
  driver: child("driver", struct<{ iommu?: string }>({ iommu: attr("iommu", str) })),
});

export interface Devices {
  emulator?: string;
  interfaces?: Interface[];
  channels?: Channel[];
  controllers?: Controller[];
  video?: Video[];
  graphics?: Graphics[];
  ballooning?: MemBalloon;
  disks?: Disk[];
  inputs?: Input[];
  serials?: Serial[];
  consoles?: Console[];
  rng?: Rng;
}
export const devicesType = struct<Devices>({
  emulator: textChild("emulator", str),
  interfaces: children("interface", interfaceType),
  channels: children("channel", channelType),
  controllers: children("controller", controllerType),
  video: children("video", videoType),
  graphics: children("graphics", graphicsType),
  ballooning: child("memballoon", memBalloonType),
  disks: children("disk", diskType),
  inputs: children("input", inputType),
  serials: children("serial", serialType),
  consoles: children("console", consoleType),
  rng: child("rng", rngType),
});

/** Element types by their XML name, for marshalling a single device (tests, hotplug). */
export const deviceElementTypes = {
  disk: diskType,
  interface: interfaceType,
  serial: serialType,
  console: consoleType,
  channel: channelType,
  controller: controllerType,
  video: videoType,
  graphics: graphicsType,
  input: inputType,
  memballoon: memBalloonType,
  rng: rngType,
} as const;
