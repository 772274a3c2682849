// A libvirt stand-in for the launcher's unit tests: domains in memory, the state transitions
// libvirt makes, lifecycle events for each, and a log of the calls.
import type { DomainEventSubscription } from "../../../libvirt/client.js";
import type { Domain, DomainEvent } from "../../../libvirt/domain-events.js";
import { lifecycleNames } from "../../../libvirt/domain-events.js";
import { LibvirtError } from "../../../libvirt/errors.js";
import * as libvirt from "../../../libvirt/generated/libvirt-api.js";
import { typedParamsToRecord, type TypedParamValue } from "../../../libvirt/typed-params.js";
import { FakeGuestAgent } from "../../../libvirt/testdata/fake-guest-agent.js";
import type { EventSource } from "../../notify-client/domain-notifier.js";
import type { AgentConnection } from "../agent-poller/agent-poller.js";
import type { DomainConnection } from "../domain-connection.js";
import type { MigrateParameters } from "../../../libvirt/migrate.js";
import type { RemoteDomainGetJobInfoRet } from "../../../libvirt/generated/remote-protocol.js";

interface FakeDomain {
  dom: Domain;
  xml: string;
  state: number;
  reason: number;
}

function fakeError(code: number, message: string, procedure: string): LibvirtError {
  return new LibvirtError(
    {
      code,
      domain: libvirt.VIR_FROM_QEMU,
      message,
      level: 2,
      dom: null,
      str1: null,
      str2: null,
      str3: null,
      int1: 0,
      int2: 0,
      net: null,
    },
    procedure,
  );
}

export function noSuchDomain(name: string): LibvirtError {
  return fakeError(
    libvirt.VIR_ERR_NO_DOMAIN,
    `Domain not found: no domain with matching name '${name}'`,
    "REMOTE_PROC_DOMAIN_LOOKUP_BY_NAME",
  );
}

/** The `dev` of a `<disk>`'s target, as libvirt identifies the disk to detach. */
const diskTarget = (xml: string): string | undefined => /<target\b[^>]*\bdev="([^"]+)"/.exec(xml)?.[1];

/** The alias libvirt names a device by in its events. */
const deviceAlias = (xml: string): string | undefined => /<alias\b[^>]*\bname="([^"]+)"/.exec(xml)?.[1];

/** One device XML handed to attach or detach. */
export interface DeviceCall {
  op: "attach" | "detach";
  domain: string;
  xml: string;
  flags: number;
}

export class FakeLibvirt implements DomainConnection, EventSource, AgentConnection {
  readonly domains = new Map<string, FakeDomain>();
  readonly calls: string[] = [];
  /** The device XML of every attach and detach, in order. */
  readonly deviceCalls: DeviceCall[] = [];
  /** The guest agent of the (one) running guest; disconnected until connectAgent. */
  readonly agent = new FakeGuestAgent();
  private readonly listeners = new Map<number, { eventID: number; listener: (event: DomainEvent) => void }>();
  private nextCallbackID = 1;

  constructor() {
    this.agent.connected = false;
  }

  private find(name: string): FakeDomain {
    const found = this.domains.get(name);
    if (!found) throw noSuchDomain(name);
    return found;
  }

  /** Sends a lifecycle event to every lifecycle subscriber, as the daemon would. */
  emit(dom: Domain, event: number, detail: number): void {
    const [eventName, detailName] = lifecycleNames(event, detail);
    for (const [callbackID, { eventID, listener }] of this.listeners) {
      if (eventID !== libvirt.VIR_DOMAIN_EVENT_ID_LIFECYCLE) continue;
      listener({ kind: "lifecycle", callbackID, domain: dom, event, detail, eventName, detailName });
    }
  }

