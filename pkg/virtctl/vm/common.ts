// What start, stop and restart share: flags, the dry-run option and the success line.
import type { CommandContext } from "../command.js";
import { errorMessage } from "../../util/error-message.js";
import type { FlagSpec } from "../flags.js";

export const dryRunFlag: FlagSpec = {
  name: "dry-run",
  kind: "bool",
  defaultValue: false,
  usage:
    "--dry-run=false: Flag used to set whether to perform a dry run or not. If true the command will be executed without performing any changes.",
};

const FORCE_USAGE =
  "--force=false: Only used when grace-period=0. If true, immediately remove VMI pod from API and bypass graceful deletion. Note that immediate deletion of some resources may result in inconsistency or data loss and requires confirmation.";
const GRACE_PERIOD_USAGE =
  "--grace-period=-1: Period of time in seconds given to the VMI to terminate gracefully. Can only be set to 0 when --force is true (force deletion). Currently only setting 0 is supported.";

/** --force and --grace-period, as stop and restart take them. */
export const forceFlags: FlagSpec[] = [
  { name: "force", kind: "bool", defaultValue: false, usage: FORCE_USAGE },
  { name: "grace-period", kind: "int", defaultValue: -1, usage: GRACE_PERIOD_USAGE },
];

/** "  # Start a virtual machine called 'myvm':\n  virtctl start myvm" with the program name filled in later. */
export function vmExample(command: string): string {
  const title = command.charAt(0).toUpperCase() + command.slice(1);
  return `  # ${title} a virtual machine called 'myvm':\n  {{ProgramName}} ${command} myvm`;
}

/** The dryRun field of the options body; announces the dry run as upstream does. */
export function dryRunOption(context: CommandContext): string[] | undefined {
  if (!context.flags.bool("dry-run")) return undefined;
  context.io.stdout.write("Dry Run execution\n");
  return ["All"];
}

/** The grace period to force with, or undefined; both flags must be given together. */
export function forcedGracePeriod(context: CommandContext): number | undefined {
  const force = context.flags.bool("force");
  if (context.flags.changed.has("grace-period") !== force) {
    throw new Error("Must both use --force=true and set --grace-period.");
  }
  return force ? context.flags.int("grace-period") : undefined;
}

export function reportScheduled(context: CommandContext, vmName: string, command: string): void {
  context.io.stdout.write(`VM ${vmName} was scheduled to ${command}\n`);
}

/** Wraps a server error in the command's wording; other errors pass through unchanged. */
export async function withErrorPrefix(prefix: string, call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw new Error(`${prefix}${errorMessage(error)}`);
  }
}
