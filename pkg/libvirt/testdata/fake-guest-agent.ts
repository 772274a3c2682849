// Test helper: a guest agent as qemu-ga answers (QGA JSON: `{"execute": ...}` in, `{"return": ...}` or
// `{"error": ...}` out), and what libvirt makes of it: a raw agent command passes the answer through,
// virDomainGetGuestInfo asks the agent and flattens the answers into typed parameters, and a
// disconnected agent fails both with libvirt's error (as real-libvirt.test.ts shows libvirt 9.0 words it).
import {
  VIR_DOMAIN_GUEST_INFO_HOSTNAME,
  VIR_DOMAIN_GUEST_INFO_INTERFACES,
  VIR_DOMAIN_GUEST_INFO_OS,
  VIR_DOMAIN_GUEST_INFO_TIMEZONE,
  VIR_DOMAIN_GUEST_INFO_USERS,
  VIR_ERR_AGENT_UNRESPONSIVE,
  VIR_ERR_INTERNAL_ERROR,
  VIR_ERR_NO_DOMAIN,
  VIR_FROM_QEMU,
  VIR_TYPED_PARAM_INT,
  VIR_TYPED_PARAM_STRING,
  VIR_TYPED_PARAM_UINT,
  VIR_TYPED_PARAM_ULLONG,
} from "../generated/libvirt-api.js";
import type { Domain } from "../domain-events.js";
import {
  QEMU_PROC_DOMAIN_AGENT_COMMAND,
  QEMU_PROGRAM,
  QemuDomainAgentCommandArgsCodec,
  QemuDomainAgentCommandRetCodec,
} from "../generated/qemu-protocol.js";
import {
  REMOTE_PROC_DOMAIN_GET_GUEST_INFO,
  REMOTE_PROC_DOMAIN_LOOKUP_BY_NAME,
  REMOTE_PROGRAM,
  RemoteDomainGetGuestInfoArgsCodec,
  RemoteDomainGetGuestInfoRetCodec,
  RemoteDomainLookupByNameArgsCodec,
  RemoteDomainLookupByNameRetCodec,
} from "../generated/remote-protocol.js";
import type { RemoteTypedParam } from "../generated/remote-protocol.js";
import { VIR_NET_ERROR, VirNetMessageErrorCodec } from "../generated/virnet-protocol.js";
import type { VirNetMessageError } from "../generated/virnet-protocol.js";
import { LibvirtError } from "../errors.js";
import { decodeXdr, encodeXdr } from "../xdr.js";
import type { FakeDaemon } from "./fake-daemon.js";

/** What the guest looks like from its agent, in qemu-ga's own field names. */
export interface GuestAgentState {
  version: string;
  /** Names of the commands the agent has; all enabled unless listed in `disabledCommands`. */
  commands: string[];
  disabledCommands?: string[];
  osinfo: Record<string, string>;
  hostName: string;
  timezone: { zone?: string; offset: number };
  users: { user: string; domain?: string; "login-time": number }[];
  interfaces: {
    name: string;
    "hardware-address"?: string;
    "ip-addresses"?: { "ip-address-type": "ipv4" | "ipv6"; "ip-address": string; prefix: number }[];
  }[];
  filesystems: {
    name: string;
    mountpoint: string;
    type: string;
    "used-bytes"?: number;
    "total-bytes"?: number;
    disk: { serial?: string; "bus-type": string; dev?: string }[];
  }[];
  fsFreezeStatus: "thawed" | "frozen";
}

/** The commands upstream's virt-handler requires, and a few qemu-ga 7.2 has besides. */
export const QEMU_GA_COMMANDS = [
  "guest-ping",
  "guest-get-time",
  "guest-info",
  "guest-shutdown",
  "guest-network-get-interfaces",
  "guest-get-fsinfo",
  "guest-get-host-name",
  "guest-get-users",
  "guest-get-timezone",
  "guest-get-osinfo",
  "guest-fsfreeze-status",
  "guest-fsfreeze-freeze",
  "guest-fsfreeze-thaw",
  "guest-exec",
  "guest-exec-status",
  "guest-ssh-get-authorized-keys",
  "guest-ssh-add-authorized-keys",
  "guest-ssh-remove-authorized-keys",
  "guest-set-user-password",
];

