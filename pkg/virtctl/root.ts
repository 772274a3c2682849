// The virtctl root command: finds the subcommand, parses flags, runs it and turns the outcome
// into output and an exit code (0 on success, 1 on any error, as upstream's Execute returns).
import { basename } from "node:path";
import type { Command, CommandContext, IO } from "./command.js";
import { errorMessage } from "../util/error-message.js";
import type { ClientConfig } from "./clientconfig/clientconfig.js";
import { clientConfigFlags, loadClientConfig } from "./clientconfig/clientconfig.js";
import { consoleCommand } from "./console/console.js";
import { createCommand } from "./create/create.js";
import { exposeCommand } from "./expose/expose.js";
import type { FlagSpec, ParsedFlags } from "./flags.js";
import {
  UsageError,
  checkExclusiveFlagGroups,
  checkRequiredFlags,
  findCommandName,
  helpFlag,
  parseFlags,
} from "./flags.js";
import { SubresourceClient } from "./kubecli/subresources.js";
import { commandHelp, mainUsage, optionsUsage } from "./templates/templates.js";
import { versionCommand, versionMismatchWarning } from "./version/version.js";
import { portForwardCommand } from "./portforward/portforward.js";
import { scpCommand } from "./scp/scp.js";
import { sshCommand } from "./ssh/ssh.js";
import { pauseCommand, unpauseCommand } from "./vm/pause.js";
import { vncCommand } from "./vnc/vnc.js";
import { resetCommand, softRebootCommand } from "./vm/reboot.js";
import { fsListCommand, guestOSInfoCommand, userListCommand } from "./vm/guest-agent.js";
import { expandCommand } from "./vm/expand.js";
import { restartCommand } from "./vm/restart.js";
import { migrateCommand } from "./vm/migrate.js";
import { migrateCancelCommand } from "./vm/migrate-cancel.js";
import { startCommand } from "./vm/start.js";
import { stopCommand } from "./vm/stop.js";
import { addVolumeCommand, removeVolumeCommand } from "./vm/volumes.js";

export const defaultCommands: readonly Command[] = [
  consoleCommand,
  createCommand,
  exposeCommand,
  startCommand,
  stopCommand,
  restartCommand,
  migrateCommand,
  migrateCancelCommand,
  pauseCommand,
  unpauseCommand,
  softRebootCommand,
  resetCommand,
  guestOSInfoCommand,
  userListCommand,
  fsListCommand,
  expandCommand,
  addVolumeCommand,
  removeVolumeCommand,
  versionCommand,
  vncCommand,
  portForwardCommand,
  sshCommand,
  scpCommand,
];

/** Upstream virtctl commands this port does not offer yet: refused by name, never mistaken for typos. */
const NOT_YET_SUPPORTED = new Set([
  "adm", "create clone", "credentials",
  "evacuate-cancel", "guestfs", "image-upload", "memory-dump",
  "objectgraph", "permitted-devices", "template", "usbredir", "vmexport",
]); // prettier-ignore

const notSupportedYet = (programName: string, name: string) =>
  `"${programName} ${name}" is not supported by kubevirt-ts yet`;

const verbosityFlag: FlagSpec = {
  name: "v",
  short: "v",
  kind: "int",
  defaultValue: 0,
  usage: "number for the log level verbosity",
};
export const globalFlags: readonly FlagSpec[] = [...clientConfigFlags, verbosityFlag];

/** "kubectl virt" when installed as the kubectl plugin `kubectl-virt`, else "virtctl". */
export function programNameOf(executablePath: string): string {
  const binary = basename(executablePath).replace(/\.(m?js|ts)$/, "");
  return binary.endsWith("-virt") ? `${binary.slice(0, -"-virt".length)} virt` : "virtctl";
}

const SHORT = (programName: string) =>
  `${programName} controls virtual machine related operations on your kubernetes cluster.`;

