// What a source launcher tells libvirt when it migrates its domain (upstream
// live-migration-source.go: generateMigrationFlags, generateMigrationParams and their helpers),
// as pure functions over the VMI, the handler's migration options and the domain's disks.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { Quantity } from "../../defaults/quantity.js";
import * as migrate from "../../libvirt/migrate.js";
import type { MigrateParameters } from "../../libvirt/migrate.js";
import type { Disk } from "./api/schema.js";
import type { MigrationOptions } from "../../handler-launcher-com/cmd/v1/migration-options.js";

export {
  MigrationOptionsSchema,
  parseMigrationOptions,
  type MigrationOptions,
} from "../../handler-launcher-com/cmd/v1/migration-options.js";
// The handler's proxies and the launcher agree on these names; upstream's launcher imports them too.
import {
  LibvirtBlockMigrationPort,
  LibvirtDirectMigrationPort,
  constructProxyKey,
  sourceUnixFile,
} from "../../util/migration-proxy/keys.js";

/** Upstream's functional-test annotations: the launcher fails the migration, or its target preparation. */
export const FuncTestForceLauncherMigrationFailureAnnotation =
  "kubevirt.io/func-test-force-launcher-migration-failure";
export const FuncTestBlockLauncherPrepareMigrationTargetAnnotation =
  "kubevirt.io/func-test-block-migration-target-preparation";

/** Upstream vcpu.QuantityToMebiByte: MiB rounded to nearest, anything below 1 MiB but above 0 is 1. */
export function quantityToMebiByte(text: string): number {
  const bytes = Number(Quantity.parse(text).value());
  if (bytes === 0) return 0;
  if (bytes < 1 << 20) return 1;
  return Math.floor(bytes / (1 << 20) + 0.5);
}

/** Parallel connections are used unless post-copy is allowed (the two do not mix in QEMU). */
export function shouldConfigureParallelMigration(options: MigrationOptions): number | undefined {
  if (options.AllowPostCopy) return undefined;
  return options.ParallelMigrationThreads ?? undefined;
}

export function isBlockMigration(vmi: VirtualMachineInstance): boolean {
  return vmi.status?.migrationMethod === "BlockMigration";
}

/** Upstream generateMigrationFlags: live, peer to peer, the domain persisted on the destination. */
export function generateMigrationFlags(
  blockMigration: boolean,
  migratePaused: boolean,
  options: MigrationOptions,
): number {
  let flags = migrate.VIR_MIGRATE_LIVE | migrate.VIR_MIGRATE_PEER2PEER | migrate.VIR_MIGRATE_PERSIST_DEST;
  if (blockMigration) flags |= migrate.VIR_MIGRATE_NON_SHARED_INC;
  if (options.UnsafeMigration) flags |= migrate.VIR_MIGRATE_UNSAFE;
  if (options.AllowAutoConverge) flags |= migrate.VIR_MIGRATE_AUTO_CONVERGE;
  if (options.AllowPostCopy) flags |= migrate.VIR_MIGRATE_POSTCOPY;
  if (migratePaused) flags |= migrate.VIR_MIGRATE_PAUSED;
  if (shouldConfigureParallelMigration(options) !== undefined) flags |= migrate.VIR_MIGRATE_PARALLEL;
  return flags;
}

/** The migration this launcher takes part in: the source's own uid when the VMI has a source state. */
export function migrationUID(vmi: VirtualMachineInstance): string {
  const state = vmi.status?.migrationState;
  return state?.sourceState?.migrationUID ?? state?.migrationUid ?? "";
}

/** Upstream generateDomainName: the target's namespace and name when set (decentralized migration). */
export function generateDomainName(vmi: VirtualMachineInstance): string {
  const target = vmi.status?.migrationState?.targetState;
  const namespace =
    target?.domainNamespace && target.domainName ? target.domainNamespace : vmi.metadata?.namespace;
  const name = target?.domainNamespace && target.domainName ? target.domainName : vmi.metadata?.name;
  return `${namespace ?? ""}_${name ?? ""}`;
}

interface MigrationVolumes {
  shared: Set<string>;
  generated: Set<string>;
  localToMigrate: Set<string>;
}

