// Live migration's part of libvirt's public API (include/libvirt/libvirt-domain.h, libvirt 9.0):
// the virDomainMigrateFlags bits, the VIR_MIGRATE_PARAM_* typed-parameter names, the job
// operations, and the parameters virDomainMigrateToURI3 takes turned into typed parameters.
// They are kept here by hand because hack/libvirt-gen's definitions do not list them yet.
import type { RemoteTypedParam } from "./generated/remote-protocol.js";
import { intParam, stringParam, ullongParam } from "./typed-params.js";

export const VIR_MIGRATE_LIVE = 1 << 0;
export const VIR_MIGRATE_PEER2PEER = 1 << 1;
export const VIR_MIGRATE_TUNNELLED = 1 << 2;
export const VIR_MIGRATE_PERSIST_DEST = 1 << 3;
export const VIR_MIGRATE_UNDEFINE_SOURCE = 1 << 4;
export const VIR_MIGRATE_PAUSED = 1 << 5;
export const VIR_MIGRATE_NON_SHARED_DISK = 1 << 6;
export const VIR_MIGRATE_NON_SHARED_INC = 1 << 7;
export const VIR_MIGRATE_UNSAFE = 1 << 9;
export const VIR_MIGRATE_AUTO_CONVERGE = 1 << 13;
export const VIR_MIGRATE_POSTCOPY = 1 << 15;
export const VIR_MIGRATE_PARALLEL = 1 << 17;

/** virDomainJobOperation: what the domain's current job is doing. */
export const VIR_DOMAIN_JOB_OPERATION_UNKNOWN = 0;
export const VIR_DOMAIN_JOB_OPERATION_MIGRATION_IN = 2;
export const VIR_DOMAIN_JOB_OPERATION_MIGRATION_OUT = 3;

/** Typed-parameter names of virDomainGetJobStats that the migration monitor reads. */
export const VIR_DOMAIN_JOB_OPERATION = "operation";
export const VIR_DOMAIN_JOB_DATA_REMAINING = "data_remaining";
export const VIR_DOMAIN_JOB_DATA_TOTAL = "data_total";
export const VIR_DOMAIN_JOB_TIME_ELAPSED = "time_elapsed";
export const VIR_DOMAIN_JOB_MEMORY_BPS = "memory_bps";

/** What virDomainMigrateToURI3 is told (upstream's libvirt.DomainMigrateParameters, the fields KubeVirt sets). */
export interface MigrateParameters {
  /** Where QEMU sends the guest's state ("unix:///path" or "tcp://host:port"). */
  uri?: string;
  /** The domain's name on the destination. */
  destName?: string;
  /** The definition the destination starts the domain with. */
  destXML?: string;
  /** The definition the destination keeps once the domain has arrived (with PERSIST_DEST). */
  persistXML?: string;
  /** MiB/s; 0 leaves libvirt's default (unlimited). */
  bandwidth?: number;
  parallelConnections?: number;
  /** Target devices of the disks whose contents are copied (block migration). */
  migrateDisks?: string[];
  /** Where QEMU sends the copied disks. */
  disksURI?: string;
}

/** The parameters in libvirt's typed form (VIR_MIGRATE_PARAM_* names), unset ones left out. */
export function migrateParamsToTypedParams(params: MigrateParameters): RemoteTypedParam[] {
  const typed: RemoteTypedParam[] = [];
  if (params.uri !== undefined) typed.push(stringParam("migrate_uri", params.uri));
  if (params.destName !== undefined) typed.push(stringParam("destination_name", params.destName));
  if (params.destXML !== undefined) typed.push(stringParam("destination_xml", params.destXML));
  if (params.persistXML !== undefined) typed.push(stringParam("persistent_xml", params.persistXML));
  if (params.bandwidth !== undefined && params.bandwidth > 0)
    typed.push(ullongParam("bandwidth", BigInt(params.bandwidth)));
  if (params.parallelConnections !== undefined)
    typed.push(intParam("parallel.connections", params.parallelConnections));
  // A list parameter is the same name repeated, once per value.
  for (const disk of params.migrateDisks ?? []) typed.push(stringParam("migrate_disks", disk));
  if (params.disksURI !== undefined) typed.push(stringParam("disks_uri", params.disksURI));
  return typed;
}