  /** Sends a device added or removed event for the device with that alias, as libvirt does after a hotplug. */
  private emitDevice(dom: Domain, kind: "device-added" | "device-removed", devAlias: string): void {
    const wanted =
      kind === "device-added"
        ? libvirt.VIR_DOMAIN_EVENT_ID_DEVICE_ADDED
        : libvirt.VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED;
    for (const [callbackID, { eventID, listener }] of this.listeners) {
      if (eventID === wanted) listener({ kind, callbackID, domain: dom, devAlias });
    }
  }

  /**
   * The guest's agent opens or closes its side of the channel: libvirt marks the channel's target state in
   * the live XML and sends the agent lifecycle event.
   */
  setAgentConnected(name: string, connected: boolean): void {
    const domain = this.find(name);
    this.agent.connected = connected;
    const state = connected ? "connected" : "disconnected";
    domain.xml = domain.xml.replace(
      /<target\b[^>]*name="org\.qemu\.guest_agent\.0"[^>]*?(\/?)>/,
      (tag, close) =>
        `${tag.slice(0, tag.length - close.length - 1).replace(/ state="[a-z]*"/, "")} state="${state}"${close}>`,
    );
    const agentState = connected
      ? libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_CONNECTED
      : libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_DISCONNECTED;
    for (const [callbackID, { eventID, listener }] of this.listeners) {
      if (eventID !== libvirt.VIR_DOMAIN_EVENT_ID_AGENT_LIFECYCLE) continue;
      listener({
        kind: "agent-lifecycle",
        callbackID,
        domain: domain.dom,
        state: agentState,
        reason: libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_REASON_CHANNEL,
      });
    }
  }

  qemuAgentCommand(dom: Domain, command: string): Promise<string> {
    return Promise.resolve().then(() => {
      this.find(dom.name);
      return this.agent.libvirtAgentCommand(command);
    });
  }

  domainGetGuestInfo(dom: Domain, types: number): Promise<Record<string, TypedParamValue>> {
    return Promise.resolve().then(() => {
      this.find(dom.name);
      return typedParamsToRecord(this.agent.libvirtGuestInfo(types));
    });
  }

  private transition(name: string, state: number, reason: number, event: number, detail: number): void {
    const domain = this.find(name);
    domain.state = state;
    domain.reason = reason;
    this.emit(domain.dom, event, detail);
  }

  /** The guest powers itself off (after an ACPI shutdown, say). */
  powerOff(name: string): void {
    this.transition(
      name,
      libvirt.VIR_DOMAIN_SHUTOFF,
      libvirt.VIR_DOMAIN_SHUTOFF_SHUTDOWN,
      libvirt.VIR_DOMAIN_EVENT_STOPPED,
      libvirt.VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN,
    );
  }

  setState(name: string, state: number, reason = 0): void {
    const domain = this.find(name);
    domain.state = state;
    domain.reason = reason;
  }

  domainLookupByName(name: string): Promise<Domain> {
    this.calls.push(`lookup ${name}`);
    return Promise.resolve().then(() => this.find(name).dom);
  }

  domainDefineXML(xml: string): Promise<Domain> {
    const name = /<name>([^<]+)<\/name>/.exec(xml)?.[1] ?? "";
    this.calls.push(`define ${name}`);
    const dom: Domain = { name, uuid: new Uint8Array(16), id: -1 };
    this.domains.set(name, {
      dom,
      xml,
      state: libvirt.VIR_DOMAIN_SHUTOFF,
      reason: libvirt.VIR_DOMAIN_SHUTOFF_UNKNOWN,
    });
    this.emit(dom, libvirt.VIR_DOMAIN_EVENT_DEFINED, libvirt.VIR_DOMAIN_EVENT_DEFINED_ADDED);
    return Promise.resolve(dom);
  }

