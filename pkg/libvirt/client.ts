// The libvirt calls virt-launcher uses, named after libvirt's C API (virDomainGetState ->
// domainGetState). Everything else in remote_protocol.x / qemu_protocol.x is reachable through
// `client.rpc.remote(...)` / `client.rpc.qemu(...)` by procedure name.
import type { ConnectionOptions, DownloadOptions } from "./connection.js";
import type { Domain, DomainEvent } from "./domain-events.js";
import { toDomainEvent } from "./domain-events.js";
import { LibvirtNotSupportedError } from "./errors.js";
import {
  VIR_DOMAIN_QEMU_AGENT_COMMAND_DEFAULT,
  VIR_DRV_FEATURE_PROGRAM_KEEPALIVE,
} from "./generated/libvirt-api.js";
import { remoteProgram } from "./generated/remote-protocol.js";
import type {
  RemoteDomainGetInfoRet,
  RemoteDomainGetJobInfoRet,
  RemoteDomainMemoryStat,
} from "./generated/remote-protocol.js";
import type { MigrateParameters } from "./migrate.js";
import { VIR_MIGRATE_PEER2PEER, migrateParamsToTypedParams } from "./migrate.js";
import { LibvirtRpc } from "./rpc-client.js";
import type { DecodedMessage } from "./rpc-client.js";
import type { TypedParamValue } from "./typed-params.js";
import { typedParamsToRecord } from "./typed-params.js";
import { uuidToBytes } from "./uuid.js";

export type { Domain, DomainEvent } from "./domain-events.js";

/** A screenshot of a 4K screen as uncompressed PPM is 25 MiB; QEMU takes well under a second. */
export const SCREENSHOT_LIMITS: DownloadOptions = { maxBytes: 64 << 20, timeoutMs: 30_000 };

export interface DomainEventSubscription {
  callbackID: number;
  /** Deregisters the callback on the daemon and stops delivering its events. */
  unsubscribe(): Promise<void>;
}

export class LibvirtClient {
  private readonly subscriptions = new Map<number, (event: DomainEvent) => void>();
  private readonly unrouted = new Set<(message: DecodedMessage) => void>();

  constructor(readonly rpc: LibvirtRpc) {
    rpc.onMessage((message) => this.route(message));
  }

  /** Connects to a daemon socket; call connectOpen next. */
  static async connect(socketPath: string, options: ConnectionOptions = {}): Promise<LibvirtClient> {
    return new LibvirtClient(await LibvirtRpc.open(socketPath, options));
  }

  /** Opens the hypervisor connection on the daemon, e.g. "qemu:///session". */
  async connectOpen(uri = "qemu:///session", flags = 0): Promise<void> {
    await this.rpc.remote("REMOTE_PROC_CONNECT_OPEN", { name: uri, flags });
  }

  /** Tells the daemon we are done (as virConnectClose does), then closes the socket. */
  async close(): Promise<void> {
    if (this.rpc.connection.isOpen) {
      await this.rpc.remote("REMOTE_PROC_CONNECT_CLOSE", undefined).catch(() => undefined);
    }
    await this.rpc.connection.close();
  }

  async connectSupportsFeature(feature: number): Promise<boolean> {
    return (await this.rpc.remote("REMOTE_PROC_CONNECT_SUPPORTS_FEATURE", { feature })).supported !== 0;
  }

  /** Asks the daemon to send keepalive PINGs (the connection answers them); false if it cannot. */
  enableDaemonKeepAlive(): Promise<boolean> {
    return this.connectSupportsFeature(VIR_DRV_FEATURE_PROGRAM_KEEPALIVE);
  }

  /** Hypervisor version as major * 1,000,000 + minor * 1,000 + release (QEMU 7.2.0 -> 7002000). */
  async getVersion(): Promise<number> {
    return Number((await this.rpc.remote("REMOTE_PROC_CONNECT_GET_VERSION", undefined)).hv_ver);
  }

