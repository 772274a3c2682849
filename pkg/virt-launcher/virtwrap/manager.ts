// The launcher's domain manager (upstream virtwrap/manager.go, the walking skeleton's part):
// turns the VMI into a libvirt domain, defines and starts it once, and drives pause, shutdown,
// kill and delete. Every call is idempotent: syncing a running VMI again changes nothing.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import type { VirtualMachineOptions } from "../../handler-launcher-com/cmd/v1/messages.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { LibvirtError } from "../../libvirt/errors.js";
import type { Domain as LibvirtDomain } from "../../libvirt/domain-events.js";
import { marshalDeviceXML, marshalDomainXML, unmarshalDomainXML } from "./api/domain-xml.js";
import type { Disk, DomainSpec } from "./api/schema.js";
import { convertVMIToDomain } from "./converter/converter.js";
import type { DiskModeProbes } from "./converter/disk-cache.js";
import { nodeDiskModeProbes, setDiskMode, setDiskModes } from "./converter/disk-cache.js";
import type { DomainConnection } from "./domain-connection.js";
import { isNotFound } from "./domain-connection.js";
import type { DomainObject } from "./api/domain-object.js";
import { readDomain } from "./domain-reader.js";
import type { LauncherConverterInputs } from "./converter-context.js";
import type { LauncherLayout } from "../layout.js";
import { hotplugDiskDir } from "../layout.js";
import {
  checkIfDiskReadyToUse,
  diskBackendPath,
  getAttachedDisks,
  getDetachedDisks,
} from "./hotplug-disks.js";
import { launcherConverterContext } from "./converter-context.js";
import type { MetadataCache } from "./metadata-cache.js";
import { MigrationMode } from "./api/domain-object.js";
import type { MigrationOptions } from "./live-migration-params.js";
import {
  FuncTestBlockLauncherPrepareMigrationTargetAnnotation,
  migrationUID,
} from "./live-migration-params.js";
import { MigrationSource } from "./live-migration-source.js";
import { isPausedVMI, prepareMigrationSockets } from "./live-migration-target.js";
import { initializeMigrationMetadata } from "./migration-metadata.js";
import type { Clock } from "./migration-monitor.js";
import { FSFreezer } from "./storage/fsfreeze.js";
import type { FileSystem, GuestAgentInfo, GuestOSUser } from "../../api/guest-agent-info.js";
import type { Filesystem } from "./agent-poller/agent-parser.js";
import { AsyncAgentStore, withGuestInfo } from "./agent-poller/agent-store.js";
import {
  acpiDisabled,
  agentConnected,
  domainName,
  gracePeriodSeconds,
  isFinal,
  isRunning,
  shouldStartPaused,
} from "./vmi-state.js";

/** The pod-side work around defining and starting a domain (upstream preStartHook and friends). */
export interface DomainPreparation {
  converterInputs(
    vmi: VirtualMachineInstance,
    allowEmulation: boolean,
    options: VirtualMachineOptions | null,
  ): Promise<LauncherConverterInputs>;
  /** Disk images and cloud-init data, before the domain is defined. */
  beforeDefine(vmi: VirtualMachineInstance, spec: DomainSpec): Promise<void>;
  /** The cloud-init ISO and DHCP, right before QEMU starts. */
  beforeStart(vmi: VirtualMachineInstance, spec: DomainSpec): Promise<void>;
}

export interface DomainManagerOptions {
  connection: DomainConnection;
  preparation: DomainPreparation;
  metadata: MetadataCache;
  layout: LauncherLayout;
  log: Logger;
  /** What the guest agent poller read; absent: an agent never heard of. */
  agentStore?: AsyncAgentStore;
  /** How disks' cache and I/O modes are chosen; the node's own probes when absent. */
  diskModeProbes?: DiskModeProbes;
  /** Hands a path to QEMU's user (the migration sockets dir); nothing to do when absent. */
  setFileOwnership?: (path: string) => Promise<void>;
  /** Time for the migration monitor; the real one when absent. */
  clock?: Clock;
}

