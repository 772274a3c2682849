// Whether a VMI could live-migrate, as upstream virt-handler's updateLiveMigrationConditions reports it on
// every status update: LiveMigratable (the first blocker found, in upstream's order), StorageLiveMigratable
// (every blocker but the disks, joined) and status.migrationMethod (BlockMigration when a disk is local to
// the node). The blockers and their messages are upstream's.
import type {
  InterfaceBindingPlugin,
  VirtualMachineInstance,
  VirtualMachineInstanceCondition,
} from "../api/generated/v1.js";
import { hasSharedAccessModes } from "../storage/types/pvc.js";

export const LIVE_MIGRATABLE = "LiveMigratable";
export const STORAGE_LIVE_MIGRATABLE = "StorageLiveMigratable";
export const BLOCK_MIGRATION = "BlockMigration";
export const LIVE_MIGRATION = "LiveMigration";
/** Upstream's AllowPodBridgeNetworkLiveMigrationAnnotation. */
export const ALLOW_POD_BRIDGE_NETWORK_LIVE_MIGRATION = "kubevirt.io/allow-pod-bridge-network-live-migration";

export const MigrationReason = {
  disks: "DisksNotLiveMigratable",
  interface: "InterfaceNotLiveMigratable",
  cpuMode: "CPUModeLiveMigratable",
  hostDevice: "HostDeviceNotLiveMigratable",
  sev: "SEVNotLiveMigratable",
  secureExecution: "SecureExecutionNotLiveMigratable",
  tdx: "TDXNotLiveMigratable",
  tscFrequency: "NoTSCFrequencyNotLiveMigratable",
  hypervPassthrough: "HypervPassthroughNotLiveMigratable",
  persistentReservation: "PersistentReservationNotLiveMigratable",
  notMigratable: "NotMigratable",
} as const;

export interface MigratabilityContext {
  /** The KubeVirt CR's network.binding plugins: one with `migration` set migrates. */
  bindingPlugins: Readonly<Record<string, InterfaceBindingPlugin>>;
  /** The node's host-model CPU (libvirt's domain capabilities); empty when libvirt offers none. */
  hostCpuModel: string;
}

type Blocker = { reason: string; message: string };

const notShared = (claim: string) =>
  `cannot migrate VMI: PVC ${claim} is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`;

/** Upstream's VerifyVMIMigratable: the pod network's interface must use a binding that can move. */
function interfaceBlocker(vmi: VirtualMachineInstance, ctx: MigratabilityContext): string | undefined {
  const interfaces = vmi.spec.domain.devices.interfaces ?? [];
  if (interfaces.length === 0) return undefined;
  const podNetwork = (vmi.spec.networks ?? []).find((network) => network.pod);
  if (!podNetwork) return undefined;
  const primary = interfaces.find((iface) => iface.name === podNetwork.name);
  if (!primary) return `no primary interface found for network ${podNetwork.name}`;
  if (primary.masquerade || primary.passtBinding) return undefined;
  if (primary.bridge && vmi.metadata?.annotations?.[ALLOW_POD_BRIDGE_NETWORK_LIVE_MIGRATION] !== undefined)
    return undefined;
  if (primary.binding && ctx.bindingPlugins[primary.binding.name]?.migration) return undefined;
  return "cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network";
}

/** Upstream's TSC requirement: Hyper-V reenlightenment needs the TSC frequency the cluster did not expose. */
function tscBlocker(vmi: VirtualMachineInstance): string | undefined {
  const features = vmi.spec.domain.features;
  const invtsc = (vmi.spec.domain.cpu?.features ?? []).some(
    (feature) => feature.name === "invtsc" && (feature.policy === "require" || feature.policy === "force"),
  );
  // invtsc makes the frequency a boot requirement, not a migration one.
  if (invtsc || features?.hyperv?.reenlightenment?.enabled !== true) return undefined;
  if ((vmi.status?.topologyHints?.tscFrequency ?? 0) > 0) return undefined;
  return "HyperV Reenlightenment VMIs cannot migrate when TSC Frequency is not exposed on the cluster: guest timers might be inconsistent";
}

