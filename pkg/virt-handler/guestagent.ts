// Whether the guest's agent can do what KubeVirt asks of it (upstream pkg/virt-handler/guestagent.go):
// the basic commands always, and the SSH key or password commands when an access credential is
// propagated through the agent.
import type { GuestAgentCommandInfo, VirtualMachineInstance } from "../api/generated/v1.js";

const REQUIRED_COMMANDS = [
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
];
const SSH_COMMANDS = [
  "guest-ssh-get-authorized-keys",
  "guest-ssh-add-authorized-keys",
  "guest-ssh-remove-authorized-keys",
];
/** Agents older than the SSH commands get the keys written through file commands. */
const OLD_SSH_COMMANDS = [
  "guest-exec-status",
  "guest-exec",
  "guest-file-open",
  "guest-file-close",
  "guest-file-read",
  "guest-file-write",
];
const PASSWORD_COMMANDS = ["guest-set-user-password"];

const allEnabled = (required: readonly string[], available: ReadonlyMap<string, boolean>): boolean =>
  required.every((command) => available.get(command) === true);

/** Supported or not, and upstream's reason either way. */
export function isGuestAgentSupported(
  vmi: VirtualMachineInstance | undefined,
  commands: readonly GuestAgentCommandInfo[],
): { supported: boolean; reason: string } {
  const available = new Map(commands.map((command) => [command.name, command.enabled === true]));
  if (!allEnabled(REQUIRED_COMMANDS, available)) {
    return { supported: false, reason: "This guest agent doesn't support required basic commands" };
  }
  const credentials = vmi?.spec.accessCredentials ?? [];
  const checkSSH = credentials.some(
    (credential) => credential.sshPublicKey?.propagationMethod.qemuGuestAgent,
  );
  const checkPassword = credentials.some(
    (credential) => credential.userPassword?.propagationMethod.qemuGuestAgent,
  );
  if (checkSSH && !allEnabled(SSH_COMMANDS, available) && !allEnabled(OLD_SSH_COMMANDS, available)) {
    return { supported: false, reason: "This guest agent doesn't support required public key commands" };
  }
  if (checkPassword && !allEnabled(PASSWORD_COMMANDS, available)) {
    return { supported: false, reason: "This guest agent doesn't support required password commands" };
  }
  return { supported: true, reason: "This guest agent is supported" };
}

/**
 * Upstream's fallback for a launcher that lists no commands: the agent's version must match one of the
 * cluster's supportedGuestAgentVersions patterns (Go regexps, unanchored).
 */
export function isGuestAgentVersionSupported(
  version: string,
  supportedVersions: readonly string[],
): { supported: boolean; reason: string } {
  const supported = supportedVersions.some((pattern) => {
    try {
      return new RegExp(pattern).test(version);
    } catch {
      return false;
    }
  });
  return { supported, reason: supported ? "" : `Guest agent version '${version}' is not supported` };
}