/** A Debian guest with one user logged in, as the test guest's qemu-ga would describe itself. */
export function debianGuest(): GuestAgentState {
  return {
    version: "7.2.0",
    commands: [...QEMU_GA_COMMANDS],
    osinfo: {
      name: "Debian GNU/Linux",
      "kernel-release": "6.1.0-18-amd64",
      version: "12 (bookworm)",
      "pretty-name": "Debian GNU/Linux 12 (bookworm)",
      "version-id": "12",
      "kernel-version": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
      machine: "x86_64",
      id: "debian",
    },
    hostName: "testvmi",
    timezone: { zone: "UTC", offset: 0 },
    users: [{ user: "root", "login-time": 1_700_000_000.123456 }],
    interfaces: [
      {
        name: "lo",
        "hardware-address": "00:00:00:00:00:00",
        "ip-addresses": [{ "ip-address-type": "ipv4", "ip-address": "127.0.0.1", prefix: 8 }],
      },
      {
        name: "eth0",
        "hardware-address": "02:00:00:aa:bb:cc",
        "ip-addresses": [
          { "ip-address-type": "ipv6", "ip-address": "fe80::ff:feaa:bbcc", prefix: 64 },
          { "ip-address-type": "ipv4", "ip-address": "10.0.2.2", prefix: 24 },
        ],
      },
    ],
    filesystems: [
      {
        name: "vda1",
        mountpoint: "/",
        type: "ext4",
        "used-bytes": 5_368_709_120,
        "total-bytes": 10_737_418_240,
        disk: [{ serial: "containerdisk", "bus-type": "virtio", dev: "/dev/vda1" }],
      },
    ],
    fsFreezeStatus: "thawed",
  };
}

function libvirtError(code: number, message: string, procedure: string): LibvirtError {
  const error: VirNetMessageError = {
    code,
    domain: VIR_FROM_QEMU,
    message,
    level: 2,
    dom: null,
    str1: null,
    str2: null,
    str3: null,
    int1: 0,
    int2: 0,
    net: null,
  };
  return new LibvirtError(error, procedure);
}

export class FakeGuestAgent {
  /** Every command the agent was asked, in order. */
  readonly received: string[] = [];
  /** Whether the guest side of the channel is open; libvirt refuses agent calls otherwise. */
  connected = true;

  constructor(readonly state: GuestAgentState = debianGuest()) {}

  /** qemu-ga's answer to one QGA request. */
  answer(request: string): string {
    const { execute } = JSON.parse(request) as { execute: string };
    this.received.push(execute);
    const result = this.result(execute);
    if (result === undefined) {
      return JSON.stringify({
        error: { class: "CommandNotFound", desc: `The command ${execute} has not been found` },
      });
    }
    return JSON.stringify({ return: result });
  }

  private result(command: string): unknown {
    const { state } = this;
    if (!state.commands.includes(command) || state.disabledCommands?.includes(command)) return undefined;
    switch (command) {
      case "guest-info":
        return {
          version: state.version,
          supported_commands: state.commands.map((name) => ({
            enabled: !state.disabledCommands?.includes(name),
            name,
            "success-response": name !== "guest-shutdown",
          })),
        };
      case "guest-get-osinfo":
        return state.osinfo;
      case "guest-get-host-name":
        return { "host-name": state.hostName };
      case "guest-get-timezone":
        return state.timezone;
      case "guest-get-users":
        return state.users;
      case "guest-network-get-interfaces":
        return state.interfaces;
      case "guest-get-fsinfo":
        return state.filesystems;
      case "guest-fsfreeze-status":
        return state.fsFreezeStatus;
      case "guest-ping":
        return {};
      default:
        return undefined;
    }
  }

  /** virDomainQemuAgentCommand: the agent's answer, or libvirt's error for a missing agent or an agent error. */
  libvirtAgentCommand(request: string): string {
    const procedure = "QEMU_PROC_DOMAIN_AGENT_COMMAND";
    this.requireConnected(procedure);
    const reply = this.answer(request);
    const { error } = JSON.parse(reply) as { error?: { desc: string } };
    if (error) {
      const { execute } = JSON.parse(request) as { execute: string };
      throw libvirtError(
        VIR_ERR_INTERNAL_ERROR,
        `internal error: unable to execute QEMU agent command '${execute}': ${error.desc}`,
        procedure,
      );
    }
    return reply;
  }