/** Everything but the disks, in upstream's order; secure execution blocks LiveMigratable only. */
function otherBlockers(
  vmi: VirtualMachineInstance,
  ctx: MigratabilityContext,
  withSecureExecution: boolean,
): Blocker[] {
  const blockers: Blocker[] = [];
  const add = (reason: string, message: string | undefined) => {
    if (message !== undefined) blockers.push({ reason, message });
  };
  const { domain } = vmi.spec;
  add(MigrationReason.interface, interfaceBlocker(vmi, ctx));
  if (domain.cpu?.model === "host-model" && ctx.hostCpuModel === "") {
    add(
      MigrationReason.cpuMode,
      `the node "${vmi.status?.nodeName ?? ""}" does not allow migration with host-model`,
    );
  }
  if ((domain.devices.hostDevices ?? []).length > 0 || (domain.devices.gpus ?? []).length > 0)
    add(MigrationReason.hostDevice, "VMI uses a PCI host devices");
  const security = domain.launchSecurity;
  if (security?.sev || security?.snp) add(MigrationReason.sev, "VMI uses SEV");
  else if (security?.tdx) add(MigrationReason.tdx, "VMI uses TDX");
  if (withSecureExecution && security !== undefined && vmi.spec.architecture === "s390x")
    add(MigrationReason.secureExecution, "VMI uses Secure Execution");
  if ((domain.devices.disks ?? []).some((disk) => disk.lun?.reservation))
    add(MigrationReason.persistentReservation, "VMI uses SCSI persistent reservation");
  add(MigrationReason.tscFrequency, tscBlocker(vmi));
  if (domain.features?.hypervPassthrough?.enabled === true)
    add(MigrationReason.hypervPassthrough, "VMI uses hyperv passthrough");
  return blockers;
}

/** Upstream's checkVolumesForMigration: whether a disk must be copied, and what stops the migration. */
export function checkVolumesForMigration(vmi: VirtualMachineInstance): {
  blockMigration: boolean;
  error?: string;
} {
  const statusByName = new Map((vmi.status?.volumeStatus ?? []).map((status) => [status.name, status]));
  const migrated = new Set((vmi.status?.migratedVolumes ?? []).map((volume) => volume.volumeName));
  const filesystems = new Set((vmi.spec.domain.devices.filesystems ?? []).map((fs) => fs.name));
  const readOnlyCDRoms = new Set(
    (vmi.spec.domain.devices.disks ?? [])
      .filter((disk) => disk.cdrom && disk.cdrom.readonly !== false)
      .map((disk) => disk.name),
  );
  let blockMigration = migrated.size > 0;
  for (const volume of vmi.spec.volumes ?? []) {
    const claimInfo = statusByName.get(volume.name)?.persistentVolumeClaimInfo;
    const claim = volume.persistentVolumeClaim?.claimName ?? volume.dataVolume?.name;
    if (claim !== undefined) {
      if (!claimInfo) {
        return {
          blockMigration: true,
          error: `cannot migrate VMI: Unable to determine if PVC ${claim} is shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)`,
        };
      }
      if (!hasSharedAccessModes(claimInfo.accessModes) && !migrated.has(volume.name))
        return { blockMigration: true, error: notShared(claim) };
    } else if (volume.hostDisk) {
      // A Filesystem PVC the handler turned into a hostDisk carries its claim's status.
      if (claimInfo) {
        if (!hasSharedAccessModes(claimInfo.accessModes) && !migrated.has(volume.name))
          return { blockMigration: true, error: notShared(claimInfo.claimName ?? "") };
        continue;
      }
      if (volume.hostDisk.shared !== true)
        return { blockMigration: true, error: "cannot migrate VMI with non-shared HostDisk" };
    } else {
      if (filesystems.has(volume.name) || readOnlyCDRoms.has(volume.name)) continue;
      blockMigration = true;
    }
  }
  return { blockMigration };
}

const migratable = (): VirtualMachineInstanceCondition => ({ type: LIVE_MIGRATABLE, status: "True" });
const notMigratable = ({ reason, message }: Blocker): VirtualMachineInstanceCondition => ({
  type: LIVE_MIGRATABLE,
  status: "False",
  message,
  reason,
});

