// virt-tail: the launcher pod's guest-console-log sidecar. Streams the guest's serial console log to
// stdout (so `kubectl logs -c guest-console-log` shows it) until SIGTERM or SIGINT, then exits 0.
import { parseTailFlags, TailFlagError } from "../../pkg/virt-tail/flags.js";
import { LineFollower } from "../../pkg/virt-tail/follow.js";

try {
  const flags = parseTailFlags(process.argv.slice(2));
  const stop = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stop.abort());
  await new LineFollower(flags.logFile, (line) => process.stdout.write(`${line}\n`)).run(stop.signal);
} catch (error) {
  if (!(error instanceof TailFlagError)) throw error;
  process.stderr.write(`virt-tail: ${error.message}\n`);
  process.exitCode = 1;
}
