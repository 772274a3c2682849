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
  flags: ParsedFlags;
  args: string[];
  /** The client and namespace from the kubeconfig; loaded on first use. */
  client(): Promise<{ client: SubresourceClient; config: ClientConfig }>;
}

export interface Command {
  name: string;
  /** The usage line after the program name, e.g. "start (VM)", or "vnc screenshot (VMI)" for a subcommand. */
  use: string;
  short: string;
  /** What help prints instead of `short` when set (cobra's Long). */
  long?: string;
  example: string;
  flags: FlagSpec[];
  /** How many positional arguments the command takes (cobra's ExactArgs / NoArgs); "any" leaves it to run. */
  argCount: number | "any";
  /** Commands under this one (`vnc screenshot`), found by the first word after it as cobra finds them. */
  subcommands?: Command[];
  run(context: CommandContext): Promise<void>;
}