/** Upstream's calculateLiveMigrationCondition: the condition and whether the migration copies disks. */
export function liveMigrationCondition(
  vmi: VirtualMachineInstance,
  ctx: MigratabilityContext,
): { condition: VirtualMachineInstanceCondition; blockMigration: boolean } {
  const volumes = checkVolumesForMigration(vmi);
  const blockers = otherBlockers(vmi, ctx, true);
  const first =
    blockers[0] ?? (volumes.error ? { reason: MigrationReason.disks, message: volumes.error } : undefined);
  return { condition: first ? notMigratable(first) : migratable(), blockMigration: volumes.blockMigration };
}

/** Upstream's calculateLiveStorageMigrationCondition: all blockers but the disks, one message. */
export function storageLiveMigrationCondition(
  vmi: VirtualMachineInstance,
  ctx: MigratabilityContext,
): VirtualMachineInstanceCondition {
  const blockers = otherBlockers(vmi, ctx, false);
  if (blockers.length === 0) return { type: STORAGE_LIVE_MIGRATABLE, status: "True" };
  return {
    type: STORAGE_LIVE_MIGRATABLE,
    status: "False",
    message: blockers.map(({ reason, message }) => `${reason}: ${message}`).join(", "),
    reason: MigrationReason.notMigratable,
  };
}

/** These conditions carry no times: the stored ones' null times are not a difference. */
const sameCondition = (a: VirtualMachineInstanceCondition, b: VirtualMachineInstanceCondition): boolean =>
  a.status === b.status && (a.reason ?? "") === (b.reason ?? "") && (a.message ?? "") === (b.message ?? "");

/** The conditions with both set as upstream sets them, and the migration method. */
export function withLiveMigrationConditions(
  conditions: VirtualMachineInstanceCondition[],
  vmi: VirtualMachineInstance,
  ctx: MigratabilityContext,
): { conditions: VirtualMachineInstanceCondition[]; migrationMethod: string } {
  const { condition, blockMigration } = liveMigrationCondition(vmi, ctx);
  const status = { conditions: [...conditions] };
  const existing = status.conditions.find((c) => c.type === LIVE_MIGRATABLE);
  // LiveMigratable is replaced at the end whenever any of it changed; StorageLiveMigratable in place.
  if (!existing || !sameCondition(existing, condition)) {
    status.conditions = status.conditions.filter((c) => c.type !== LIVE_MIGRATABLE);
    status.conditions.push(condition);
  }
  const storage = storageLiveMigrationCondition(vmi, ctx);
  const storageAt = status.conditions.findIndex((c) => c.type === STORAGE_LIVE_MIGRATABLE);
  const stored = status.conditions[storageAt];
  if (!stored) status.conditions.push(storage);
  else if (!sameCondition(stored, storage)) status.conditions[storageAt] = storage;
  return {
    conditions: status.conditions,
    migrationMethod: blockMigration ? BLOCK_MIGRATION : LIVE_MIGRATION,
  };
}

/**
 * Upstream's warning on every status update of a VMI that should move on eviction but cannot:
 * `LiveMigrate` (the VMI's strategy, else the cluster's), or `LiveMigrateIfPossible` while the VMI still
 * reads as migratable, and the new LiveMigratable condition False. The event's reason is `Migrated`.
 */
export function evictionStrategyWarning(
  vmi: VirtualMachineInstance,
  conditions: readonly VirtualMachineInstanceCondition[],
  clusterStrategy: string | undefined,
): string | undefined {
  const strategy = vmi.spec.evictionStrategy ?? clusterStrategy;
  const wasMigratable = (vmi.status?.conditions ?? []).some(
    (c) => c.type === LIVE_MIGRATABLE && c.status === "True",
  );
  const evictable = strategy === "LiveMigrate" || (strategy === "LiveMigrateIfPossible" && wasMigratable);
  const condition = conditions.find((c) => c.type === LIVE_MIGRATABLE);
  if (!evictable || condition?.status !== "False") return undefined;
  return `EvictionStrategy is set but vmi is not migratable; ${condition.message ?? ""}`;
}
