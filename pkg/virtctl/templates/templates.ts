// Help and usage texts in the layout of upstream's cobra templates.
import type { Command } from "../command.js";
import type { FlagSpec } from "../flags.js";
import { flagUsages } from "../flags.js";

/** cobra pads command names to at least this width in command lists. */
const MIN_NAME_PADDING = 11;

export interface Listed {
  name: string;
  short: string;
}

const fill = (text: string, programName: string) => text.replaceAll("{{ProgramName}}", programName);

/**
 * `<program> <command> --help`: the long description (else the short one), then the usage.
 * `parentPath` is the command line before the command's name (the program's name for a top command).
 */
export function commandHelp(command: Command, programName: string, parentPath = programName): string {
  return `${command.long ?? command.short}\n\n${commandUsage(command, programName, parentPath)}`;
}

export function commandUsage(command: Command, programName: string, parentPath = programName): string {
  const flagsPart = command.flags.length > 0 ? " [flags]" : "";
  const usage = [`  ${parentPath} ${command.use}${flagsPart}`];
  const subcommands = command.subcommands ?? [];
  if (subcommands.length > 0) usage.push(`  ${parentPath} ${command.name} [command]`);
  const sections = [`Usage:\n${usage.join("\n")}`];
  if (command.example) sections.push(`Examples:\n${fill(command.example, programName)}`);
  if (subcommands.length > 0) sections.push(`Available Commands:\n${commandList(subcommands)}`);
  if (command.flags.length > 0) {
    sections.push(`Flags:\n${flagUsages(command.flags, command.sortFlags ?? true)}`);
  }
  sections.push(optionsHint(programName));
  return `${sections.join("\n\n")}\n`;
}

/** cobra's command list: sorted, names padded to the longest (at least MIN_NAME_PADDING). */
function commandList(commands: readonly Listed[]): string {
  const sorted = [...commands].sort((a, b) => a.name.localeCompare(b.name));
  const padding = Math.max(MIN_NAME_PADDING, ...sorted.map((command) => command.name.length));
  return sorted.map((command) => `  ${command.name.padEnd(padding)} ${command.short}`).join("\n");
}

/** The root command's usage: the command list and where to read more. */
export function mainUsage(commands: readonly Listed[], programName: string): string {
  return (
    `Available Commands:\n${commandList(commands)}\n\n` +
    `Use "${programName} <command> --help" for more information about a given command.\n` +
    `${optionsHint(programName)}\n`
  );
}

/** `<program> options`: the flags every command accepts. */
export function optionsUsage(globalFlags: readonly FlagSpec[]): string {
  return `The following options can be passed to any command:\n${flagUsages(globalFlags)}\n`;
}

function optionsHint(programName: string): string {
  return `Use "${programName} options" for a list of global command-line options (applies to all commands).`;
}