  domainCreateWithFlags(dom: Domain, flags = 0): Promise<Domain> {
    this.calls.push(`create ${dom.name} flags=${flags}`);
    const paused = (flags & libvirt.VIR_DOMAIN_START_PAUSED) !== 0;
    this.transition(
      dom.name,
      paused ? libvirt.VIR_DOMAIN_PAUSED : libvirt.VIR_DOMAIN_RUNNING,
      paused ? libvirt.VIR_DOMAIN_PAUSED_USER : libvirt.VIR_DOMAIN_RUNNING_BOOTED,
      libvirt.VIR_DOMAIN_EVENT_STARTED,
      libvirt.VIR_DOMAIN_EVENT_STARTED_BOOTED,
    );
    return Promise.resolve(dom);
  }

  domainGetState(dom: Domain): Promise<{ state: number; reason: number }> {
    return Promise.resolve().then(() => {
      const { state, reason } = this.find(dom.name);
      return { state, reason };
    });
  }

  domainGetXMLDesc(dom: Domain): Promise<string> {
    return Promise.resolve().then(() => this.find(dom.name).xml);
  }

  domainSuspend(dom: Domain): Promise<void> {
    this.calls.push(`suspend ${dom.name}`);
    this.transition(
      dom.name,
      libvirt.VIR_DOMAIN_PAUSED,
      libvirt.VIR_DOMAIN_PAUSED_USER,
      libvirt.VIR_DOMAIN_EVENT_SUSPENDED,
      libvirt.VIR_DOMAIN_EVENT_SUSPENDED_PAUSED,
    );
    return Promise.resolve();
  }

  domainResume(dom: Domain): Promise<void> {
    this.calls.push(`resume ${dom.name}`);
    this.transition(
      dom.name,
      libvirt.VIR_DOMAIN_RUNNING,
      libvirt.VIR_DOMAIN_RUNNING_UNPAUSED,
      libvirt.VIR_DOMAIN_EVENT_RESUMED,
      libvirt.VIR_DOMAIN_EVENT_RESUMED_UNPAUSED,
    );
    return Promise.resolve();
  }

  /** A tiny PNG signature stands in for the display's picture. */
  domainScreenshot(dom: Domain, screen = 0): Promise<{ mime: string; data: Buffer }> {
    this.calls.push(`screenshot ${dom.name} screen=${screen}`);
    return Promise.resolve().then(() => {
      this.find(dom.name);
      return { mime: "image/png", data: Buffer.from("89504e470d0a1a0a", "hex") };
    });
  }

  domainShutdownFlags(dom: Domain, flags = 0): Promise<void> {
    this.calls.push(`shutdown ${dom.name} flags=${flags}`);
    return Promise.resolve();
  }

  domainDestroyFlags(dom: Domain, flags = 0): Promise<void> {
    this.calls.push(`destroy ${dom.name} flags=${flags}`);
    this.transition(
      dom.name,
      libvirt.VIR_DOMAIN_SHUTOFF,
      libvirt.VIR_DOMAIN_SHUTOFF_DESTROYED,
      libvirt.VIR_DOMAIN_EVENT_STOPPED,
      libvirt.VIR_DOMAIN_EVENT_STOPPED_DESTROYED,
    );
    return Promise.resolve();
  }

  domainUndefineFlags(dom: Domain, flags = 0): Promise<void> {
    this.calls.push(`undefine ${dom.name} flags=${flags}`);
    const { dom: known } = this.find(dom.name);
    this.domains.delete(dom.name);
    this.emit(known, libvirt.VIR_DOMAIN_EVENT_UNDEFINED, libvirt.VIR_DOMAIN_EVENT_UNDEFINED_REMOVED);
    return Promise.resolve();
  }

  domainReset(dom: Domain): Promise<void> {
    this.calls.push(`reset ${dom.name}`);
    return Promise.resolve();
  }

  domainReboot(dom: Domain, flags = 0): Promise<void> {
    this.calls.push(`reboot ${dom.name} flags=${flags}`);
    return Promise.resolve();
  }

  domainFSFreeze(dom: Domain): Promise<number> {
    this.calls.push(`fsfreeze ${dom.name}`);
    return Promise.resolve().then(() => this.agent.libvirtFreeze("frozen"));
  }

