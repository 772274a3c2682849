// Polls the guest agent while it is connected (upstream agent-poller/agent_poller.go): each worker runs
// its commands at once, then again at an interval that starts at 10 s and doubles up to the worker's own
// period. The agent's lifecycle events start and stop the workers, and so do pause and resume of the
// domain. Through libvirt: virDomainGetGuestInfo where libvirt offers the data, raw agent commands for
// guest-info, guest-get-fsinfo and guest-fsfreeze-status (which libvirt's API does not cover alike).
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../../controller/log.js";
import type { LibvirtClient } from "../../../libvirt/client.js";
import type { DomainEvent } from "../../../libvirt/domain-events.js";
import * as libvirt from "../../../libvirt/generated/libvirt-api.js";
import { errorMessage } from "../../../util/error-message.js";
import { parseAgent, parseFSFreezeStatus, parseFilesystem } from "./agent-parser.js";
import type { AsyncAgentStore } from "./agent-store.js";
import { hostnameFrom, interfacesFrom, osInfoFrom, timezoneFrom, usersFrom } from "./guest-info.js";

export type AgentConnection = Pick<
  LibvirtClient,
  "domainLookupByName" | "qemuAgentCommand" | "domainGetGuestInfo"
>;

export type AgentCommand = "guest-info" | "guest-get-fsinfo" | "guest-fsfreeze-status";

/** A set of calls made at one period: agent commands, or libvirt guest info types. */
export interface PollerWorker {
  agentCommands: readonly AgentCommand[];
  /** VIR_DOMAIN_GUEST_INFO_* bits; 0 with agent commands. */
  infoTypes: number;
  callTickMs: number;
}

/** virt-launcher's --qemu-agent-*-interval and --qemu-fsfreeze-status-interval flags. */
export interface AgentPollIntervals {
  sysMs: number;
  fileMs: number;
  userMs: number;
  versionMs: number;
  fsFreezeStatusMs: number;
}

/** Upstream's flag defaults. */
export const DEFAULT_AGENT_POLL_INTERVALS: AgentPollIntervals = {
  sysMs: 120_000,
  fileMs: 300_000,
  userMs: 10_000,
  versionMs: 300_000,
  fsFreezeStatusMs: 5_000,
};

export const POLL_INITIAL_INTERVAL_MS = 10_000;

export interface AgentPollerOptions {
  connection: AgentConnection;
  domainName: string;
  store: AsyncAgentStore;
  intervals?: AgentPollIntervals;
  log: Logger;
  initialIntervalMs?: number;
  /** Waits `ms` unless the signal aborts first (then rejects); tests pass their own clock. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal, ref: false });

/**
 * The workers upstream's CreatePoller sets up. Upstream's sixth worker reads the guest's load for the
 * domain statistics, which this port does not report yet (and libvirt 9.0 has no such guest info type).
 */
export function pollerWorkers(intervals: AgentPollIntervals): PollerWorker[] {
  return [
    { agentCommands: ["guest-info"], infoTypes: 0, callTickMs: intervals.versionMs },
    { agentCommands: ["guest-get-fsinfo"], infoTypes: 0, callTickMs: intervals.fileMs },
    { agentCommands: ["guest-fsfreeze-status"], infoTypes: 0, callTickMs: intervals.fsFreezeStatusMs },
    {
      agentCommands: [],
      infoTypes:
        libvirt.VIR_DOMAIN_GUEST_INFO_INTERFACES |
        libvirt.VIR_DOMAIN_GUEST_INFO_OS |
        libvirt.VIR_DOMAIN_GUEST_INFO_HOSTNAME |
        libvirt.VIR_DOMAIN_GUEST_INFO_TIMEZONE,
      callTickMs: intervals.sysMs,
    },
    { agentCommands: [], infoTypes: libvirt.VIR_DOMAIN_GUEST_INFO_USERS, callTickMs: intervals.userMs },
  ];
}

/** The intervals a worker waits between its rounds: from the initial interval, doubling up to its period. */
export function* pollIntervals(initialMs: number, maxMs: number): Generator<number, never> {
  let interval = Math.min(initialMs, maxMs);
  for (;;) {
    yield interval;
    interval = Math.min(interval * 2, maxMs);
  }
}

/** One raw agent command by name, through libvirt, as upstream's Connection.QemuAgentCommand sends it. */
export async function agentCommand(
  connection: Pick<AgentConnection, "domainLookupByName" | "qemuAgentCommand">,
  domainName: string,
  command: string,
): Promise<string> {
  const dom = await connection.domainLookupByName(domainName);
  return connection.qemuAgentCommand(dom, JSON.stringify({ execute: command }));
}

/** guest-fsfreeze-status: "thawed" or "frozen" (freeze and unfreeze read it too, to report at once). */
export async function readFSFreezeStatus(
  connection: Pick<AgentConnection, "domainLookupByName" | "qemuAgentCommand">,
  domainName: string,
): Promise<string> {
  return parseFSFreezeStatus(await agentCommand(connection, domainName, "guest-fsfreeze-status"));
}

export class AgentPoller {
  private running: AbortController | undefined;
  private agentConnected = false;
  private readonly workers: PollerWorker[];

