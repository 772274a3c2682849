// TypeScript shapes of cmd.proto's messages as the proto loader produces them (proto field
// names, absent messages as null, absent scalars as zero values), and the Cmd method table.

export interface VMI {
  vmiJson: Buffer;
}

export interface Response {
  success: boolean;
  message: string;
}

export type EmptyRequest = Record<string, never>;

export interface SMBios {
  manufacturer: string;
  product: string;
  version: string;
  sku: string;
  family: string;
}

export interface DiskInfo {
  format: string;
  backingFile: string;
  actualSize: number;
  virtualSize: number;
}

export interface ClusterConfig {
  ExpandDisksEnabled: boolean;
  FreePageReportingDisabled: boolean;
  BochsDisplayForEFIGuests: boolean;
  SerialConsoleLogDisabled: boolean;
  PCINUMAAwareTopologyEnabled: boolean;
  VGPULiveMigrationEnabled: boolean;
  GraceIOVirtualizationEnabled: boolean;
}

export interface CPU {
  id: number;
  siblings: number[];
}
export interface Cell {
  id: number;
  memory: { amount: number; unit: string } | null;
  pages: { count: number; unit: string; size: number }[];
  distances: { id: number; value: number }[];
  cpus: CPU[];
}

export interface VirtualMachineOptions {
  VirtualMachineSMBios: SMBios | null;
  MemBalloonStatsPeriod: number;
  PreallocatedVolumes: string[];
  topology: { numa_cells: Cell[] } | null;
  DisksInfo: Record<string, DiskInfo>;
  ExpandDisksEnabled: boolean;
  clusterConfig: ClusterConfig | null;
  interfaceDomainAttachment: Record<string, string>;
  interfaceMigration: Record<string, { Method: string }>;
  pluginsJson: Buffer;
  GraceHostDeviceAliases: string[];
}

export interface VMIRequest {
  vmi: VMI | null;
  options: VirtualMachineOptions | null;
}

export interface MigrationRequest {
  vmi: VMI | null;
  options: Buffer;
}

export interface FreezeRequest {
  vmi: VMI | null;
  unfreezeTimeoutSeconds: number;
}

export interface MemoryDumpRequest {
  vmi: VMI | null;
  dumpPath: string;
}

export interface InjectLaunchSecretRequest {
  vmi: VMI | null;
  options: Buffer;
}

export interface BackupRequest {
  vmi: VMI | null;
  options: Buffer;
}

export interface RedefineCheckpointRequest {
  vmi: VMI | null;
  checkpoint: Buffer;
}

export interface ExecRequest {
  domainName: string;
  Command: string;
  Args: string[];
  timeoutSeconds: number;
}

export interface GuestPingRequest {
  domainName: string;
  timeoutSeconds: number;
}

/** Which statistics GetVMStats collects: each present (empty) sub-request selects one. */
export type VMStatsRequest = Record<string, Record<string, never> | null>;

interface WithResponse {
  response: Response | null;
}
export interface DomainResponse extends WithResponse {
  domain: string;
}
export interface DomainStatsResponse extends WithResponse {
  domainStats: string;
}
export interface GuestInfoResponse extends WithResponse {
  guestInfoResponse: string;
}
export interface GuestUserListResponse extends WithResponse {
  guestUserListResponse: string;
}
export interface GuestFilesystemsResponse extends WithResponse {
  guestFilesystemsResponse: string;
}
export interface ExecResponse extends WithResponse {
  exitCode: number;
  stdOut: string;
}
export type GuestPingResponse = WithResponse;
export interface QemuVersionResponse extends WithResponse {
  version: string;
}
export interface SEVInfoResponse extends WithResponse {
  sevInfo: Buffer;
}
export interface LaunchMeasurementResponse extends WithResponse {
  launchMeasurement: Buffer;
}
export interface DirtyRateStatsResponse extends WithResponse {
  dirtyRateMbs: number;
}
export interface ScreenshotResponse extends WithResponse {
  mime: string;
  data: Buffer;
}
export interface RedefineCheckpointResponse extends WithResponse {
  checkpointInvalid: boolean;
}
export interface VMStatsResponse extends WithResponse {
  domainStats: DomainStatsResponse | null;
  dirtyRateStats: DirtyRateStatsResponse | null;
  [agentCall: string]: Response | DomainStatsResponse | DirtyRateStatsResponse | null;
}

type Unary<Q, R> = { request: Q; response: R };

