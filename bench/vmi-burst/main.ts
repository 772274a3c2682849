// bench/vmi-burst: a burst of --count VMIs (default 100) created --interval apart (default 100 ms, as
// upstream's sig-performance job), none waiting for another, in a namespace of its own; then until every VMI
// is Running (or --timeout, default 15m): each VMI's create -> Scheduled and create -> Running as p50 / p95 /
// max against DESIGN.md's target (p95 <= 5 s), the apiserver's requests per VMI by verb and resource
// (apiserver_request_total of its /metrics, before and after), and the CPU time and peak RSS of each KubeVirt
// component pod during the burst (bench/components' sampling of their processes). Deletes the VMIs and the
// namespace afterwards, on Ctrl-C and failure too, unless --keep. Prints figures, asserts nothing.
//
// Stand-in launcher mode, the default: every VMI carries upstream's own spec.startStrategy: Paused, so
// libvirt defines and starts its domain with the vCPUs paused and no guest boots under TCG (this machine has
// no KVM and two cores); the VMI still reaches phase Running, with a Paused condition, exactly as upstream
// reports it. --boot leaves startStrategy out: the guests really boot under TCG, a hundred of them competing
// with the control plane for the CPUs, which is slow; Running still means the domain started, not that the
// guest finished booting.
//   npx tsx bench/vmi-burst/main.ts [--count 100] [--interval 100ms] [--timeout 15m] [--boot] [--keep]
import { setMaxListeners } from "node:events";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { KubeClient, type ResourceClient } from "../../pkg/controller/client.js";
import { virtualMachineInstancesGVR } from "../../pkg/controller/resources.js";
import { loadKubeConfig } from "../../pkg/service/service.js";
import { BenchError, runMain } from "../common/bench-error.js";
import { deleteAndWait, ensureNamespace, namespaceObject } from "../common/bench-objects.js";
import { clusterOf, kubectlText, lastLine, localCluster, type KubectlOptions } from "../common/kubectl.js";
import { formatLoad, thisMachine } from "../common/machine.js";
import { clockTicksPerSecond } from "../common/proc.js";
import { findComponentPods } from "../components/cluster.js";
import type { ComponentPod } from "../components/pods.js";
import { formatDuring } from "../components/report.js";
import { sampleRounds } from "../components/sampler.js";
import { Tracker, perPod, type Observation } from "../components/tracker.js";
import { requestDeltaOfTexts, type Parsed, type RequestDelta } from "./apiserver-metrics.js";
import { BurstState } from "./burst-state.js";
import { awaitBurst, paced, watchBurst, type BurstEnd } from "./burst.js";
import { OWNER, SELECTOR, VMI_DESCRIPTION, burstNames, burstVMI } from "./manifest.js";
import { formatCommandLine, parseOptions, type VmiBurstOptions } from "./options.js";
import {
  LEGEND,
  REQUESTS_LEGEND,
  formatLatencies,
  formatNotRunning,
  formatPausedCheck,
  formatRequests,
  formatVerdict,
} from "./report.js";

/** How often the component pods' processes are read during the burst (CPU time is exact whatever it is). */
const SAMPLE_INTERVAL_MS = 1_000;

const MODE_STAND_IN = [
  "mode: stand-in launcher (the default): every VMI has spec.startStrategy: Paused, so libvirt defines and starts",
  "its domain with the vCPUs paused and no guest boots under TCG; the VMI still reaches phase Running, with a",
  "Paused condition, as upstream reports it. --boot makes the guests really boot (slow under TCG)",
];
const MODE_BOOT = [
  "mode: --boot: the guests really boot under TCG (no KVM), competing with the control plane for the CPUs (slow);",
  "Running means the domain started, not that the guest finished booting",
];

const COMPONENTS_LEGEND = [
  `each KubeVirt component pod's processes (not the node agent's supervising shell), read every ${SAMPLE_INTERVAL_MS / 1000} s from`,
  "before the first creation until the burst ended: BEFORE: RSS then; PEAK: the highest RSS a round saw; VmHWM: the",
  "kernel's high-water mark at the end (* it rose during the burst, so it is the exact peak); CPU: utime + stime",
];

