// What libvirt's virDomainGetGuestInfo answers, as upstream's poller keeps it (the convertTo* functions of
// upstream agent_poller.go over libvirt-go's DomainGuestInfo). libvirt asks the agent itself
// (guest-get-osinfo, guest-get-host-name, guest-get-timezone, guest-get-users,
// guest-network-get-interfaces) and flattens the answers into typed parameters named `os.name`,
// `user.0.login-time`, `if.1.addr.0.addr` ...
import type { TypedParamValue } from "../../../libvirt/typed-params.js";
import type { GuestOSInfo, InterfaceStatus } from "../api/domain-object.js";

export type GuestInfoParams = Readonly<Record<string, TypedParamValue>>;

/** Upstream api.Timezone. */
export interface Timezone {
  zone: string;
  offset: number;
}

/** Upstream api.User: the login time in (fractional) seconds since the epoch. */
export interface User {
  name: string;
  domain: string;
  loginTime: number;
}

const text = (params: GuestInfoParams, field: string): string => {
  const value = params[field];
  return typeof value === "string" ? value : "";
};

const count = (params: GuestInfoParams, field: string): number => {
  const value = params[field];
  return typeof value === "number" || typeof value === "bigint" ? Number(value) : 0;
};

export function osInfoFrom(params: GuestInfoParams): GuestOSInfo {
  return {
    name: text(params, "os.name"),
    kernelRelease: text(params, "os.kernel-release"),
    version: text(params, "os.version"),
    prettyName: text(params, "os.pretty-name"),
    versionId: text(params, "os.version-id"),
    kernelVersion: text(params, "os.kernel-version"),
    machine: text(params, "os.machine"),
    id: text(params, "os.id"),
  };
}

export function hostnameFrom(params: GuestInfoParams): string {
  return text(params, "hostname");
}

export function timezoneFrom(params: GuestInfoParams): Timezone {
  return { zone: text(params, "timezone.name"), offset: count(params, "timezone.offset") };
}

/** The guest's interfaces but loopback; the first IPv4 address is the interface's main one. Undefined: none. */
export function interfacesFrom(params: GuestInfoParams): InterfaceStatus[] | undefined {
  const interfaces: InterfaceStatus[] = [];
  for (let i = 0; i < count(params, "if.count"); i++) {
    const name = text(params, `if.${i}.name`);
    if (name === "lo") continue;
    const addresses = Array.from({ length: count(params, `if.${i}.addr.count`) }, (_, j) => ({
      type: text(params, `if.${i}.addr.${j}.type`),
      addr: text(params, `if.${i}.addr.${j}.addr`),
    }));
    const ips = addresses.map((address) => address.addr);
    const ip = addresses.find((address) => address.type === "ipv4")?.addr ?? ips[0] ?? "";
    interfaces.push({
      mac: text(params, `if.${i}.hwaddr`),
      ip,
      ...(ips.length > 0 ? { ips } : {}),
      interfaceName: name,
    });
  }
  return interfaces.length > 0 ? interfaces : undefined;
}

/** Logged-in users; libvirt gives the login time in milliseconds. Undefined: none. */
export function usersFrom(params: GuestInfoParams): User[] | undefined {
  const users: User[] = [];
  for (let i = 0; i < count(params, "user.count"); i++) {
    const loginMs = params[`user.${i}.login-time`];
    // libvirt's field is unsigned 64-bit; upstream reports 0 for what does not fit a signed one.
    const ms =
      typeof loginMs === "bigint"
        ? loginMs >= 1n << 63n
          ? 0
          : Number(loginMs)
        : typeof loginMs === "number"
          ? loginMs
          : 0;
    users.push({
      name: text(params, `user.${i}.name`),
      domain: text(params, `user.${i}.domain`),
      loginTime: ms / 1000,
    });
  }
  return users.length > 0 ? users : undefined;
}
