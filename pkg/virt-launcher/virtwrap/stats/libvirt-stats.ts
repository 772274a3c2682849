// The launcher's domain statistics from libvirt (upstream virtwrap/cli GetDomainStats and statsconv): the bulk
// stats of virConnectGetAllDomainStats, the memory figures of virDomainMemoryStats, the domain's memory and
// vCPU count, and each disk's and interface's alias from the domain XML (the names the VMI gave them).
import type { LibvirtClient } from "../../../libvirt/client.js";
import type { RemoteDomainMemoryStat } from "../../../libvirt/generated/remote-protocol.js";
import type { TypedParamValue } from "../../../libvirt/typed-params.js";
import { uuidToString } from "../../../libvirt/uuid.js";
import { unmarshalDomainXML } from "../api/domain-xml.js";
import type {
  DomainStats,
  DomainStatsBlock,
  DomainStatsCPU,
  DomainStatsMemory,
  DomainStatsNet,
  DomainStatsVcpu,
} from "./types.js";
import { VCPU_OFFLINE } from "./types.js";

// libvirt-domain.h's virDomainStatsTypes and virConnectGetAllDomainStatsFlags.
export const VIR_DOMAIN_STATS_CPU_TOTAL = 1 << 1;
export const VIR_DOMAIN_STATS_BALLOON = 1 << 2;
export const VIR_DOMAIN_STATS_VCPU = 1 << 3;
export const VIR_DOMAIN_STATS_INTERFACE = 1 << 4;
export const VIR_DOMAIN_STATS_BLOCK = 1 << 5;
export const VIR_CONNECT_GET_ALL_DOMAINS_STATS_RUNNING = 1 << 4;
export const VIR_CONNECT_GET_ALL_DOMAINS_STATS_PAUSED = 1 << 5;

// libvirt-domain.h's virDomainMemoryStatTags.
export const VIR_DOMAIN_MEMORY_STAT_SWAP_IN = 0;
export const VIR_DOMAIN_MEMORY_STAT_SWAP_OUT = 1;
export const VIR_DOMAIN_MEMORY_STAT_MAJOR_FAULT = 2;
export const VIR_DOMAIN_MEMORY_STAT_MINOR_FAULT = 3;
export const VIR_DOMAIN_MEMORY_STAT_UNUSED = 4;
export const VIR_DOMAIN_MEMORY_STAT_AVAILABLE = 5;
export const VIR_DOMAIN_MEMORY_STAT_ACTUAL_BALLOON = 6;
export const VIR_DOMAIN_MEMORY_STAT_RSS = 7;
export const VIR_DOMAIN_MEMORY_STAT_USABLE = 8;
export const VIR_DOMAIN_MEMORY_STAT_DISK_CACHES = 10;
export const VIR_DOMAIN_MEMORY_STAT_NR = 13;

// The groups upstream asks for, of running and paused domains (its dirty rate is not read here).
const STATS =
  VIR_DOMAIN_STATS_BALLOON |
  VIR_DOMAIN_STATS_CPU_TOTAL |
  VIR_DOMAIN_STATS_VCPU |
  VIR_DOMAIN_STATS_INTERFACE |
  VIR_DOMAIN_STATS_BLOCK;
const FLAGS = VIR_CONNECT_GET_ALL_DOMAINS_STATS_RUNNING | VIR_CONNECT_GET_ALL_DOMAINS_STATS_PAUSED;

export type StatsConnection = Pick<
  LibvirtClient,
  "connectGetAllDomainStats" | "domainMemoryStats" | "domainGetInfo" | "domainGetXMLDesc"
>;

type Params = Record<string, TypedParamValue>;

/** A numeric parameter, undefined when absent or not a number. */
function numberParam(params: Params, field: string): number | undefined {
  const value = params[field];
  return typeof value === "number" || typeof value === "bigint" ? Number(value) : undefined;
}

function stringParam(params: Params, field: string): string | undefined {
  const value = params[field];
  return typeof value === "string" ? value : undefined;
}

/** `[Set, value]` of a numeric field, libvirt-go's pairs. */
function figure(params: Params, field: string): [boolean, number] {
  const value = numberParam(params, field);
  return [value !== undefined, value ?? 0];
}

/** Whether any parameter starts with `prefix` (libvirt-go leaves an unreported entry at its zero value). */
const anyUnder = (params: Params, prefix: string) =>
  Object.keys(params).some((key) => key.startsWith(prefix));

function cpuStats(params: Params): DomainStatsCPU {
  const [TimeSet, Time] = figure(params, "cpu.time");
  const [UserSet, User] = figure(params, "cpu.user");
  const [SystemSet, System] = figure(params, "cpu.system");
  return { TimeSet, Time, UserSet, User, SystemSet, System };
}