/** Every Cmd method with its request and response message (cmd.proto's service, in its order). */
export interface CmdMethods {
  SyncVirtualMachine: Unary<VMIRequest, Response>;
  PauseVirtualMachine: Unary<VMIRequest, Response>;
  UnpauseVirtualMachine: Unary<VMIRequest, Response>;
  FreezeVirtualMachine: Unary<FreezeRequest, Response>;
  UnfreezeVirtualMachine: Unary<VMIRequest, Response>;
  ResetVirtualMachine: Unary<VMIRequest, Response>;
  SoftRebootVirtualMachine: Unary<VMIRequest, Response>;
  ShutdownVirtualMachine: Unary<VMIRequest, Response>;
  KillVirtualMachine: Unary<VMIRequest, Response>;
  DeleteVirtualMachine: Unary<VMIRequest, Response>;
  MigrateVirtualMachine: Unary<MigrationRequest, Response>;
  SyncMigrationTarget: Unary<VMIRequest, Response>;
  CancelVirtualMachineMigration: Unary<VMIRequest, Response>;
  SignalTargetPodCleanup: Unary<VMIRequest, Response>;
  FinalizeVirtualMachineMigration: Unary<VMIRequest, Response>;
  HotplugHostDevices: Unary<VMIRequest, Response>;
  GetDomain: Unary<EmptyRequest, DomainResponse>;
  GetDomainStats: Unary<EmptyRequest, DomainStatsResponse>;
  GetGuestInfo: Unary<EmptyRequest, GuestInfoResponse>;
  GetUsers: Unary<EmptyRequest, GuestUserListResponse>;
  GetFilesystems: Unary<EmptyRequest, GuestFilesystemsResponse>;
  Ping: Unary<EmptyRequest, Response>;
  Exec: Unary<ExecRequest, ExecResponse>;
  GuestPing: Unary<GuestPingRequest, GuestPingResponse>;
  VirtualMachineMemoryDump: Unary<MemoryDumpRequest, Response>;
  GetQemuVersion: Unary<EmptyRequest, QemuVersionResponse>;
  SyncVirtualMachineCPUs: Unary<VMIRequest, Response>;
  SyncVirtualMachineMemory: Unary<VMIRequest, Response>;
  GetSEVInfo: Unary<EmptyRequest, SEVInfoResponse>;
  GetLaunchMeasurement: Unary<VMIRequest, LaunchMeasurementResponse>;
  InjectLaunchSecret: Unary<InjectLaunchSecretRequest, Response>;
  GetDomainDirtyRateStats: Unary<EmptyRequest, DirtyRateStatsResponse>;
  GetScreenshot: Unary<VMIRequest, ScreenshotResponse>;
  BackupVirtualMachine: Unary<BackupRequest, Response>;
  RedefineCheckpoint: Unary<RedefineCheckpointRequest, RedefineCheckpointResponse>;
  GetVMStats: Unary<VMStatsRequest, VMStatsResponse>;
}

export type CmdMethodName = keyof CmdMethods;

/** The method names in the service's order; a test keeps this in step with cmd.proto. */
export const CMD_METHOD_NAMES = [
  "SyncVirtualMachine",
  "PauseVirtualMachine",
  "UnpauseVirtualMachine",
  "FreezeVirtualMachine",
  "UnfreezeVirtualMachine",
  "ResetVirtualMachine",
  "SoftRebootVirtualMachine",
  "ShutdownVirtualMachine",
  "KillVirtualMachine",
  "DeleteVirtualMachine",
  "MigrateVirtualMachine",
  "SyncMigrationTarget",
  "CancelVirtualMachineMigration",
  "SignalTargetPodCleanup",
  "FinalizeVirtualMachineMigration",
  "HotplugHostDevices",
  "GetDomain",
  "GetDomainStats",
  "GetGuestInfo",
  "GetUsers",
  "GetFilesystems",
  "Ping",
  "Exec",
  "GuestPing",
  "VirtualMachineMemoryDump",
  "GetQemuVersion",
  "SyncVirtualMachineCPUs",
  "SyncVirtualMachineMemory",
  "GetSEVInfo",
  "GetLaunchMeasurement",
  "InjectLaunchSecret",
  "GetDomainDirtyRateStats",
  "GetScreenshot",
  "BackupVirtualMachine",
  "RedefineCheckpoint",
  "GetVMStats",
] as const satisfies readonly CmdMethodName[];
