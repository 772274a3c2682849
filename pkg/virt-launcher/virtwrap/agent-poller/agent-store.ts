// The guest agent's data as the poller last read it (upstream AsyncAgentStore). A change of what
// virt-handler reports from the domain status (OS, interfaces, filesystem freeze status) is announced to
// the listeners, so the launcher sends a domain event; the rest is read on request (GetGuestInfo,
// GetUsers, GetFilesystems).
import { isDeepStrictEqual } from "node:util";
import type { DomainObject, GuestOSInfo, InterfaceStatus } from "../api/domain-object.js";
import type { AgentInfo, Filesystem } from "./agent-parser.js";
import type { Timezone, User } from "./guest-info.js";

/** What the store keeps, by key (upstream keys it by libvirt's guest info type or the agent command). */
export interface AgentData {
  os: GuestOSInfo;
  interfaces: InterfaceStatus[] | undefined;
  hostname: string;
  timezone: Timezone;
  users: User[] | undefined;
  "guest-get-fsinfo": Filesystem[];
  "guest-info": AgentInfo;
  "guest-fsfreeze-status": string;
}
export type AgentDataKey = keyof AgentData;

/** Upstream api.DomainGuestInfo: what goes into the domain status. Undefined: never read. */
export interface DomainGuestInfo {
  interfaces: InterfaceStatus[] | undefined;
  osInfo: GuestOSInfo | undefined;
  fsFreezeStatus: string | undefined;
}

/** Upstream api.DomainSysInfo. */
export interface DomainSysInfo {
  hostname: string;
  osInfo: GuestOSInfo;
  timezone: Timezone;
}

const REPORTED: ReadonlySet<AgentDataKey> = new Set<AgentDataKey>([
  "os",
  "interfaces",
  "guest-fsfreeze-status",
]);

const NO_OS_INFO: GuestOSInfo = {
  name: "",
  kernelRelease: "",
  version: "",
  prettyName: "",
  versionId: "",
  kernelVersion: "",
  machine: "",
  id: "",
};

/** The first `limit` items, or all with -1. */
const limited = <T>(items: readonly T[], limit: number): T[] =>
  limit === -1 ? [...items] : items.slice(0, limit);

export class AsyncAgentStore {
  private readonly data = new Map<AgentDataKey, unknown>();
  private readonly listeners = new Set<(info: DomainGuestInfo) => void>();

  /** Keeps `value`; when a reported key's value changed (or was first read), tells the listeners. */
  store<K extends AgentDataKey>(key: K, value: AgentData[K]): void {
    const known = this.data.has(key);
    const previous = this.data.get(key);
    this.data.set(key, value);
    if (!REPORTED.has(key) || (known && isDeepStrictEqual(previous, value))) return;
    const info = this.domainGuestInfo();
    for (const listener of this.listeners) listener(info);
  }

  /** Calls `listener` with the reported data after each change; returns the unsubscribe function. */
  onUpdate(listener: (info: DomainGuestInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private get<K extends AgentDataKey>(key: K): AgentData[K] | undefined {
    return this.data.get(key) as AgentData[K] | undefined;
  }

  domainGuestInfo(): DomainGuestInfo {
    return {
      interfaces: this.getInterfaceStatus(),
      osInfo: this.getGuestOSInfo(),
      fsFreezeStatus: this.getFSFreezeStatus(),
    };
  }

  getSysInfo(): DomainSysInfo {
    return {
      hostname: this.get("hostname") ?? "",
      osInfo: this.get("os") ?? NO_OS_INFO,
      timezone: this.get("timezone") ?? { zone: "", offset: 0 },
    };
  }

  getInterfaceStatus(): InterfaceStatus[] | undefined {
    return this.get("interfaces");
  }

  getGuestOSInfo(): GuestOSInfo | undefined {
    return this.get("os");
  }

  /** guest-info: the agent's version and commands, empty before the agent answered. */
  getGA(): AgentInfo {
    return this.get("guest-info") ?? { version: "", supportedCommands: [] };
  }

  getFSFreezeStatus(): string | undefined {
    return this.get("guest-fsfreeze-status");
  }

  getFS(limit: number): Filesystem[] {
    return limited(this.get("guest-get-fsinfo") ?? [], limit);
  }

  getUsers(limit: number): User[] {
    return limited(this.get("users") ?? [], limit);
  }
}

/** The domain with the agent's data in its status, where the agent said anything (upstream eventCallback). */
export function withGuestInfo(domain: DomainObject, info: DomainGuestInfo): DomainObject {
  const status = { ...domain.status };
  if (info.interfaces !== undefined) status.interfaces = info.interfaces;
  if (info.osInfo !== undefined) status.osInfo = info.osInfo;
  if (info.fsFreezeStatus !== undefined) status.fsFreezeStatus = info.fsFreezeStatus;
  return { ...domain, status };
}
