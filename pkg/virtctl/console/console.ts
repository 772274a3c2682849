// virtctl console: waits (up to --timeout minutes) until the VMI's console can be opened, then
// attaches the terminal to it. virt-api answers 400 while the VMI is not ready: that is retried.
import type WebSocket from "ws";
import type { Command, CommandContext } from "../command.js";
import { errorMessage } from "../../util/error-message.js";
import { helpFlag } from "../flags.js";
import { ApiError } from "../kubecli/errors.js";
import type { SubresourceClient } from "../kubecli/subresources.js";
import type { KeepAlive } from "./attach.js";
import { attach } from "./attach.js";

const DEFAULT_TIMEOUT_MINUTES = 5;

export interface ConsoleTiming {
  /** The length of one --timeout unit; a minute, shorter in tests. */
  minuteMs: number;
  retryIntervalMs: number;
  keepAlive: KeepAlive;
}

const defaultTiming: ConsoleTiming = {
  minuteMs: 60_000,
  retryIntervalMs: 1_000,
  keepAlive: { pingIntervalMs: 10_000, timeoutMs: 60_000 },
};

export function newConsoleCommand(timing: ConsoleTiming = defaultTiming): Command {
  return {
    name: "console",
    use: "console (VMI)",
    short: "Connect to a console of a virtual machine instance.",
    example:
      "  # Connect to the console on VirtualMachineInstance 'myvmi':\n  {{ProgramName}} console myvmi\n" +
      "  # Configure one minute timeout (default 5 minutes)\n  {{ProgramName}} console --timeout=1 myvmi",
    flags: [
      {
        name: "timeout",
        kind: "int",
        defaultValue: DEFAULT_TIMEOUT_MINUTES,
        usage: "The number of minutes to wait for the virtual machine instance to be ready.",
      },
      helpFlag("console"),
    ],
    argCount: 1,
    run: (context) => runConsole(context, timing),
  };
}

export const consoleCommand = newConsoleCommand();

async function runConsole(context: CommandContext, timing: ConsoleTiming): Promise<void> {
  const [vmiName = ""] = context.args;
  let client: SubresourceClient;
  try {
    client = (await context.client()).client;
  } catch (error) {
    throw new Error(`cannot obtain KubeVirt client: ${errorMessage(error)}`);
  }
  const path = client.subresourcePath("virtualmachineinstances", vmiName, "console");
  const timeoutMs = context.flags.int("timeout") * timing.minuteMs;
  let stopWaitingForInterrupt = (): void => undefined;
  const interrupted = new Promise<"interrupted">((resolve) => {
    stopWaitingForInterrupt = context.io.onInterrupt(() => resolve("interrupted"));
  });
  const connecting = connect(client, path, timeoutMs, timing.retryIntervalMs);
  const outcome = await Promise.race([connecting, interrupted]).finally(() => stopWaitingForInterrupt());
  if (outcome === "interrupted") {
    // a new line for the terminal, as upstream does, and a clean exit
    context.io.stdout.write("\n");
    connecting.then(
      (socket) => socket.terminate(),
      () => undefined,
    );
    return;
  }
  context.io.stderr.write(
    `Successfully connected to ${vmiName} console. Press Ctrl+] or Ctrl+5 to exit console.\n`,
  );
  await attach(outcome, context.io, timing.keepAlive);
}

/** Opens the stream; with a timeout, retries "not ready yet" (400) answers until the time is up. */
async function connect(
  client: SubresourceClient,
  path: string,
  timeoutMs: number,
  retryIntervalMs: number,
): Promise<WebSocket> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await client.dial(path);
    } catch (error) {
      const retriable = timeoutMs > 0 && error instanceof ApiError && error.code === 400;
      if (!retriable) throw error;
    }
    if (Date.now() + retryIntervalMs > deadline) {
      throw new Error("Timeout trying to connect to the virtual machine instance");
    }
    await new Promise((resolve) => setTimeout(resolve, retryIntervalMs));
  }
}