/** Devices are plugged into, and unplugged from, the running guest and its persistent definition alike. */
const AFFECT_LIVE_AND_CONFIG = libvirt.VIR_DOMAIN_AFFECT_LIVE | libvirt.VIR_DOMAIN_AFFECT_CONFIG;

/**
 * The `<disk>` document virDomainAttachDeviceFlags gets. Upstream lowercases the whole document it
 * marshals (Go names the element after its struct); here the names are right already, and lowercasing
 * paths would break a launcher whose dirs are not upstream's, so only what the guest sees of it, the
 * serial, is lowercased as upstream's is.
 */
function attachDiskXML(disk: Disk): string {
  return marshalDeviceXML("disk", disk.serial ? { ...disk, serial: disk.serial.toLowerCase() } : disk);
}

/** How many users and filesystems GetGuestInfo lists (upstream); GetUsers and GetFilesystems list all. */
const GUEST_INFO_LIST_LIMIT = 10;

function fileSystemsOf(filesystems: readonly Filesystem[]): FileSystem[] {
  return filesystems.map((fs) => ({
    diskName: fs.name,
    mountPoint: fs.mountpoint,
    fileSystemType: fs.type,
    usedBytes: fs.usedBytes,
    totalBytes: fs.totalBytes,
    disk: fs.disk.map((disk) => ({ serial: disk.serial, busType: disk.busType })),
  }));
}

const isDown = (state: number): boolean =>
  [
    libvirt.VIR_DOMAIN_NOSTATE,
    libvirt.VIR_DOMAIN_SHUTDOWN,
    libvirt.VIR_DOMAIN_SHUTOFF,
    libvirt.VIR_DOMAIN_CRASHED,
  ].includes(state);

export class LibvirtDomainManager {
  /** VMIs paused on purpose (by a pause call or a paused start): sync must not resume them. */
  private readonly paused = new Set<string>();
  private lock: Promise<unknown> = Promise.resolve();
  private readonly freezer: FSFreezer;
  private readonly agent: AsyncAgentStore;
  readonly migrationSource: MigrationSource;
  /** VMIs whose pod was prepared as a migration target (disks, cloud-init, DHCP): done once. */
  private readonly preparedTargets = new Set<string>();

