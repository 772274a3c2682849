// virt-tail's command line as upstream parses it: --logfile (required), -v/--v verbosity, and unknown flags
// tolerated (the pod spec may pass flags a newer virt-tail knows). VIRT_LAUNCHER_LOG_VERBOSITY overrides
// the verbosity, as the launcher pod renderer sets it.

export interface TailFlags {
  logFile: string;
  verbosity: number;
}

export class TailFlagError extends Error {}

function valueOf(args: readonly string[], index: number, name: string): [string | undefined, number] {
  const arg = args[index] ?? "";
  const eq = arg.indexOf("=");
  if (eq >= 0) return [arg.slice(eq + 1), index];
  const next = args[index + 1];
  if (next === undefined) throw new TailFlagError(`flag needs an argument: --${name}`);
  return [next, index + 1];
}

export function parseTailFlags(args: readonly string[], env: NodeJS.ProcessEnv = process.env): TailFlags {
  let logFile = "";
  let verbosity = 0;
  for (let i = 0; i < args.length; i++) {
    const name = (args[i] ?? "").replace(/^--?/, "").split("=")[0];
    if (name === "logfile") {
      const [value, next] = valueOf(args, i, "logfile");
      logFile = value ?? "";
      i = next;
    } else if (name === "v") {
      const [value, next] = valueOf(args, i, "v");
      verbosity = Number(value) || 0;
      i = next;
    }
  }
  const fromEnv = env["VIRT_LAUNCHER_LOG_VERBOSITY"];
  if (fromEnv !== undefined && /^\d+$/.test(fromEnv)) verbosity = Number(fromEnv);
  if (logFile === "") throw new TailFlagError("logfile flags must be provided");
  return { logFile, verbosity };
}