  domainFSThaw(dom: Domain): Promise<number> {
    this.calls.push(`fsthaw ${dom.name}`);
    return Promise.resolve().then(() => this.agent.libvirtFreeze("thawed"));
  }

  /** A domain whose running guest a device call with VIR_DOMAIN_AFFECT_LIVE may change, as libvirt checks. */
  private liveDomain(name: string, flags: number, procedure: string): FakeDomain {
    const domain = this.find(name);
    const active = domain.state === libvirt.VIR_DOMAIN_RUNNING || domain.state === libvirt.VIR_DOMAIN_PAUSED;
    if ((flags & libvirt.VIR_DOMAIN_AFFECT_LIVE) !== 0 && !active) {
      throw fakeError(
        libvirt.VIR_ERR_OPERATION_INVALID,
        "Requested operation is not valid: domain is not running",
        procedure,
      );
    }
    return domain;
  }

  /** Adds the `<disk>` to the domain's XML, where GetDomain reads it. */
  domainAttachDeviceFlags(dom: Domain, xml: string, flags = 0): Promise<void> {
    this.calls.push(`attach ${dom.name} flags=${flags}`);
    return Promise.resolve().then(() => {
      const domain = this.liveDomain(dom.name, flags, "REMOTE_PROC_DOMAIN_ATTACH_DEVICE_FLAGS");
      this.deviceCalls.push({ op: "attach", domain: dom.name, xml, flags });
      domain.xml = domain.xml.replace("</devices>", `${xml}</devices>`);
      this.emitDevice(domain.dom, "device-added", deviceAlias(xml) ?? "");
    });
  }

  /** Removes the `<disk>` with the same target, or fails as libvirt does when there is none. */
  domainDetachDeviceFlags(dom: Domain, xml: string, flags = 0): Promise<void> {
    this.calls.push(`detach ${dom.name} flags=${flags}`);
    return Promise.resolve().then(() => {
      const domain = this.liveDomain(dom.name, flags, "REMOTE_PROC_DOMAIN_DETACH_DEVICE_FLAGS");
      const target = diskTarget(xml);
      const disk = [...domain.xml.matchAll(/<disk\b[\s\S]*?<\/disk>/g)].find(
        ([element]) => diskTarget(element) === target,
      );
      if (!disk) {
        throw fakeError(
          libvirt.VIR_ERR_DEVICE_MISSING,
          `device not found: disk ${target ?? ""} not found`,
          "REMOTE_PROC_DOMAIN_DETACH_DEVICE_FLAGS",
        );
      }
      this.deviceCalls.push({ op: "detach", domain: dom.name, xml, flags });
      domain.xml = domain.xml.replace(disk[0], "");
      this.emitDevice(domain.dom, "device-removed", deviceAlias(disk[0]) ?? "");
    });
  }

  /** The current job as domainGetJobStats reports it; the migration call sets it to an unbounded one. */
  job: { type: number; params: Record<string, TypedParamValue> } = {
    type: libvirt.VIR_DOMAIN_JOB_NONE,
    params: {},
  };
  /** Every domainMigrateToURI3 call, in order. */
  readonly migrations: { domain: string; dconnuri: string; params: MigrateParameters; flags: number }[] = [];
  private migrationEnd: { resolve: () => void; reject: (error: Error) => void } | undefined;

  /**
   * Starts a migration that runs until finishMigration or failMigration (or an abort) ends it: an
   * unbounded job with the data still to send.
   */
  domainMigrateToURI3(
    dom: Domain,
    dconnuri: string,
    params: MigrateParameters,
    flags: number,
  ): Promise<void> {
    this.calls.push(`migrate ${dom.name} flags=${flags}`);
    this.migrations.push({ domain: dom.name, dconnuri, params, flags });
    this.find(dom.name);
    this.job = { type: libvirt.VIR_DOMAIN_JOB_UNBOUNDED, params: { data_remaining: 64n << 20n } };
    return new Promise((resolve, reject) => (this.migrationEnd = { resolve, reject }));
  }