  constructor(private readonly options: DomainManagerOptions) {
    this.freezer = new FSFreezer(options.connection, options.log);
    this.agent = options.agentStore ?? new AsyncAgentStore();
    this.migrationSource = new MigrationSource({
      connection: options.connection,
      metadata: options.metadata,
      virtShareDir: options.layout.virtShareDir,
      log: options.log,
      exclusive: (work) => this.exclusive(work),
      markPaused: (uid) => this.paused.add(uid),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  private get connection(): DomainConnection {
    return this.options.connection;
  }

  /** Calls that change the domain run one at a time (upstream domainModifyLock). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.lock.then(work);
    this.lock = result.catch(() => undefined);
    return result;
  }

  syncVMI(
    vmi: VirtualMachineInstance,
    allowEmulation: boolean,
    options: VirtualMachineOptions | null,
  ): Promise<void> {
    return this.exclusive(async () => {
      const { preparation, layout, log } = this.options;
      const inputs = await preparation.converterInputs(vmi, allowEmulation, options);
      const domain = convertVMIToDomain(vmi, launcherConverterContext(vmi, layout, inputs));
      const dom = await this.lookupOrCreate(vmi, domain.spec);
      const { state } = await this.connection.domainGetState(dom);
      const uid = vmi.metadata?.uid ?? "";
      if (isDown(state) && !isRunning(vmi) && !isFinal(vmi)) {
        await preparation.beforeStart(vmi, domain.spec);
        const flags = shouldStartPaused(vmi) ? libvirt.VIR_DOMAIN_START_PAUSED : libvirt.VIR_DOMAIN_NONE;
        await this.connection.domainCreateWithFlags(dom, flags);
        log.info({ domain: dom.name }, "Domain started.");
        if (shouldStartPaused(vmi)) this.paused.add(uid);
      } else if (state === libvirt.VIR_DOMAIN_PAUSED && !this.paused.has(uid)) {
        await this.connection.domainResume(dom);
        log.info({ domain: dom.name }, "Domain unpaused.");
      }
      const current = unmarshalDomainXML(await this.connection.domainGetXMLDesc(dom, 0));
      await this.syncDisks(dom, current, domain.spec);
    });
  }

  /**
   * Unplugs the hotplugged disks the VMI no longer has, then plugs in the new ones whose image
   * virt-handler has handed over (upstream syncDisks). The CD-ROM media changes and online disk
   * expansion upstream also makes here are not ported.
   */
  private async syncDisks(dom: LibvirtDomain, current: DomainSpec, wanted: DomainSpec): Promise<void> {
    const { layout, log } = this.options;
    const dir = hotplugDiskDir(layout);
    const currentDisks = current.devices.disks ?? [];
    const wantedDisks = wanted.devices.disks ?? [];
    for (const disk of getDetachedDisks(currentDisks, wantedDisks, dir)) {
      const volume = disk.alias?.name ?? "";
      log.info({ domain: dom.name, volume, target: disk.target.device }, "Detaching disk");
      await this.connection.domainDetachDeviceFlags(
        dom,
        marshalDeviceXML("disk", disk),
        AFFECT_LIVE_AND_CONFIG,
      );
    }
    for (const disk of getAttachedDisks(currentDisks, wantedDisks, dir)) {
      if (!(await checkIfDiskReadyToUse(diskBackendPath(disk)))) continue;
      const volume = disk.alias?.name ?? "";
      log.info({ domain: dom.name, volume, target: disk.target.device }, "Attaching disk");
      await setDiskMode(disk, this.options.diskModeProbes ?? nodeDiskModeProbes);
      await this.connection.domainAttachDeviceFlags(dom, attachDiskXML(disk), AFFECT_LIVE_AND_CONFIG);
    }
  }

  private async lookupOrCreate(vmi: VirtualMachineInstance, spec: DomainSpec): Promise<LibvirtDomain> {
    const existing = await this.lookup(spec.name);
    if (existing) return existing;
    await this.options.preparation.beforeDefine(vmi, spec);
    await setDiskModes(spec, this.options.diskModeProbes ?? nodeDiskModeProbes);
    const dom = await this.connection.domainDefineXML(marshalDomainXML(spec));
    const { metadata } = this.options;
    metadata.setUID(vmi.metadata?.uid ?? "");
    metadata.updateGracePeriod((current) => ({
      ...current,
      deletionGracePeriodSeconds: gracePeriodSeconds(vmi),
    }));
    this.options.log.info({ domain: spec.name }, "Domain defined.");
    return dom;
  }

  /** The domain, or undefined when libvirt does not know it. */
  private async lookup(name: string): Promise<LibvirtDomain | undefined> {
    try {
      return await this.connection.domainLookupByName(name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async requireDomain(vmi: VirtualMachineInstance): Promise<LibvirtDomain> {
    const dom = await this.lookup(domainName(vmi));
    if (!dom) throw new Error("Domain not found.");
    return dom;
  }

  /** Starts the live migration in the background (upstream MigrateVMI); its outcome goes into the metadata. */
  migrateVMI(vmi: VirtualMachineInstance, options: MigrationOptions): Promise<void> {
    return Promise.resolve().then(() => this.migrationSource.start(vmi, options));
  }

  /** Aborts the running migration (upstream CancelVMIMigration). */
  cancelVMIMigration(vmi: VirtualMachineInstance): Promise<void> {
    return Promise.resolve().then(() => this.migrationSource.cancel(vmi));
  }

  /**
   * Upstream prepareMigrationTarget: the pod gets what a start would give QEMU, the migration metadata
   * starts, and the incoming stream's socket dir is made; libvirt defines the domain itself.
   */
  prepareMigrationTarget(
    vmi: VirtualMachineInstance,
    allowEmulation: boolean,
    options: VirtualMachineOptions | null,
  ): Promise<void> {
    return this.exclusive(async () => {
      const { preparation, layout, metadata, log } = this.options;
      const uid = vmi.metadata?.uid ?? "";
      const inputs = await preparation.converterInputs(vmi, allowEmulation, options);
      const domain = convertVMIToDomain(vmi, launcherConverterContext(vmi, layout, inputs));
      // Retries re-run the rest; disks and DHCP servers are made once.
      if (!this.preparedTargets.has(uid)) {
        await preparation.beforeDefine(vmi, domain.spec);
        await preparation.beforeStart(vmi, domain.spec);
        this.preparedTargets.add(uid);
      }
      metadata.setUID(uid);
      metadata.updateGracePeriod(() => ({ deletionGracePeriodSeconds: gracePeriodSeconds(vmi) }));
      // Unlike the source, the target's preparation re-runs whether the migration runs already or not.
      initializeMigrationMetadata(metadata, migrationUID(vmi), MigrationMode.PreCopy, new Date());
      if (vmi.metadata?.annotations?.[FuncTestBlockLauncherPrepareMigrationTargetAnnotation] !== undefined) {
        throw new Error(
          "Blocking preparation of migration target in order to satisfy a functional test condition",
        );
      }
      await prepareMigrationSockets(
        vmi,
        layout.virtShareDir,
        this.options.setFileOwnership ?? (() => Promise.resolve()),
        log,
      );
      // The source is paused: the guest stays paused once it has arrived.
      if (isPausedVMI(vmi)) this.paused.add(uid);
    });
  }

  /**
   * Upstream finalizeMigrationTarget, once the guest runs here: its clock is set, as it stood still
   * while the migration paused it. Refreshing interfaces' links (the LinkRefresh migration method) is
   * not ported yet.
   */
  finalizeVirtualMachineMigration(
    vmi: VirtualMachineInstance,
    options: VirtualMachineOptions | null,
  ): Promise<void> {
    const refresh = Object.entries(options?.interfaceMigration ?? {}).filter(
      ([, option]) => option.Method === "LinkRefresh",
    );
    if (refresh.length > 0) {
      this.options.log.warn(
        { interfaces: refresh.map(([name]) => name) },
        "interface link refresh is not supported yet",
      );
    }
    this.setGuestTime(vmi);
    return Promise.resolve();
  }

  private guestTimeSet = false;

  /** Upstream setGuestTime: best effort, once per launcher, tried every second for up to a minute. */
  private setGuestTime(vmi: VirtualMachineInstance): void {
    if (this.guestTimeSet) return;
    this.guestTimeSet = true;
    const { connection, log } = this.options;
    void (async () => {
      let latest: unknown;
      for (let attempt = 0; attempt < 60; attempt++) {
        // Unreferenced: a guest that never answers must not hold the launcher open.
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
        try {
          const dom = await connection.domainLookupByName(domainName(vmi));
          const now = Date.now();
          await connection.domainSetTime(dom, BigInt(Math.floor(now / 1000)), (now % 1000) * 1_000_000, 0);
          log.info("guest time set");
          return;
        } catch (error) {
          latest = error;
        }
      }
      log.warn({ err: latest }, "failed to sync guest time");
    })();
  }

  pauseVMI(vmi: VirtualMachineInstance): Promise<void> {
    return this.exclusive(async () => {
      const dom = await this.requireDomain(vmi);
      const { state } = await this.connection.domainGetState(dom);
      if (state !== libvirt.VIR_DOMAIN_RUNNING) return;
      await this.connection.domainSuspend(dom);
      this.paused.add(vmi.metadata?.uid ?? "");
    });
  }

  unpauseVMI(vmi: VirtualMachineInstance): Promise<void> {
    return this.exclusive(async () => {
      const dom = await this.requireDomain(vmi);
      const { state } = await this.connection.domainGetState(dom);
      if (state !== libvirt.VIR_DOMAIN_PAUSED) return;
      await this.connection.domainResume(dom);
      this.paused.delete(vmi.metadata?.uid ?? "");
    });
  }

  /** Freezes the guest's filesystems through its agent; thawed again after `unfreezeTimeoutSeconds` (0: never). */
  freezeVMI(vmi: VirtualMachineInstance, unfreezeTimeoutSeconds: number): Promise<void> {
    return this.freezer.freeze(vmi, unfreezeTimeoutSeconds);
  }

  unfreezeVMI(vmi: VirtualMachineInstance): Promise<void> {
    return this.freezer.unfreeze(vmi);
  }

  /** The reset button: the guest restarts at once, in the same QEMU process. */
  async resetVMI(vmi: VirtualMachineInstance): Promise<void> {
    await this.connection.domainReset(await this.requireDomain(vmi), 0);
  }

  /** The guest agent reboots the guest if it is connected, else the ACPI power button does. */
  async softRebootVMI(vmi: VirtualMachineInstance): Promise<void> {
    let flags = libvirt.VIR_DOMAIN_REBOOT_GUEST_AGENT;
    if (!agentConnected(vmi)) {
      if (acpiDisabled(vmi))
        throw new Error("VMI neither have the agent connected nor the ACPI feature enabled");
      flags = libvirt.VIR_DOMAIN_REBOOT_ACPI_POWER_BTN;
    }
    try {
      await this.connection.domainReboot(await this.requireDomain(vmi), flags);
    } catch (error) {
      if (!(error instanceof LibvirtError && error.code === libvirt.VIR_ERR_AGENT_UNRESPONSIVE)) throw error;
    }
  }

  /** Records that the pod is going away; virt-handler sees it in the next domain event. */
  markGracefulShutdownVMI(): void {
    this.options.metadata.updateGracePeriod((current) => ({
      deletionGracePeriodSeconds: current?.deletionGracePeriodSeconds ?? 0,
      ...current,
      markedForGracefulShutdown: true,
    }));
  }

  /** Presses the ACPI power button of a running or paused domain, once per grace period. */
  signalShutdownVMI(vmi: VirtualMachineInstance): Promise<void> {
    return this.exclusive(async () => {
      const dom = await this.lookup(domainName(vmi));
      if (!dom) return;
      const { state } = await this.connection.domainGetState(dom);
      if (state !== libvirt.VIR_DOMAIN_RUNNING && state !== libvirt.VIR_DOMAIN_PAUSED) return;
      await this.connection.domainShutdownFlags(dom, libvirt.VIR_DOMAIN_SHUTDOWN_DEFAULT);
      this.options.log.info({ domain: dom.name }, "Signaled graceful shutdown");
      this.options.metadata.updateGracePeriod((current) => ({
        deletionGracePeriodSeconds: current?.deletionGracePeriodSeconds ?? gracePeriodSeconds(vmi),
        ...current,
        deletionTimestamp: current?.deletionTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      }));
    });
  }

  /** Stops QEMU (SIGTERM through libvirt); a domain that is not running is left alone. */
  async killVMI(vmi: VirtualMachineInstance): Promise<void> {
    try {
      const dom = await this.lookup(domainName(vmi));
      if (!dom) return;
      const { state } = await this.connection.domainGetState(dom);
      const live = [libvirt.VIR_DOMAIN_RUNNING, libvirt.VIR_DOMAIN_PAUSED, libvirt.VIR_DOMAIN_SHUTDOWN];
      if (!live.includes(state)) return;
      await this.connection.domainDestroyFlags(dom, libvirt.VIR_DOMAIN_DESTROY_GRACEFUL);
      this.options.log.info({ domain: dom.name }, "Domain stopped.");
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async deleteVMI(vmi: VirtualMachineInstance): Promise<void> {
    const dom = await this.lookup(domainName(vmi));
    if (!dom) return;
    await this.connection.domainUndefineFlags(
      dom,
      libvirt.VIR_DOMAIN_UNDEFINE_KEEP_NVRAM | libvirt.VIR_DOMAIN_UNDEFINE_CHECKPOINTS_METADATA,
    );
    this.options.log.info({ domain: dom.name }, "Domain undefined.");
  }

  async listAllDomains(): Promise<DomainObject[]> {
    const flags = libvirt.VIR_CONNECT_LIST_DOMAINS_ACTIVE | libvirt.VIR_CONNECT_LIST_DOMAINS_INACTIVE;
    const domains: DomainObject[] = [];
    for (const dom of await this.connection.connectListAllDomains(flags)) {
      const domain = await readDomain(this.connection, dom, this.options.metadata);
      // Upstream's handler reads the agent's data from the domain events; this port's handler reads
      // the domain through GetDomain on every sync, so that carries it too.
      if (domain) domains.push(withGuestInfo(domain, this.agent.domainGuestInfo()));
    }
    return domains;
  }

  /** The primary display's picture, in the format libvirt names (upstream GetScreenshot). */
  async getScreenshot(vmi: VirtualMachineInstance): Promise<{ mime: string; data: Buffer }> {
    // libvirt's own error when there is no domain, as upstream passes it on.
    const dom = await this.connection.domainLookupByName(domainName(vmi));
    return this.connection.domainScreenshot(dom, 0, 0);
  }

  /** Upstream GetGuestInfo: the agent's data together, at most 10 users and filesystems. */
  getGuestInfo(): GuestAgentInfo {
    const sysInfo = this.agent.getSysInfo();
    const ga = this.agent.getGA();
    const { osInfo, timezone } = sysInfo;
    const users = this.getUsers().slice(0, GUEST_INFO_LIST_LIMIT);
    const filesystems = this.agent.getFS(GUEST_INFO_LIST_LIMIT);
    return {
      guestAgentVersion: ga.version,
      supportedCommands: ga.supportedCommands.map(({ name, enabled }) => ({ name, enabled })),
      hostname: sysInfo.hostname,
      fsFreezeStatus: this.agent.getFSFreezeStatus() ?? "",
      os: {
        name: osInfo.name,
        kernelRelease: osInfo.kernelRelease,
        version: osInfo.version,
        prettyName: osInfo.prettyName,
        versionId: osInfo.versionId,
        kernelVersion: osInfo.kernelVersion,
        machine: osInfo.machine,
        id: osInfo.id,
      },
      timezone: `${timezone.zone}, ${timezone.offset}`,
      ...(users.length > 0 ? { userList: users } : {}),
      // Go's nil slice: no filesystem read yet is `"disks": null`.
      fsInfo: { disks: filesystems.length > 0 ? fileSystemsOf(filesystems) : null },
    };
  }

  /** Every user logged in on the guest. */
  getUsers(): GuestOSUser[] {
    return this.agent.getUsers(-1).map((user) => ({
      userName: user.name,
      domain: user.domain,
      loginTime: user.loginTime,
    }));
  }

  /** Every filesystem mounted in the guest. */
  getFilesystems(): FileSystem[] {
    return fileSystemsOf(this.agent.getFS(-1));
  }

  /** QEMU's version as "major.minor.release". */
  async getQemuVersion(): Promise<string> {
    const version = await this.connection.getVersion();
    return `${Math.floor(version / 1_000_000)}.${Math.floor(version / 1_000) % 1_000}.${version % 1_000}`;
  }
}