function vcpuStats(params: Params): DomainStatsVcpu[] {
  const count = numberParam(params, "vcpu.maximum") ?? numberParam(params, "vcpu.current") ?? 0;
  return Array.from({ length: count }, (_, index) => {
    const prefix = `vcpu.${index}.`;
    // A vCPU libvirt says nothing of is offline.
    if (!anyUnder(params, prefix)) {
      return { ...zeroVcpu(), StateSet: true, State: VCPU_OFFLINE };
    }
    const [StateSet, State] = figure(params, `${prefix}state`);
    const [TimeSet, Time] = figure(params, `${prefix}time`);
    const [WaitSet, Wait] = figure(params, `${prefix}wait`);
    const [DelaySet, Delay] = figure(params, `${prefix}delay`);
    return { StateSet, State, TimeSet, Time, WaitSet, Wait, DelaySet, Delay };
  });
}

const zeroVcpu = (): DomainStatsVcpu => ({
  StateSet: false,
  State: 0,
  TimeSet: false,
  Time: 0,
  WaitSet: false,
  Wait: 0,
  DelaySet: false,
  Delay: 0,
});

function netStats(params: Params, aliases: ReadonlyMap<string, string>): DomainStatsNet[] {
  const count = numberParam(params, "net.count") ?? 0;
  return Array.from({ length: count }, (_, index) => {
    const prefix = `net.${index}.`;
    const name = stringParam(params, `${prefix}name`);
    const alias = name === undefined ? undefined : aliases.get(name);
    const [RxBytesSet, RxBytes] = figure(params, `${prefix}rx.bytes`);
    const [RxPktsSet, RxPkts] = figure(params, `${prefix}rx.pkts`);
    const [RxErrsSet, RxErrs] = figure(params, `${prefix}rx.errs`);
    const [RxDropSet, RxDrop] = figure(params, `${prefix}rx.drop`);
    const [TxBytesSet, TxBytes] = figure(params, `${prefix}tx.bytes`);
    const [TxPktsSet, TxPkts] = figure(params, `${prefix}tx.pkts`);
    const [TxErrsSet, TxErrs] = figure(params, `${prefix}tx.errs`);
    const [TxDropSet, TxDrop] = figure(params, `${prefix}tx.drop`);
    return {
      NameSet: name !== undefined,
      Name: name ?? "",
      AliasSet: alias !== undefined,
      Alias: alias ?? "",
      ...{ RxBytesSet, RxBytes, RxPktsSet, RxPkts, RxErrsSet, RxErrs, RxDropSet, RxDrop },
      ...{ TxBytesSet, TxBytes, TxPktsSet, TxPkts, TxErrsSet, TxErrs, TxDropSet, TxDrop },
    };
  });
}

function blockStats(params: Params, aliases: ReadonlyMap<string, string>): DomainStatsBlock[] {
  const count = numberParam(params, "block.count") ?? 0;
  return Array.from({ length: count }, (_, index) => {
    const prefix = `block.${index}.`;
    const name = stringParam(params, `${prefix}name`);
    const path = stringParam(params, `${prefix}path`);
    const [BackingIndexSet, BackingIndex] = figure(params, `${prefix}backingIndex`);
    const [RdReqsSet, RdReqs] = figure(params, `${prefix}rd.reqs`);
    const [RdBytesSet, RdBytes] = figure(params, `${prefix}rd.bytes`);
    const [RdTimesSet, RdTimes] = figure(params, `${prefix}rd.times`);
    const [WrReqsSet, WrReqs] = figure(params, `${prefix}wr.reqs`);
    const [WrBytesSet, WrBytes] = figure(params, `${prefix}wr.bytes`);
    const [WrTimesSet, WrTimes] = figure(params, `${prefix}wr.times`);
    const [FlReqsSet, FlReqs] = figure(params, `${prefix}fl.reqs`);
    const [FlTimesSet, FlTimes] = figure(params, `${prefix}fl.times`);
    const [ErrorsSet, Errors] = figure(params, `${prefix}errors`);
    const [AllocationSet, Allocation] = figure(params, `${prefix}allocation`);
    const [CapacitySet, Capacity] = figure(params, `${prefix}capacity`);
    const [PhysicalSet, Physical] = figure(params, `${prefix}physical`);
    return {
      NameSet: name !== undefined,
      Name: name ?? "",
      Alias: (name === undefined ? undefined : aliases.get(name)) ?? "",
      ...{ BackingIndexSet, BackingIndex, PathSet: path !== undefined, Path: path ?? "" },
      ...{ RdReqsSet, RdReqs, RdBytesSet, RdBytes, RdTimesSet, RdTimes },
      ...{ WrReqsSet, WrReqs, WrBytesSet, WrBytes, WrTimesSet, WrTimes },
      ...{ FlReqsSet, FlReqs, FlTimesSet, FlTimes, ErrorsSet, Errors },
      ...{ AllocationSet, Allocation, CapacitySet, Capacity, PhysicalSet, Physical },
    };
  });
}

