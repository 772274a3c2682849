// What a virtctl subcommand is, and what it gets to run with.
import type { Readable, Writable } from "node:stream";
import type { ClientConfig, Environment } from "./clientconfig/clientconfig.js";
import type { FlagSpec, ParsedFlags } from "./flags.js";
import type { SubresourceClient } from "./kubecli/subresources.js";

/** Standard input as a terminal may offer it (raw mode only when it is a TTY). */
export type Stdin = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

export interface IO {
  stdin: Stdin;
  stdout: Writable;
  stderr: Writable;
  env: Environment;
  /** Calls `listener` on the user's interrupt (SIGINT); returns the unsubscribe function. */
  onInterrupt(listener: () => void): () => void;
}

export interface CommandContext {
  io: IO;
  /** "virtctl", or "kubectl virt" when run as the kubectl plugin. */
  programName: string;
  /** The command line that picked the command, e.g. "virtctl create vm". */
  commandPath: string;
  flags: ParsedFlags;
  args: string[];
  /** The client and namespace from the kubeconfig; loaded on first use. */
  client(): Promise<{ client: SubresourceClient; config: ClientConfig }>;
}

export interface Command {
  name: string;
  /** The usage line after the parent command's path, e.g. "start (VM)", or "screenshot (VMI)" under vnc. */
  use: string;
  short: string;
  /** What `--help` prints first, when longer than `short` (cobra's Long). */
  long?: string;
  example: string;
  flags: FlagSpec[];
  /**
   * How many positional arguments the command takes (cobra's ExactArgs / NoArgs); "any" leaves the words to
   * its run: a custom cobra Args, or none on a command with subcommands (cobra's legacy check).
   */
  argCount: number | "any";
  /**
   * cobra's Args beyond the count (a MatchAll of checks): run on the parsed command line before the flag
   * groups are checked, as cobra does; what it throws is an invocation mistake.
   */
  validateArgs?(flags: ParsedFlags): void;
  /** cobra's AddCommand: the first word after this command's name that names one runs it instead. */
  subcommands?: readonly Command[];
  /** cobra's SortFlags: false lists the flags in the order they are declared. */
  sortFlags?: boolean;
  /** cobra's MarkFlagRequired: flags that must be given. */
  requiredFlags?: readonly string[];
  /** cobra's MarkFlagsMutuallyExclusive, one group per call. */
  exclusiveFlagGroups?: readonly (readonly string[])[];
  run(context: CommandContext): Promise<void>;
}