  /** libvirt's own version, encoded like getVersion. */
  async getLibVersion(): Promise<number> {
    return Number((await this.rpc.remote("REMOTE_PROC_CONNECT_GET_LIB_VERSION", undefined)).lib_ver);
  }

  async connectListAllDomains(flags = 0): Promise<Domain[]> {
    return (await this.rpc.remote("REMOTE_PROC_CONNECT_LIST_ALL_DOMAINS", { need_results: 1, flags }))
      .domains;
  }

  domainDefineXML(xml: string): Promise<Domain> {
    return this.domainDefineXMLFlags(xml, 0);
  }

  async domainDefineXMLFlags(xml: string, flags: number): Promise<Domain> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_DEFINE_XML_FLAGS", { xml, flags })).dom;
  }

  async domainLookupByName(name: string): Promise<Domain> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_LOOKUP_BY_NAME", { name })).dom;
  }

  /** Looks a domain up by its UUID, as 16 bytes or in the 36-character form. */
  async domainLookupByUUID(uuid: Uint8Array | string): Promise<Domain> {
    const bytes = typeof uuid === "string" ? uuidToBytes(uuid) : uuid;
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_LOOKUP_BY_UUID", { uuid: bytes })).dom;
  }

  /** Starts a defined domain; the result carries the id it now runs under. */
  async domainCreateWithFlags(dom: Domain, flags = 0): Promise<Domain> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_CREATE_WITH_FLAGS", { dom, flags })).dom;
  }

  /** virDomainState (VIR_DOMAIN_RUNNING, ...) and the reason enum that goes with it. */
  domainGetState(dom: Domain, flags = 0): Promise<{ state: number; reason: number }> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_GET_STATE", { dom, flags });
  }

  /** State, memory in KiB and CPU time in nanoseconds. */
  domainGetInfo(dom: Domain): Promise<RemoteDomainGetInfoRet> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_GET_INFO", { dom });
  }

  async domainGetXMLDesc(dom: Domain, flags = 0): Promise<string> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_GET_XML_DESC", { dom, flags })).xml;
  }

  domainSuspend(dom: Domain): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_SUSPEND", { dom });
  }

  domainResume(dom: Domain): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_RESUME", { dom });
  }

  /** Asks the guest to shut down (ACPI or agent, see virDomainShutdownFlagValues). */
  domainShutdownFlags(dom: Domain, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_SHUTDOWN_FLAGS", { dom, flags });
  }

  domainReboot(dom: Domain, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_REBOOT", { dom, flags });
  }

  /** Hard reset, like pressing the reset button. */
  domainReset(dom: Domain, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_RESET", { dom, flags });
  }

  /** Freezes the guest's filesystems through its agent (all of them: no mount points); the count frozen. */
  async domainFSFreeze(dom: Domain, mountpoints: string[] = [], flags = 0): Promise<number> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_FSFREEZE", { dom, mountpoints, flags })).filesystems;
  }

  /** Thaws what domainFSFreeze froze; the count thawed. */
  async domainFSThaw(dom: Domain, mountpoints: string[] = [], flags = 0): Promise<number> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_FSTHAW", { dom, mountpoints, flags })).filesystems;
  }

  /** Stops the domain at once (kills QEMU); VIR_DOMAIN_DESTROY_GRACEFUL sends SIGTERM only. */
  domainDestroyFlags(dom: Domain, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_DESTROY_FLAGS", { dom, flags });
  }

  domainUndefineFlags(dom: Domain, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_UNDEFINE_FLAGS", { dom, flags });
  }

  /**
   * Adds a device to the domain from its XML (one `<disk>`, say); VIR_DOMAIN_AFFECT_LIVE and
   * VIR_DOMAIN_AFFECT_CONFIG choose the running guest, the persistent definition, or both.
   */
  domainAttachDeviceFlags(dom: Domain, xml: string, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_ATTACH_DEVICE_FLAGS", { dom, xml, flags });
  }

  /** Removes the device the XML matches (by alias, address or target), with the flags of domainAttachDeviceFlags. */
  domainDetachDeviceFlags(dom: Domain, xml: string, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_DETACH_DEVICE_FLAGS", { dom, xml, flags });
  }

  /** Sends a QMP command (or HMP with VIR_DOMAIN_QEMU_MONITOR_COMMAND_HMP) and returns QEMU's answer. */
  async qemuDomainMonitorCommand(dom: Domain, command: string, flags = 0): Promise<string> {
    return (await this.rpc.qemu("QEMU_PROC_DOMAIN_MONITOR_COMMAND", { dom, cmd: command, flags })).result;
  }

  /**
   * The picture on one of the domain's screens (virDomainScreenshot, then the stream read to its end):
   * the format is the hypervisor's, named by the MIME type.
   */
  async domainScreenshot(
    dom: Domain,
    screen = 0,
    flags = 0,
    limits: DownloadOptions = SCREENSHOT_LIMITS,
  ): Promise<{ mime: string; data: Buffer }> {
    const { ret, data } = await this.rpc.download(
      remoteProgram,
      "REMOTE_PROC_DOMAIN_SCREENSHOT",
      { dom, screen, flags },
      limits,
    );
    return { mime: ret.mime ?? "", data };
  }

  /**
   * Sends a guest agent command (QGA JSON such as `{"execute":"guest-info"}`) through libvirt and returns
   * the agent's answer; `timeout` is in seconds or a VIR_DOMAIN_QEMU_AGENT_COMMAND_* value.
   */
  async qemuAgentCommand(
    dom: Domain,
    command: string,
    timeout = VIR_DOMAIN_QEMU_AGENT_COMMAND_DEFAULT,
    flags = 0,
  ): Promise<string> {
    const { result } = await this.rpc.qemu("QEMU_PROC_DOMAIN_AGENT_COMMAND", {
      dom,
      cmd: command,
      timeout,
      flags,
    });
    return result ?? "";
  }

  /** What the guest agent reports for `types` (VIR_DOMAIN_GUEST_INFO_*), as libvirt's typed parameters by name. */
  async domainGetGuestInfo(dom: Domain, types: number, flags = 0): Promise<Record<string, TypedParamValue>> {
    const { params } = await this.rpc.remote("REMOTE_PROC_DOMAIN_GET_GUEST_INFO", { dom, types, flags });
    return typedParamsToRecord(params);
  }

  /**
   * virConnectGetAllDomainStats: the `stats` groups (VIR_DOMAIN_STATS_*) of `doms`, or of every domain the
   * `flags` (VIR_CONNECT_GET_ALL_DOMAINS_STATS_*) select when `doms` is empty; each as its typed parameters.
   */
  async connectGetAllDomainStats(
    stats: number,
    flags: number,
    doms: Domain[] = [],
  ): Promise<{ dom: Domain; params: Record<string, TypedParamValue> }[]> {
    const { retStats } = await this.rpc.remote("REMOTE_PROC_CONNECT_GET_ALL_DOMAIN_STATS", {
      doms,
      stats,
      flags,
    });
    return retStats.map((record) => ({ dom: record.dom, params: typedParamsToRecord(record.params) }));
  }

  /** virDomainMemoryStats: up to `maxStats` figures, each a VIR_DOMAIN_MEMORY_STAT_* tag and its value (KiB). */
  async domainMemoryStats(dom: Domain, maxStats: number, flags = 0): Promise<RemoteDomainMemoryStat[]> {
    return (await this.rpc.remote("REMOTE_PROC_DOMAIN_MEMORY_STATS", { dom, maxStats, flags })).stats;
  }

  domainGetJobInfo(dom: Domain): Promise<RemoteDomainGetJobInfoRet> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_GET_JOB_INFO", { dom });
  }

  /** The current (or, with VIR_DOMAIN_JOB_STATS_COMPLETED, last) job: virDomainJobType and its statistics. */
  async domainGetJobStats(
    dom: Domain,
    flags = 0,
  ): Promise<{ type: number; params: Record<string, TypedParamValue> }> {
    const { type, params } = await this.rpc.remote("REMOTE_PROC_DOMAIN_GET_JOB_STATS", { dom, flags });
    return { type, params: typedParamsToRecord(params) };
  }

  /**
   * virDomainMigrateToURI3 with VIR_MIGRATE_PEER2PEER: the daemon itself connects to `dconnuri` (the
   * destination's libvirt) and runs the whole migration; this resolves once the migration is over.
   * (A non-peer-to-peer migration needs the client to drive both daemons; KubeVirt never does that.)
   */
  async domainMigrateToURI3(
    dom: Domain,
    dconnuri: string,
    params: MigrateParameters,
    flags: number,
  ): Promise<void> {
    if ((flags & VIR_MIGRATE_PEER2PEER) === 0) {
      throw new LibvirtNotSupportedError("domainMigrateToURI3 is only supported with VIR_MIGRATE_PEER2PEER");
    }
    await this.rpc.remote("REMOTE_PROC_DOMAIN_MIGRATE_PERFORM3_PARAMS", {
      dom,
      dconnuri,
      params: migrateParamsToTypedParams(params),
      cookie_in: new Uint8Array(0),
      flags,
    });
  }

  /** Sets the guest's clock through its agent (virDomainSetTime). */
  domainSetTime(dom: Domain, seconds: bigint, nseconds: number, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_SET_TIME", { dom, seconds, nseconds, flags });
  }

  /** Aborts the domain's current job (a migration, say); the job's own call then fails. */
  domainAbortJob(dom: Domain): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_ABORT_JOB", { dom });
  }

  /** Switches a running migration started with VIR_MIGRATE_POSTCOPY to post-copy. */
  domainMigrateStartPostCopy(dom: Domain, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_MIGRATE_START_POST_COPY", { dom, flags });
  }

  /** Caps the bandwidth of the domain's migration, in MiB/s. */
  domainMigrateSetMaxSpeed(dom: Domain, bandwidth: number, flags = 0): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_DOMAIN_MIGRATE_SET_MAX_SPEED", {
      dom,
      bandwidth: BigInt(bandwidth),
      flags,
    });
  }

  /** Registers for one event type (virDomainEventID), for one domain or all (dom null); returns the callbackID. */
  async domainEventCallbackRegisterAny(eventID: number, dom: Domain | null): Promise<number> {
    return (await this.rpc.remote("REMOTE_PROC_CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY", { eventID, dom }))
      .callbackID;
  }

  domainEventCallbackDeregisterAny(callbackID: number): Promise<void> {
    return this.rpc.remote("REMOTE_PROC_CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY", { callbackID });
  }

  /** Registers for an event type and delivers its events, typed, to `listener`. */
  async subscribeDomainEvents(
    eventID: number,
    dom: Domain | null,
    listener: (event: DomainEvent) => void,
  ): Promise<DomainEventSubscription> {
    const callbackID = await this.domainEventCallbackRegisterAny(eventID, dom);
    this.subscriptions.set(callbackID, listener);
    return {
      callbackID,
      unsubscribe: async () => {
        this.subscriptions.delete(callbackID);
        await this.domainEventCallbackDeregisterAny(callbackID);
      },
    };
  }

  /** Messages no subscription took: other event kinds, or ones that could not be decoded. */
  onUnroutedMessage(listener: (message: DecodedMessage) => void): () => void {
    this.unrouted.add(listener);
    return () => this.unrouted.delete(listener);
  }

  private route(message: DecodedMessage): void {
    const event = "message" in message ? toDomainEvent(message.procedure, message.message) : null;
    const listener = event ? this.subscriptions.get(event.callbackID) : undefined;
    if (event && listener) listener(event);
    else for (const other of this.unrouted) other(message);
  }
}
