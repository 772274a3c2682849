// A domain's statistics as the launcher hands them to virt-handler in GetDomainStats (upstream
// virtwrap/stats): JSON with Go's field names, each figure next to a flag saying whether libvirt reported it.
// Counters are plain numbers: exact up to 2^53, far beyond what a guest moves.

export const VCPU_OFFLINE = 0;
export const VCPU_RUNNING = 1;
export const VCPU_BLOCKED = 2;

export interface DomainStatsCPU {
  TimeSet: boolean;
  Time: number;
  UserSet: boolean;
  User: number;
  SystemSet: boolean;
  System: number;
}

export interface DomainStatsVcpu {
  StateSet: boolean;
  State: number;
  TimeSet: boolean;
  Time: number;
  WaitSet: boolean;
  Wait: number;
  DelaySet: boolean;
  Delay: number;
}

export interface DomainStatsNet {
  NameSet: boolean;
  Name: string;
  AliasSet: boolean;
  Alias: string;
  RxBytesSet: boolean;
  RxBytes: number;
  RxPktsSet: boolean;
  RxPkts: number;
  RxErrsSet: boolean;
  RxErrs: number;
  RxDropSet: boolean;
  RxDrop: number;
  TxBytesSet: boolean;
  TxBytes: number;
  TxPktsSet: boolean;
  TxPkts: number;
  TxErrsSet: boolean;
  TxErrs: number;
  TxDropSet: boolean;
  TxDrop: number;
}

export interface DomainStatsBlock {
  NameSet: boolean;
  Name: string;
  Alias: string;
  BackingIndexSet: boolean;
  BackingIndex: number;
  PathSet: boolean;
  Path: string;
  RdReqsSet: boolean;
  RdReqs: number;
  RdBytesSet: boolean;
  RdBytes: number;
  RdTimesSet: boolean;
  RdTimes: number;
  WrReqsSet: boolean;
  WrReqs: number;
  WrBytesSet: boolean;
  WrBytes: number;
  WrTimesSet: boolean;
  WrTimes: number;
  FlReqsSet: boolean;
  FlReqs: number;
  FlTimesSet: boolean;
  FlTimes: number;
  ErrorsSet: boolean;
  Errors: number;
  AllocationSet: boolean;
  Allocation: number;
  CapacitySet: boolean;
  Capacity: number;
  PhysicalSet: boolean;
  Physical: number;
}

/** In KiB, from virDomainMemoryStats; Total is the domain's current memory. */
export interface DomainStatsMemory {
  UnusedSet: boolean;
  Unused: number;
  CachedSet: boolean;
  Cached: number;
  AvailableSet: boolean;
  Available: number;
  ActualBalloonSet: boolean;
  ActualBalloon: number;
  RSSSet: boolean;
  RSS: number;
  SwapInSet: boolean;
  SwapIn: number;
  SwapOutSet: boolean;
  SwapOut: number;
  MajorFaultSet: boolean;
  MajorFault: number;
  MinorFaultSet: boolean;
  MinorFault: number;
  UsableSet: boolean;
  Usable: number;
  TotalSet: boolean;
  Total: number;
}

export interface DomainStatsLoad {
  Load1mSet: boolean;
  Load1m: number;
  Load5mSet: boolean;
  Load5m: number;
  Load15mSet: boolean;
  Load15m: number;
}

export interface DomainStats {
  Name: string;
  UUID: string;
  Cpu: DomainStatsCPU | null;
  Memory: DomainStatsMemory | null;
  Vcpu: DomainStatsVcpu[] | null;
  Net: DomainStatsNet[] | null;
  Block: DomainStatsBlock[] | null;
  NrVirtCpu: number;
  /** Reported by the guest agent; absent until this port reads it. */
  Load?: DomainStatsLoad | null;
}