  constructor(private readonly options: AgentPollerOptions) {
    this.workers = pollerWorkers(options.intervals ?? DEFAULT_AGENT_POLL_INTERVALS);
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  start(): void {
    if (this.running) return;
    const running = new AbortController();
    this.running = running;
    for (const worker of this.workers) {
      this.options.log.info(
        worker.agentCommands.length > 0
          ? `Starting agent poller with commands: ${worker.agentCommands.join(" ")}`
          : `Starting agent poller with API operations: ${worker.infoTypes}`,
      );
      void this.poll(worker, running.signal);
    }
  }

  stop(): void {
    this.running?.abort();
    this.running = undefined;
  }

  /** One round of every worker, now, whether or not the poller runs. */
  async pollOnce(): Promise<void> {
    await Promise.all(this.workers.map((worker) => this.round(worker)));
  }

  /** Upstream UpdateFromEvent: pause stops the polling, the agent's (dis)connection starts or stops it. */
  updateFromEvent(event: DomainEvent): void {
    const { domainName, log } = this.options;
    if (event.kind === "lifecycle") {
      if (event.event === libvirt.VIR_DOMAIN_EVENT_SUSPENDED) {
        log.info(`Stopping agent poller for ${domainName} due to domain suspend`);
        this.stop();
      } else if (event.event === libvirt.VIR_DOMAIN_EVENT_RESUMED && this.agentConnected) {
        // Only while the agent is connected: a resume must not start polling an agent not there yet.
        log.info(`Starting agent poller for ${domainName} due to domain resume (agent connected)`);
        this.start();
      }
    } else if (event.kind === "agent-lifecycle") {
      if (event.state === libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_DISCONNECTED) {
        log.info(`Stopping agent poller for ${domainName} due to agent disconnect`);
        this.agentConnected = false;
        this.stop();
      } else if (event.state === libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_CONNECTED) {
        log.info(`Starting agent poller for ${domainName} due to agent connect`);
        this.agentConnected = true;
        this.start();
      }
    }
  }

  private async poll(worker: PollerWorker, signal: AbortSignal): Promise<void> {
    const wait = this.options.sleep ?? defaultSleep;
    const intervals = pollIntervals(
      this.options.initialIntervalMs ?? POLL_INITIAL_INTERVAL_MS,
      worker.callTickMs,
    );
    // The first round fills the cache at once.
    await this.round(worker);
    while (!signal.aborted) {
      try {
        await wait(intervals.next().value, signal);
      } catch {
        return;
      }
      if (signal.aborted) return;
      await this.round(worker);
    }
  }

  private round(worker: PollerWorker): Promise<void> {
    return worker.agentCommands.length > 0
      ? this.executeAgentCommands(worker.agentCommands)
      : this.fetchAndStoreGuestInfo(worker.infoTypes);
  }

  private async executeAgentCommands(commands: readonly AgentCommand[]): Promise<void> {
    const { connection, domainName, store, log } = this.options;
    for (const command of commands) {
      let reply: string;
      try {
        reply = await agentCommand(connection, domainName, command);
      } catch {
        continue; // not vital: the next round asks again
      }
      try {
        if (command === "guest-fsfreeze-status") store.store(command, parseFSFreezeStatus(reply));
        else if (command === "guest-get-fsinfo") store.store(command, parseFilesystem(reply));
        else store.store(command, parseAgent(reply));
      } catch (error) {
        log.error({ err: error }, `Cannot parse guest agent answer to ${command}: ${errorMessage(error)}`);
      }
    }
  }

  private async fetchAndStoreGuestInfo(types: number): Promise<void> {
    const { connection, domainName, store, log } = this.options;
    let params: Awaited<ReturnType<AgentConnection["domainGetGuestInfo"]>>;
    try {
      const dom = await connection.domainLookupByName(domainName);
      params = await connection.domainGetGuestInfo(dom, types, 0);
    } catch (error) {
      log.error({ err: error }, `Fetching guest info failed: ${errorMessage(error)}`);
      return;
    }
    if (types & libvirt.VIR_DOMAIN_GUEST_INFO_INTERFACES) store.store("interfaces", interfacesFrom(params));
    if (types & libvirt.VIR_DOMAIN_GUEST_INFO_OS) store.store("os", osInfoFrom(params));
    if (types & libvirt.VIR_DOMAIN_GUEST_INFO_HOSTNAME) store.store("hostname", hostnameFrom(params));
    if (types & libvirt.VIR_DOMAIN_GUEST_INFO_TIMEZONE) store.store("timezone", timezoneFrom(params));
    if (types & libvirt.VIR_DOMAIN_GUEST_INFO_USERS) store.store("users", usersFrom(params));
  }
}