/** A Tracker that says when its first round is in: the burst starts after it. */
class BurstTracker extends Tracker {
  private resolveFirst: () => void = () => undefined;
  readonly firstRound = new Promise<void>((resolve) => (this.resolveFirst = resolve));

  override record(atMs: number, observations: readonly Observation[]): void {
    super.record(atMs, observations);
    this.resolveFirst();
  }
}

async function readMetrics(k: KubectlOptions): Promise<Parsed<string>> {
  try {
    return { ok: true, value: await kubectlText(k, ["get", "--raw", "/metrics"], { requestTimeout: "60s" }) };
  } catch (error) {
    return { ok: false, error: `kubectl get --raw /metrics: ${lastLine(error)}` };
  }
}

function apiserverDelta(before: Parsed<string>, after: Parsed<string>): Parsed<RequestDelta> {
  if (!before.ok) return { ok: false, error: `the reading before: ${before.error}` };
  if (!after.ok) return { ok: false, error: `the reading after: ${after.error}` };
  return requestDeltaOfTexts(before.value, after.value);
}

interface Outcome {
  end: BurstEnd;
  /** performance.now() at the first creation sent, and when the burst ended. */
  startMs: number;
  endMs: number;
  /** From the first creation sent to the last. */
  sendingS: number;
  state: BurstState;
  requests: Parsed<RequestDelta>;
  components: { tracker: Tracker; pods: ComponentPod[] } | undefined;
  warnings: Set<string>;
  clientCpuS: number;
  loadStart: number[];
  loadEnd: number[];
}

async function burst(
  options: VmiBurstOptions,
  k: KubectlOptions,
  vmis: ResourceClient<VirtualMachineInstance>,
  interrupt: AbortSignal,
): Promise<Outcome> {
  const names = burstNames(options.count);
  const state = new BurstState(names);
  const warnings = new Set<string>();
  const warn = (message: string): void => {
    if (!warnings.has(message)) console.log(`warning: ${message}`);
    warnings.add(message);
  };

  const pods = await findComponentPods(k);
  if (pods.length === 0)
    warn("no running KubeVirt component pod in namespace kubevirt: no component figures");
  const nodesDir = path.join(path.dirname(k.kubeconfig), "nodes");
  const stopWatch = new AbortController();
  const stopAll = AbortSignal.any([interrupt, stopWatch.signal]);
  const watch = await watchBurst(vmis, options.namespace, SELECTOR, state, stopAll, warn);
  let endBurst: () => void = () => undefined;
  const burstEnded = new Promise<void>((resolve) => (endBurst = resolve));
  const tracker = new BurstTracker();
  const sampling =
    pods.length > 0
      ? sampleRounds(
          tracker,
          { pods, nodesDir },
          { pss: false, warnings, intervalMs: SAMPLE_INTERVAL_MS, until: burstEnded },
        )
      : Promise.resolve();
  try {
    if (pods.length > 0) await Promise.race([tracker.firstRound, sampling]);
    const before = await readMetrics(k);
    if (!before.ok) warn(before.error);

    const loadStart = loadavg();
    const cpuBefore = process.cpuUsage();
    const stopCreating = new AbortController();
    const creating = AbortSignal.any([interrupt, stopCreating.signal]);
    // every create in flight listens on it: as many as the burst has VMIs, not a leak
    setMaxListeners(names.length + 10, creating);
    let firstFailure: string | undefined;
    let lastSentMs = 0;
    const startMs = performance.now();
    const created = paced(
      names.length,
      options.intervalMs,
      async (index) => {
        const name = names[index]!;
        lastSentMs = performance.now();
        state.sent(name, lastSentMs);
        try {
          const answer = await vmis.create(burstVMI(name, options.namespace, options.boot), {
            signal: creating,
          });
          state.created(name, performance.now(), answer);
        } catch (error) {
          // Cut short by the timeout or Ctrl-C: named below with those never sent.
          if (creating.aborted) return;
          const message = (error as Error).message;
          state.failed(name, message);
          if (index === 0) {
            firstFailure = message;
            stopCreating.abort();
          }
        }
      },
      creating,
    );
    const deadlineMs = startMs + options.timeoutMs;
    const progress = (): void => {
      const p = state.progress();
      const failed = p.failed > 0 ? `, ${p.failed} failed` : "";
      console.log(
        `${((performance.now() - startMs) / 1000).toFixed(0)} s: ${p.created}/${state.count} created${failed}, ` +
          `${p.scheduled} Scheduled, ${p.running} Running`,
      );
    };
    const end = await awaitBurst(
      state,
      deadlineMs,
      AbortSignal.any([interrupt, stopCreating.signal]),
      progress,
    );
    const endMs = performance.now();
    if (firstFailure !== undefined) throw new BenchError(`creating VMI ${names[0]}: ${firstFailure}`);
    // The creations the timeout or Ctrl-C left unsent or unanswered are named with the VMIs that did not run.
    stopCreating.abort();
    await created;
    const cut = end === "timeout" ? "--timeout ran out first" : "interrupted";
    for (const result of state.results()) {
      if (result.createS === undefined && result.createError === undefined)
        state.failed(result.name, `not created, or its creation not answered: ${cut}`);
    }
    const after: Parsed<string> =
      end === "interrupted" ? { ok: false, error: "interrupted" } : await readMetrics(k);
    if (!after.ok) warn(after.error);
    const clientCpu = process.cpuUsage(cpuBefore);
    const loadEnd = loadavg();
    endBurst();
    await sampling;
    return {
      end,
      startMs,
      endMs,
      sendingS: Math.max(0, lastSentMs - startMs) / 1000,
      state,
      requests: apiserverDelta(before, after),
      components: pods.length > 0 ? { tracker, pods } : undefined,
      warnings,
      clientCpuS: (clientCpu.user + clientCpu.system) / 1e6,
      loadStart,
      loadEnd,
    };
  } finally {
    endBurst();
    stopWatch.abort();
    await watch.stopped;
    await sampling.catch(() => undefined);
  }
}

