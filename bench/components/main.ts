// bench/components: idle memory (RSS, PSS) and CPU of each KubeVirt component process (virt-api,
// virt-controller, virt-handler per node, virt-operator) over a --window, against DESIGN.md's idle RSS
// targets (≤ 80 / 64 / 48 MB for virt-api / virt-controller / virt-handler; virt-operator 80); with
// --during "<command>", also their peak RSS and CPU while the command runs. Reads /proc and the node
// agents' records; prints figures, asserts nothing.
//   npx tsx bench/components/main.ts [--window 30s] [--interval 1s] [--during "<command>"]
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { binary, layout } from "../../deploy/local/cluster/layout.js";
import { BenchError } from "../common/bench-error.js";
import { clockTicksPerSecond } from "../common/proc.js";
import { findComponentPods } from "./cluster.js";
import { formatCommandLine, parseOptions } from "./options.js";
import { missingComponents } from "./pods.js";
import { DURING_LEGEND, IDLE_LEGEND, formatDuring, formatIdle } from "./report.js";
import { sampleRounds, type SampleTarget } from "./sampler.js";
import { Tracker, perPod } from "./tracker.js";

interface CommandRun {
  exit: string;
  seconds: number;
}

/** Runs `command` in sh with this terminal, sampling the components until it ends. */
async function during(target: SampleTarget, command: string, intervalMs: number, warnings: Set<string>) {
  const tracker = new Tracker();
  const start = performance.now();
  const child = spawn("sh", ["-c", command], { stdio: ["ignore", "inherit", "inherit"] });
  const ended = new Promise<string>((resolve) => {
    child.on("error", (error) => resolve(`could not start: ${error.message}`));
    child.on("exit", (code, signal) => resolve(signal ? `killed by ${signal}` : `exit ${code}`));
  });
  try {
    await sampleRounds(tracker, target, { pss: false, warnings, intervalMs, until: ended });
  } finally {
    // Only the child this benchmark started, by its PID, if the sampling failed while it ran.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
  const run: CommandRun = { exit: await ended, seconds: (performance.now() - start) / 1000 };
  return { tracker, run };
}

async function main(): Promise<void> {
  const l = layout();
  const defaults = { kubeconfig: l.adminKubeconfig, kubectl: binary(l, "kubectl") };
  const options = parseOptions(process.argv.slice(2), defaults);
  const kubeconfig = path.resolve(options.kubeconfig);
  const nodesDir = path.resolve(options.nodesDir ?? path.join(path.dirname(kubeconfig), "nodes"));
  const pods = await findComponentPods({ kubectl: options.kubectl, kubeconfig });
  const missing = missingComponents(pods);
  if (pods.length === 0) throw new BenchError("no running KubeVirt component pod in namespace kubevirt");
  const hz = await clockTicksPerSecond();
  const target: SampleTarget = { pods, nodesDir };
  const warnings = new Set<string>();

  console.log(
    `components: ${pods.length} pods, idle for ${options.windowMs / 1000} s, sampled every ${options.intervalMs / 1000} s ...`,
  );
  const loadBefore = loadavg();
  const idle = new Tracker();
  await sampleRounds(idle, target, {
    pss: true,
    warnings,
    intervalMs: options.intervalMs,
    durationMs: options.windowMs,
  });
  const loadAfterIdle = loadavg();
  let busy: Awaited<ReturnType<typeof during>> | undefined;
  if (options.during !== undefined) {
    console.log(`running \`${options.during}\`, sampling every ${options.duringIntervalMs} ms ...`);
    busy = await during(target, options.during, options.duringIntervalMs, warnings);
  }

  const fmt = (load: number[]): string => load.map((value) => value.toFixed(2)).join(" ");
  console.log("");
  console.log(formatCommandLine(options, defaults));
  console.log(
    `processes from the node agents' records and pod cgroups under ${nodesDir}; CPU in clock ticks of 1/${hz} s`,
  );
  for (const warning of warnings) console.log(`warning: ${warning}`);
  for (const component of missing) console.log(`note: no running ${component} pod`);
  console.log("");
  console.log(
    `idle: ${(idle.elapsedMs / 1000).toFixed(1)} s, ${idle.roundCount} rounds; load average before ${fmt(loadBefore)}, after ${fmt(loadAfterIdle)}`,
  );
  for (const line of IDLE_LEGEND) console.log(line);
  console.log("");
  for (const line of formatIdle(perPod(pods, idle), hz, idle.elapsedMs)) console.log(line);
  if (busy) {
    console.log("");
    console.log(
      `during \`${options.during}\`: ${busy.run.exit} after ${busy.run.seconds.toFixed(1)} s, ${busy.tracker.roundCount} rounds; ` +
        `load average after ${fmt(loadavg())}`,
    );
    for (const line of DURING_LEGEND) console.log(line);
    console.log("");
    for (const line of formatDuring(perPod(pods, busy.tracker), hz, busy.tracker.elapsedMs))
      console.log(line);
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(error instanceof BenchError ? message : `components: ${message}`);
  process.exitCode = 1;
});
