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

/** `<program> <command> --help`: the long (else short) description, then the usage. */
export function commandHelp(command: Command, programName: string): string {
  const about = fill(command.long ?? command.short, programName).trimEnd();
  return `${about}\n\n${commandUsage(command, programName)}`;
}

export function commandUsage(command: Command, programName: string): string {
  const flagsPart = command.flags.length > 0 ? " [flags]" : "";
  const usage = [`Usage:\n  ${programName} ${command.use}${flagsPart}`];
  const subcommands = command.subcommands ?? [];
  if (subcommands.length > 0) usage.push(`  ${programName} ${command.name} [command]`);
  const sections = [usage.join("\n")];
  if (command.example) sections.push(`Examples:\n${fill(command.example, programName)}`);
  if (subcommands.length > 0) sections.push(commandList(subcommands, programName));
  if (command.flags.length > 0) sections.push(`Flags:\n${flagUsages(command.flags)}`);
  sections.push(optionsHint(programName));
  return `${sections.join("\n\n")}\n`;
}

/** "Available Commands:" and one line per command, sorted and padded as cobra does. */
function commandList(commands: readonly Listed[], programName: string): string {
  const sorted = [...commands].sort((a, b) => a.name.localeCompare(b.name));
  const padding = Math.max(MIN_NAME_PADDING, ...sorted.map((command) => command.name.length));
  const lines = sorted.map(
    (command) => `  ${command.name.padEnd(padding)} ${fill(command.short, programName)}`,
  );
  return `Available Commands:\n${lines.join("\n")}`;
}

/** The root command's usage: the command list and where to read more. */
export function mainUsage(commands: readonly Listed[], programName: string): string {
  return (
    `${commandList(commands, programName)}\n\n` +
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