/** Upstream classifyVolumesForMigration: which volumes are shared, generated, or copied on purpose. */
export function classifyVolumesForMigration(vmi: VirtualMachineInstance): MigrationVolumes {
  const volumes: MigrationVolumes = { shared: new Set(), generated: new Set(), localToMigrate: new Set() };
  const migrated = new Set((vmi.status?.migratedVolumes ?? []).map((volume) => volume.volumeName));
  for (const volume of vmi.spec.volumes ?? []) {
    if (volume.persistentVolumeClaim || volume.dataVolume) {
      (migrated.has(volume.name) ? volumes.localToMigrate : volumes.shared).add(volume.name);
    } else if (volume.hostDisk) {
      if (migrated.has(volume.name)) volumes.localToMigrate.add(volume.name);
      else if (volume.hostDisk.shared === true) volumes.shared.add(volume.name);
    } else if (
      volume.configMap ||
      volume.secret ||
      volume.downwardAPI ||
      volume.serviceAccount ||
      volume.cloudInitNoCloud ||
      volume.cloudInitConfigDrive ||
      volume.containerDisk
    ) {
      volumes.generated.add(volume.name);
    }
  }
  return volumes;
}

/** Upstream getDiskTargetsForMigration: the target devices whose contents are copied (not shared, not CD-ROMs). */
export function getDiskTargetsForMigration(disks: readonly Disk[], vmi: VirtualMachineInstance): string[] {
  const volumes = classifyVolumesForMigration(vmi);
  return disks.flatMap((disk) => {
    const name = disk.alias?.name ?? "";
    if (disk.device === "cdrom") return [];
    if (disk.readOnly && !volumes.generated.has(name)) return [];
    if ((disk.type !== "file" && disk.type !== "block") || volumes.shared.has(name)) return [];
    return disk.target.device ? [disk.target.device] : [];
  });
}

/**
 * libvirt's connection to the destination, through the handler's proxy. This port's launcher always
 * runs libvirt in session mode, which upstream uses for non-root VMIs.
 */
export function destinationURI(vmi: VirtualMachineInstance, virtShareDir: string): string {
  return `qemu+unix:///session?socket=${sourceUnixFile(virtShareDir, vmi.metadata?.uid ?? "")}`;
}

/**
 * Upstream generateMigrationParams: QEMU's stream to the direct-migration proxy socket, the
 * destination's definition (the migratable XML, carrying the target VMI's uid where it has its
 * own), and the disks to copy with their stream's socket.
 */
export function generateMigrationParams(
  vmi: VirtualMachineInstance,
  options: MigrationOptions,
  virtShareDir: string,
  migratableXML: string,
  disks: readonly Disk[],
): MigrateParameters {
  const uid = vmi.metadata?.uid ?? "";
  const targetUID = vmi.status?.migrationState?.targetState?.virtualMachineInstanceUID;
  const xml = targetUID && uid ? migratableXML.replaceAll(uid, targetUID) : migratableXML;
  const bandwidth = quantityToMebiByte(options.Bandwidth);
  const parallel = shouldConfigureParallelMigration(options);
  const params: MigrateParameters = {
    uri: `unix://${sourceUnixFile(virtShareDir, constructProxyKey(uid, LibvirtDirectMigrationPort))}`,
    destXML: xml,
    persistXML: xml,
    destName: generateDomainName(vmi),
    ...(bandwidth > 0 ? { bandwidth } : {}),
    ...(parallel !== undefined ? { parallelConnections: parallel } : {}),
  };
  const copyDisks = getDiskTargetsForMigration(disks, vmi);
  if (copyDisks.length > 0) {
    params.migrateDisks = copyDisks;
    params.disksURI = `unix://${sourceUnixFile(virtShareDir, constructProxyKey(uid, LibvirtBlockMigrationPort))}`;
  }
  return params;
}

/**
 * Upstream getVMIMigrationDataSize without the disks: the guest's memory in GB (rounded up), which
 * with CompletionTimeoutPerGiB gives the time the migration may take.
 */
export function migrationDataSizeGB(vmi: VirtualMachineInstance): number {
  const memory = vmi.spec.domain.memory?.guest ?? vmi.spec.domain.resources?.requests?.["memory"];
  if (memory === undefined) return 0;
  const bytes = Quantity.parse(String(memory)).value();
  return Number((bytes + 999_999_999n) / 1_000_000_000n);
}