  /** virDomainGetGuestInfo: libvirt's typed parameters for the asked types, built from the agent's answers. */
  libvirtGuestInfo(types: number): RemoteTypedParam[] {
    this.requireConnected("REMOTE_PROC_DOMAIN_GET_GUEST_INFO");
    const params: RemoteTypedParam[] = [];
    const str = (field: string, s: string) => params.push({ field, value: { type: VIR_TYPED_PARAM_STRING, s } });
    const uint = (field: string, ui: number) => params.push({ field, value: { type: VIR_TYPED_PARAM_UINT, ui } });
    const ask = <T>(command: string): T | undefined => {
      const reply = JSON.parse(this.answer(JSON.stringify({ execute: command }))) as { return?: T };
      return reply.return;
    };
    if (types & VIR_DOMAIN_GUEST_INFO_USERS) {
      const users = ask<GuestAgentState["users"]>("guest-get-users") ?? [];
      uint("user.count", users.length);
      users.forEach((user, i) => {
        str(`user.${i}.name`, user.user);
        if (user.domain) str(`user.${i}.domain`, user.domain);
        const ul = BigInt(Math.round(user["login-time"] * 1000));
        params.push({ field: `user.${i}.login-time`, value: { type: VIR_TYPED_PARAM_ULLONG, ul } });
      });
    }
    if (types & VIR_DOMAIN_GUEST_INFO_OS) {
      for (const [key, value] of Object.entries(ask<Record<string, string>>("guest-get-osinfo") ?? {})) {
        str(`os.${key}`, value);
      }
    }
    if (types & VIR_DOMAIN_GUEST_INFO_TIMEZONE) {
      const timezone = ask<GuestAgentState["timezone"]>("guest-get-timezone");
      if (timezone?.zone) str("timezone.name", timezone.zone);
      if (timezone) params.push({ field: "timezone.offset", value: { type: VIR_TYPED_PARAM_INT, i: timezone.offset } });
    }
    if (types & VIR_DOMAIN_GUEST_INFO_HOSTNAME) {
      const hostName = ask<{ "host-name": string }>("guest-get-host-name")?.["host-name"];
      if (hostName !== undefined) str("hostname", hostName);
    }
    if (types & VIR_DOMAIN_GUEST_INFO_INTERFACES) {
      const interfaces = ask<GuestAgentState["interfaces"]>("guest-network-get-interfaces") ?? [];
      uint("if.count", interfaces.length);
      interfaces.forEach((iface, i) => {
        str(`if.${i}.name`, iface.name);
        if (iface["hardware-address"]) str(`if.${i}.hwaddr`, iface["hardware-address"]);
        const addresses = iface["ip-addresses"] ?? [];
        uint(`if.${i}.addr.count`, addresses.length);
        addresses.forEach((address, j) => {
          str(`if.${i}.addr.${j}.type`, address["ip-address-type"]);
          str(`if.${i}.addr.${j}.addr`, address["ip-address"]);
          uint(`if.${i}.addr.${j}.prefix`, address.prefix);
        });
      });
    }
    return params;
  }

  /** virDomainFSFreeze / virDomainFSThaw: every freezable filesystem (one here) changes state. */
  libvirtFreeze(status: "frozen" | "thawed"): number {
    this.requireConnected(status === "frozen" ? "REMOTE_PROC_DOMAIN_FSFREEZE" : "REMOTE_PROC_DOMAIN_FSTHAW");
    this.state.fsFreezeStatus = status;
    return 1;
  }

  private requireConnected(procedure: string): void {
    if (!this.connected) {
      throw libvirtError(
        VIR_ERR_AGENT_UNRESPONSIVE,
        "Guest agent is not responding: QEMU guest agent is not connected",
        procedure,
      );
    }
  }
}

/**
 * Makes `daemon` answer what the launcher's agent poller asks libvirt: domain lookups by name (of
 * `domains`), raw agent commands and guest info, from `agent`. Returns the function that stops answering.
 */
export function serveAgentCalls(daemon: FakeDaemon, agent: FakeGuestAgent, domains: readonly Domain[]): () => void {
  return daemon.onPacket((call) => {
    const { prog, proc } = call.header;
    try {
      if (prog === REMOTE_PROGRAM && proc === REMOTE_PROC_DOMAIN_LOOKUP_BY_NAME) {
        const { name } = decodeXdr(RemoteDomainLookupByNameArgsCodec, call.payload);
        const dom = domains.find((candidate) => candidate.name === name);
        if (!dom) throw libvirtError(VIR_ERR_NO_DOMAIN, `Domain not found: no domain with matching name '${name}'`, "lookup");
        daemon.reply(call, encodeXdr(RemoteDomainLookupByNameRetCodec, { dom }));
      } else if (prog === QEMU_PROGRAM && proc === QEMU_PROC_DOMAIN_AGENT_COMMAND) {
        const { cmd } = decodeXdr(QemuDomainAgentCommandArgsCodec, call.payload);
        daemon.reply(call, encodeXdr(QemuDomainAgentCommandRetCodec, { result: agent.libvirtAgentCommand(cmd) }));
      } else if (prog === REMOTE_PROGRAM && proc === REMOTE_PROC_DOMAIN_GET_GUEST_INFO) {
        const { types } = decodeXdr(RemoteDomainGetGuestInfoArgsCodec, call.payload);
        daemon.reply(call, encodeXdr(RemoteDomainGetGuestInfoRetCodec, { params: agent.libvirtGuestInfo(types) }));
      }
    } catch (error) {
      if (!(error instanceof LibvirtError)) throw error;
      const { code, domain, level, message, str1, str2, str3, int1, int2 } = error;
      const payload = encodeXdr(VirNetMessageErrorCodec, {
        code,
        domain,
        message,
        level,
        dom: null,
        str1,
        str2,
        str3,
        int1,
        int2,
        net: null,
      });
      daemon.reply(call, payload, VIR_NET_ERROR);
    }
  });
}
