// The process around VirtLauncher, shared by both entry points: logging, signals and exit code.
import { pino } from "pino";
import type { LauncherFlags } from "./flags.js";
import { parseLauncherFlags } from "./flags.js";
import { VirtLauncher } from "./launcher.js";
import { cleanupContainerDiskDirectory } from "./cleanup.js";
import { errorMessage } from "../util/error-message.js";

const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"];

function logLevel(flags: LauncherFlags): string {
  const fromEnv = process.env["VIRT_LAUNCHER_LOG_VERBOSITY"];
  const verbosity = fromEnv !== undefined && /^\d+$/.test(fromEnv) ? Number(fromEnv) : flags.verbosity;
  return verbosity >= 4 ? "debug" : "info";
}

/** Runs a launcher for the command line `argv`; resolves with the process exit code. */
export async function runVirtLauncher(argv: readonly string[], component: string): Promise<number> {
  let flags: LauncherFlags;
  try {
    flags = parseLauncherFlags(argv);
  } catch (error) {
    process.stderr.write(`${component}: ${errorMessage(error)}\n`);
    return 2;
  }
  const log = pino({
    level: logLevel(flags),
    base: {
      component,
      kind: "VirtualMachineInstance",
      namespace: flags.namespace,
      name: flags.name,
      uid: flags.uid,
    },
  });
  if (flags.ignored.length > 0)
    log.info({ flags: flags.ignored }, "flags accepted but not used by kubevirt-ts");
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    log.info(`Received signal ${signal}`);
    stop.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  const launcher = new VirtLauncher({
    flags,
    log,
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
    podName: process.env["POD_NAME"],
  });
  let exitCode = 1;
  try {
    await launcher.start();
    exitCode = await launcher.run(stop.signal);
  } catch (error) {
    log.error({ err: error }, "virt-launcher failed");
  } finally {
    await launcher.shutdown();
    await cleanupContainerDiskDirectory(flags.layout.containerDiskDir, log);
  }
  if (exitCode !== 0 && flags.keepAfterFailure) {
    log.info("keeping virt-launcher container alive since --keep-after-failure is set to true");
    await new Promise<void>((resolve) =>
      stop.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
  }
  return exitCode;
}