  /** The migration went through: the source's domain is shut off, reason migrated. */
  finishMigration(): void {
    const name = this.migrations.at(-1)?.domain ?? "";
    this.job = { type: libvirt.VIR_DOMAIN_JOB_NONE, params: {} };
    this.transition(
      name,
      libvirt.VIR_DOMAIN_SHUTOFF,
      libvirt.VIR_DOMAIN_SHUTOFF_MIGRATED,
      libvirt.VIR_DOMAIN_EVENT_STOPPED,
      libvirt.VIR_DOMAIN_EVENT_STOPPED_MIGRATED,
    );
    this.migrationEnd?.resolve();
    this.migrationEnd = undefined;
  }

  /** The migration call fails with libvirt's `message`; the guest keeps running here. */
  failMigration(message: string): void {
    this.job = { type: libvirt.VIR_DOMAIN_JOB_NONE, params: {} };
    this.migrationEnd?.reject(
      fakeError(libvirt.VIR_ERR_OPERATION_FAILED, message, "REMOTE_PROC_DOMAIN_MIGRATE_PERFORM3_PARAMS"),
    );
    this.migrationEnd = undefined;
  }

  domainGetJobStats(dom: Domain): Promise<{ type: number; params: Record<string, TypedParamValue> }> {
    return Promise.resolve().then(() => {
      this.find(dom.name);
      return { type: this.job.type, params: { ...this.job.params } };
    });
  }

  domainGetJobInfo(dom: Domain): Promise<RemoteDomainGetJobInfoRet> {
    return Promise.resolve().then(() => {
      this.find(dom.name);
      const remaining = this.job.params["data_remaining"];
      return {
        type: this.job.type,
        timeElapsed: 0n,
        timeRemaining: 0n,
        dataTotal: 0n,
        dataProcessed: 0n,
        dataRemaining: typeof remaining === "bigint" ? remaining : 0n,
        memTotal: 0n,
        memProcessed: 0n,
        memRemaining: 0n,
        fileTotal: 0n,
        fileProcessed: 0n,
        fileRemaining: 0n,
      };
    });
  }

  /** Aborts the running migration as libvirt does: its call fails saying the client canceled it. */
  domainAbortJob(dom: Domain): Promise<void> {
    this.calls.push(`abortJob ${dom.name}`);
    return Promise.resolve().then(() => {
      if (this.job.type !== libvirt.VIR_DOMAIN_JOB_UNBOUNDED) {
        throw fakeError(
          libvirt.VIR_ERR_OPERATION_INVALID,
          "Requested operation is not valid: no job is active on the domain",
          "REMOTE_PROC_DOMAIN_ABORT_JOB",
        );
      }
      // As in libvirt, the migration call fails after the abort has answered.
      setImmediate(() => this.failMigration("operation aborted: migration out job: canceled by client"));
    });
  }

  domainSetTime(dom: Domain, seconds: bigint): Promise<void> {
    this.calls.push(`setTime ${dom.name} ${seconds > 0n ? "now" : "zero"}`);
    return Promise.resolve().then(() => void this.find(dom.name));
  }

  domainMigrateStartPostCopy(dom: Domain): Promise<void> {
    this.calls.push(`postcopy ${dom.name}`);
    return Promise.resolve();
  }

  connectListAllDomains(): Promise<Domain[]> {
    return Promise.resolve([...this.domains.values()].map((domain) => domain.dom));
  }

  getVersion(): Promise<number> {
    return Promise.resolve(7_002_000);
  }

  subscribeDomainEvents(
    eventID: number,
    _dom: Domain | null,
    listener: (event: DomainEvent) => void,
  ): Promise<DomainEventSubscription> {
    const callbackID = this.nextCallbackID++;
    this.listeners.set(callbackID, { eventID, listener });
    return Promise.resolve({
      callbackID,
      unsubscribe: () => Promise.resolve(void this.listeners.delete(callbackID)),
    });
  }
}