export async function execute(
  argv: readonly string[],
  io: IO,
  programName: string,
  commands: readonly Command[] = defaultCommands,
): Promise<number> {
  const listed = [...commands, { name: "help", short: "Help about any command" }];
  const at = findCommandName(argv, globalFlags);
  const name = at < 0 ? undefined : argv[at];
  let found: Found | undefined;
  try {
    if (name === undefined) {
      const flags = parseFlags(argv, [...globalFlags, helpFlag(programName)]);
      const prefix = flags.bool("help") ? `${SHORT(programName)}\n\n` : "";
      io.stdout.write(prefix + mainUsage(listed, programName));
      return 0;
    }
    const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
    if (name === "options") {
      io.stdout.write(optionsUsage(globalFlags));
      return 0;
    }
    if (name === "help") return help(rest, commands, listed, io, programName);
    if (NOT_YET_SUPPORTED.has(name)) throw new Error(notSupportedYet(programName, name));
    const command = commands.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`unknown command "${name}" for "${programName}"`);
    found = findSubcommand({ command, parentPath: programName, args: rest }, programName);
    const flags = parseFlags(found.args, [...found.command.flags, ...globalFlags]);
    if (flags.bool("help")) {
      io.stdout.write(commandHelp(found.command, programName, found.parentPath));
      return 0;
    }
    checkArgCount(found, flags);
    found.command.validateArgs?.(flags);
    checkRequiredFlags(found.command.requiredFlags ?? [], flags.changed);
    checkExclusiveFlagGroups(found.command.exclusiveFlagGroups ?? [], flags.changed);
    return await runCommand(found, flags, io, programName);
  } catch (error) {
    if (error instanceof UsageError) {
      const path = found ? pathOf(found) : programName;
      io.stderr.write(`${error.message}\nRun '${path} --help' for usage.\n`);
    } else {
      io.stderr.write(`${errorMessage(error)}\n`);
    }
    return 1;
  }
}

/** A command with the line before its name and the words left for it. */
interface Found {
  command: Command;
  parentPath: string;
  args: string[];
}

const pathOf = (found: Found) => `${found.parentPath} ${found.command.name}`;

/** cobra's Find below a top command: the first word naming a subcommand descends into it. */
function findSubcommand(found: Found, programName: string): Found {
  const subcommands = found.command.subcommands;
  if (!subcommands) return found;
  const at = findCommandName(found.args, [...found.command.flags, ...globalFlags]);
  if (at < 0) return found;
  const word = found.args[at] ?? "";
  const path = `${pathOf(found)} ${word}`;
  if (NOT_YET_SUPPORTED.has(path.slice(programName.length + 1))) {
    throw new Error(notSupportedYet(programName, path.slice(programName.length + 1)));
  }
  const command = subcommands.find((candidate) => candidate.name === word);
  // No subcommand of that name: cobra hands the word to the parent.
  if (!command) return found;
  const args = [...found.args.slice(0, at), ...found.args.slice(at + 1)];
  return findSubcommand({ command, parentPath: pathOf(found), args }, programName);
}

function checkArgCount({ command, parentPath }: Found, flags: ParsedFlags): void {
  if (command.argCount === "any") return;
  const received = flags.positionals.length;
  if (command.argCount === 0 && received > 0) {
    throw new UsageError(`unknown command "${flags.positionals[0]}" for "${parentPath} ${command.name}"`);
  }
  if (received !== command.argCount) {
    throw new UsageError(`accepts ${command.argCount} arg(s), received ${received}`);
  }
}

async function runCommand(found: Found, flags: ParsedFlags, io: IO, programName: string): Promise<number> {
  const { command } = found;
  let loaded: { client: SubresourceClient; config: ClientConfig } | undefined;
  const context: CommandContext = {
    io,
    programName,
    commandPath: pathOf(found),
    flags,
    args: flags.positionals,
    async client() {
      if (!loaded) {
        const config = await loadClientConfig(flags, io.env);
        loaded = { client: new SubresourceClient(config), config };
      }
      return loaded;
    },
  };
  try {
    await command.run(context);
    return 0;
  } catch (error) {
    // Upstream points out a client/server version skew after any failure that reached a server.
    if (loaded && !(error instanceof UsageError)) {
      const warning = await versionMismatchWarning(loaded.client).catch(() => undefined);
      if (warning) io.stderr.write(`${warning}\n`);
    }
    throw error;
  }
}

function help(
  args: readonly string[],
  commands: readonly Command[],
  listed: readonly { name: string; short: string }[],
  io: IO,
  programName: string,
): number {
  const at = findCommandName(args, globalFlags);
  const topic = at < 0 ? undefined : args[at];
  const command = commands.find((candidate) => candidate.name === topic);
  if (command) {
    const rest = [...args.slice(0, at), ...args.slice(at + 1)];
    let found: Found;
    try {
      found = findSubcommand({ command, parentPath: programName, args: rest }, programName);
    } catch (error) {
      io.stderr.write(`${errorMessage(error)}\n`);
      return 1;
    }
    io.stdout.write(commandHelp(found.command, programName, found.parentPath));
    return 0;
  }
  if (topic !== undefined && NOT_YET_SUPPORTED.has(topic)) {
    io.stderr.write(`${notSupportedYet(programName, topic)}\n`);
    return 1;
  }
  if (topic !== undefined) io.stdout.write(`Unknown help topic [\`${topic}\`]\n`);
  io.stdout.write(`${SHORT(programName)}\n\n${mainUsage(listed, programName)}`);
  return 0;
}