async function cleanUp(k: KubectlOptions, options: VmiBurstOptions): Promise<void> {
  const ns = options.namespace;
  if (options.keep) {
    console.log(`kept the VMIs in namespace ${ns} (kubectl delete namespace ${ns} removes them and it)`);
    return;
  }
  console.log(`deleting the burst's VMIs and namespace ${ns} ...`);
  // Each VMI has a 5 s grace period, but a hundred launcher pods ending on two cores take longer.
  const timeoutMs = Math.max(300_000, options.count * 3_000);
  const vmis = {
    resource: "virtualmachineinstances.kubevirt.io",
    namespace: ns,
    selector: SELECTOR,
    what: `the burst's VMIs in namespace ${ns}`,
  };
  // A failed clean-up must not hide why the benchmark stopped.
  for (const objects of [vmis, namespaceObject(ns)]) {
    await deleteAndWait(k, objects, timeoutMs).catch((error: unknown) =>
      console.error(`could not delete ${objects.what}: ${(error as Error).message}`),
    );
  }
}

function report(
  options: VmiBurstOptions,
  defaults: KubectlOptions,
  outcome: Outcome,
  date: Date,
  hz: number,
): void {
  const results = outcome.state.results();
  const created = results.filter((result) => result.createS !== undefined).length;
  const burstS = (outcome.endMs - outcome.startMs) / 1000;
  const ending: Record<BurstEnd, string> = {
    done: `every VMI created reached Running or ended within ${burstS.toFixed(1)} s`,
    timeout: `--timeout ${options.timeoutMs / 1000} s ran out`,
    interrupted: "interrupted",
  };
  console.log("");
  console.log(formatCommandLine(options, defaults));
  console.log(`date: ${date.toISOString()}`);
  console.log(
    `machine: ${thisMachine()}; load average at the start ${formatLoad(outcome.loadStart)}, at the end ${formatLoad(outcome.loadEnd)}`,
  );
  for (const line of options.boot ? MODE_BOOT : MODE_STAND_IN) console.log(line);
  console.log(VMI_DESCRIPTION);
  console.log(
    `burst: ${created} of ${options.count} VMIs created, sent over ${outcome.sendingS.toFixed(1)} s ` +
      `(${options.intervalMs} ms apart, none waiting for another); ${ending[outcome.end]}`,
  );
  console.log("");
  for (const line of LEGEND) console.log(line);
  console.log("");
  for (const line of formatLatencies(results)) console.log(line);
  console.log("");
  for (const line of formatVerdict(results)) console.log(line);
  console.log(formatPausedCheck(results, options.boot));
  const missing = formatNotRunning(results);
  if (missing.length > 0) {
    console.log("");
    for (const line of missing) console.log(line);
  }

  console.log("");
  if (outcome.requests.ok) {
    console.log(
      `the apiserver's requests during the burst (${burstS.toFixed(1)} s), per VMI over ${created} VMIs created:`,
    );
    for (const line of REQUESTS_LEGEND) console.log(line);
    console.log("");
    for (const line of formatRequests(outcome.requests.value, created)) console.log(line);
  } else {
    console.log(`the apiserver's requests: n/a: ${outcome.requests.error}`);
  }

  console.log("");
  if (outcome.components) {
    const { tracker, pods } = outcome.components;
    console.log(
      `KubeVirt's components during the burst (${(tracker.elapsedMs / 1000).toFixed(1)} s, ${tracker.roundCount} rounds; CPU in clock ticks of 1/${hz} s):`,
    );
    for (const line of COMPONENTS_LEGEND) console.log(line);
    console.log("");
    for (const line of formatDuring(perPod(pods, tracker), hz, tracker.elapsedMs)) console.log(line);
  } else {
    console.log("KubeVirt's components: n/a (no running component pod found)");
  }
  console.log(`this benchmark's own process: ${outcome.clientCpuS.toFixed(2)} s of CPU during the burst`);
  for (const warning of outcome.warnings) console.log(`warning: ${warning}`);
}

