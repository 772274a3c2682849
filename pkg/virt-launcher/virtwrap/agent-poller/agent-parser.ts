// Answers of the guest agent commands the poller sends itself (upstream agent-poller/agent_parser.go):
// guest-info, guest-get-fsinfo and guest-fsfreeze-status, each `{"return": ...}` as qemu-ga writes it.
// Anything libvirt's virDomainGetGuestInfo covers is read through that call instead (guest-info.ts).
import { z } from "zod";
import type { GuestAgentCommandInfo } from "../../../api/generated/v1.js";

export interface FSDisk {
  serial: string;
  busType: string;
}

/** Upstream api.Filesystem. */
export interface Filesystem {
  name: string;
  mountpoint: string;
  type: string;
  usedBytes: number;
  totalBytes: number;
  disk: FSDisk[];
}

/** guest-info's version and commands: whether an agent is there, and whether it can do what KubeVirt needs. */
export interface AgentInfo {
  version: string;
  supportedCommands: GuestAgentCommandInfo[];
}

// qemu-ga's own field names; Go's decoder ignores what it does not know, so do these.
const FilesystemReply = z.array(
  z.object({
    name: z.string().default(""),
    mountpoint: z.string().default(""),
    type: z.string().default(""),
    "used-bytes": z.number().int().default(0),
    "total-bytes": z.number().int().default(0),
    disk: z.array(z.object({ serial: z.string().default(""), "bus-type": z.string().default("") })).nullish(),
  }),
);

const AgentReply = z.object({
  version: z.string().default(""),
  supported_commands: z
    .array(z.object({ name: z.string().default(""), enabled: z.boolean().default(false) }))
    .nullish(),
});

/** The value under `return`; throws when the answer is not JSON or carries none. */
function returned(agentReply: string): unknown {
  const parsed = JSON.parse(agentReply) as unknown;
  if (typeof parsed !== "object" || parsed === null || !("return" in parsed)) {
    throw new Error(`no return value in the agent's answer: ${agentReply}`);
  }
  return (parsed as { return: unknown }).return;
}

/** guest-fsfreeze-status: "thawed" or "frozen". */
export function parseFSFreezeStatus(agentReply: string): string {
  let status: unknown;
  try {
    status = returned(agentReply);
  } catch {
    status = undefined;
  }
  if (typeof status !== "string" || status === "") {
    throw new Error(`failed to strip FSFreeze status: ${agentReply}`);
  }
  return status;
}

export function parseFilesystem(agentReply: string): Filesystem[] {
  return FilesystemReply.parse(returned(agentReply)).map((fs) => ({
    name: fs.name,
    mountpoint: fs.mountpoint,
    type: fs.type,
    usedBytes: fs["used-bytes"],
    totalBytes: fs["total-bytes"],
    disk: (fs.disk ?? []).map((disk) => ({ serial: disk.serial, busType: disk["bus-type"] })),
  }));
}

export function parseAgent(agentReply: string): AgentInfo {
  const reply = AgentReply.parse(returned(agentReply));
  return {
    version: reply.version,
    supportedCommands: (reply.supported_commands ?? []).map(({ name, enabled }) => ({ name, enabled })),
  };
}