const MEMORY_FIELDS: Record<number, keyof DomainStatsMemory> = {
  [VIR_DOMAIN_MEMORY_STAT_UNUSED]: "Unused",
  [VIR_DOMAIN_MEMORY_STAT_DISK_CACHES]: "Cached",
  [VIR_DOMAIN_MEMORY_STAT_AVAILABLE]: "Available",
  [VIR_DOMAIN_MEMORY_STAT_ACTUAL_BALLOON]: "ActualBalloon",
  [VIR_DOMAIN_MEMORY_STAT_RSS]: "RSS",
  [VIR_DOMAIN_MEMORY_STAT_SWAP_IN]: "SwapIn",
  [VIR_DOMAIN_MEMORY_STAT_SWAP_OUT]: "SwapOut",
  [VIR_DOMAIN_MEMORY_STAT_MAJOR_FAULT]: "MajorFault",
  [VIR_DOMAIN_MEMORY_STAT_MINOR_FAULT]: "MinorFault",
  [VIR_DOMAIN_MEMORY_STAT_USABLE]: "Usable",
};

function memoryStats(
  stats: readonly RemoteDomainMemoryStat[],
  totalKiB: number | undefined,
): DomainStatsMemory {
  const memory: Record<string, number | boolean> = {};
  for (const name of [...Object.values(MEMORY_FIELDS), "Total"]) {
    memory[`${name}Set`] = false;
    memory[name] = 0;
  }
  if (totalKiB !== undefined) {
    memory["TotalSet"] = true;
    memory["Total"] = totalKiB;
  }
  for (const { tag, val } of stats) {
    const name = MEMORY_FIELDS[tag];
    if (name === undefined) continue;
    memory[`${name}Set`] = true;
    memory[name] = Number(val);
  }
  return memory as unknown as DomainStatsMemory;
}

/**
 * Target device (vda, tap0) → the alias the VMI named it by, with the user prefix taken off. XML this port
 * cannot decode leaves the map empty: the figures then go by device name rather than not at all.
 */
export function deviceAliases(domainXML: string): Map<string, string> {
  let devices;
  try {
    devices = unmarshalDomainXML(domainXML).devices;
  } catch {
    return new Map();
  }
  const aliases = new Map<string, string>();
  for (const iface of devices.interfaces ?? []) {
    if (iface.target) aliases.set(iface.target.device, iface.alias?.name ?? "");
  }
  for (const disk of devices.disks ?? []) {
    if (disk.target.device !== undefined) aliases.set(disk.target.device, disk.alias?.name ?? "");
  }
  return aliases;
}

export interface DomainStatsInput {
  name: string;
  uuid: string;
  params: Params;
  memory: readonly RemoteDomainMemoryStat[];
  info?: { memory: bigint | number; nrVirtCpu: number };
  aliases: ReadonlyMap<string, string>;
}

export function convertDomainStats(input: DomainStatsInput): DomainStats {
  const { params, aliases, info } = input;
  return {
    Name: input.name,
    UUID: input.uuid,
    Cpu: cpuStats(params),
    Memory: memoryStats(input.memory, info === undefined ? undefined : Number(info.memory)),
    Vcpu: vcpuStats(params),
    Net: netStats(params, aliases),
    Block: blockStats(params, aliases),
    NrVirtCpu: info?.nrVirtCpu ?? 0,
  };
}

/** The statistics of the launcher's (running or paused) domain, undefined when there is none. */
export async function readDomainStats(connection: StatsConnection): Promise<DomainStats | undefined> {
  const [record] = await connection.connectGetAllDomainStats(STATS, FLAGS);
  if (!record) return undefined;
  const { dom, params } = record;
  const [memory, xml, info] = await Promise.all([
    connection.domainMemoryStats(dom, VIR_DOMAIN_MEMORY_STAT_NR),
    connection.domainGetXMLDesc(dom, 0),
    connection.domainGetInfo(dom),
  ]);
  return convertDomainStats({
    name: dom.name,
    uuid: uuidToString(dom.uuid),
    params,
    memory,
    info,
    aliases: deviceAliases(xml),
  });
}