async function refuseLeftovers(
  vmis: ResourceClient<VirtualMachineInstance>,
  namespace: string,
): Promise<void> {
  const leftover = await vmis.list(namespace, { labelSelector: SELECTOR }).catch((error: unknown) => {
    throw new BenchError(`listing the VMIs in namespace ${namespace}: ${(error as Error).message}`);
  });
  if (leftover.items.length > 0) {
    throw new BenchError(
      `${leftover.items.length} VMIs of an earlier burst are in namespace ${namespace} (kept with --keep?): ` +
        `delete them first (kubectl delete vmi -n ${namespace} -l ${SELECTOR}), or name another --namespace`,
    );
  }
}

async function main(): Promise<void> {
  const defaults = localCluster();
  const options = parseOptions(process.argv.slice(2), defaults);
  const k = clusterOf(options);
  console.log(
    `vmi-burst: ${options.count} VMIs ${options.intervalMs} ms apart in namespace ${options.namespace}, ` +
      `${options.boot ? "booting their guests (--boot)" : "started paused (stand-in launcher mode)"}; ` +
      `waiting up to ${options.timeoutMs / 1000} s for all to run ...`,
  );
  const hz = await clockTicksPerSecond();
  const createdNamespace = await ensureNamespace(k, options.namespace, OWNER);
  const vmis = KubeClient.fromKubeConfig(loadKubeConfig(k.kubeconfig)).resource<VirtualMachineInstance>(
    virtualMachineInstancesGVR,
  );
  // In a namespace of an earlier run, VMIs kept with --keep are the user's to delete, not the clean-up's.
  if (!createdNamespace) await refuseLeftovers(vmis, options.namespace);

  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    console.log(`${signal}: stopping the burst, then cleaning up (${signal} again leaves at once)`);
    interrupt.abort();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const date = new Date();
  let outcome: Outcome;
  try {
    outcome = await burst(options, k, vmis, interrupt.signal);
    // the figures first: deleting a hundred VMIs takes minutes
    if (outcome.end !== "interrupted") report(options, defaults, outcome, date, hz);
  } finally {
    await cleanUp(k, options);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (outcome.end === "interrupted") {
    const p = outcome.state.progress();
    console.log(
      `interrupted after ${((outcome.endMs - outcome.startMs) / 1000).toFixed(1)} s, ${p.running} of ${p.sent} VMIs Running: no figures`,
    );
    process.exitCode = 130;
  }
}

runMain("vmi-burst", main);
