import { performance } from "node:perf_hooks";
import { ConsoleSession } from "../../test/e2e/harness.js";
import { BenchError } from "../common/bench-error.js";
import type { Target } from "./cluster.js";
import { UPTIME_COMMAND, parseUptime, type GuestClockReading } from "./guest-clock.js";

// The guest's serial console through `virtctl console`, as the e2e tests drive it. A session does not
// outlive a migration (it ends at the source node's virt-handler), so each reading opens its own.

/** The test guest's root shell. */
export const PROMPT = /root@[\w-]+:~# /;
const PROMPT_TIMEOUT_MS = 120_000;
/** How often the wait presses Enter and looks whether virtctl is still there. */
const PROMPT_CHECK_MS = 3_000;

/** Waits for the prompt, pressing Enter meanwhile (it may have scrolled by), or fails once virtctl has quit. */
async function awaitPrompt(t: Target, session: ConsoleSession): Promise<void> {
  let exitCode: number | undefined;
  void session.exited.then((code) => (exitCode = code));
  const deadline = Date.now() + PROMPT_TIMEOUT_MS;
  const where = `the serial console of VMI ${t.namespace}/${t.vm}`;
  for (;;) {
    try {
      await session.expect(PROMPT, PROMPT_CHECK_MS, { pokeMs: PROMPT_CHECK_MS });
      return;
    } catch (error) {
      if (exitCode !== undefined) {
        throw new BenchError(`${where}: virtctl console exited (${exitCode}): ${session.transcript.trim()}`);
      }
      if (Date.now() > deadline) throw new BenchError(`${where}: ${(error as Error).message}`);
    }
  }
}

/** Runs `use` on a console that shows the prompt, and leaves it (Ctrl+]) whatever happens. */
export async function withConsole<T>(t: Target, use: (session: ConsoleSession) => Promise<T>): Promise<T> {
  const session = new ConsoleSession(t.vm, t.namespace, t.kubeconfig);
  try {
    await awaitPrompt(t, session);
    return await use(session);
  } finally {
    await session.close();
  }
}

async function runOk(session: ConsoleSession, command: string): Promise<string> {
  const { output, status } = await session.run(command);
  if (status !== 0) throw new BenchError(`\`${command}\` in the guest exited ${status}: ${output}`);
  return output;
}

/** Seconds one `true` takes there and back: typing, the guest's shell, and reading the frame back. */
export async function consoleRoundTripS(session: ConsoleSession): Promise<number> {
  const start = performance.now();
  await runOk(session, "true");
  return (performance.now() - start) / 1000;
}

export async function readGuestClock(session: ConsoleSession): Promise<GuestClockReading> {
  // Stamped when typed: the delay until the guest reads its clock is alike for every reading.
  const wallMs = performance.now();
  return { wallMs, uptimeS: parseUptime(await runOk(session, UPTIME_COMMAND)) };
}
