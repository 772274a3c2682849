// bench/admission: reviews/s and latency of virt-api's validating and mutating webhooks for a small
// VirtualMachine's CREATE, under an open-loop load at --rate for --duration, against DESIGN.md's target
// (p99 ≤ 5 ms at 200 reviews/s). Each review is POSTed over HTTPS straight to one virt-api pod, verified
// with the webhook configuration's caBundle. Sends nothing through the apiserver and creates nothing.
// Prints figures, asserts nothing.
//   npx tsx bench/admission/main.ts [--rate 200] [--duration 20s] [--warmup 2s] [--webhook validate|mutate|both]
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { binary, layout } from "../../deploy/local/cluster/layout.js";
import { BenchError } from "../common/bench-error.js";
import { podUsage } from "../common/pod-cpu.js";
import type { PodLocation } from "../common/pod-processes.js";
import { clockTicksPerSecond, readSchedstat } from "../common/proc.js";
import { findTarget, type AdmissionTarget } from "./cluster.js";
import { openLoop } from "./open-loop.js";
import { formatCommandLine, parseOptions, type AdmissionBenchOptions, type Webhook } from "./options.js";
import {
  LEGEND,
  formatNotes,
  formatPhases,
  formatSlowest,
  summarizePhase,
  type PhaseSummary,
  type ReviewOutcome,
} from "./report.js";
import { ReviewClient } from "./review-client.js";
import { asCreated, checkAnswer, mutated, reviewBody, smallVM } from "./review.js";

/** What one webhook is sent: a fresh uid on the same object each time. */
type Objects = Record<Webhook, () => object>;

async function objects(client: ReviewClient, target: AdmissionTarget): Promise<Objects> {
  const vm = smallVM();
  // One mutating review first, not measured: the validating webhook is sent the VM as mutated.
  const { path: mutatePath, timeoutMs } = target.endpoints.mutate;
  const uid = randomUUID();
  const answer = await client.post(mutatePath, reviewBody(uid, vm), timeoutMs);
  const verdict = checkAnswer("mutate", uid, answer.status ?? 0, answer.body);
  if (!verdict.ok) {
    const why = answer.error ?? verdict.reason;
    throw new BenchError(`the first review to ${target.pod.name}:${target.port}${mutatePath} failed: ${why}`);
  }
  const mutatedVM = mutated(vm, answer.body);
  return { mutate: () => vm, validate: () => asCreated(mutatedVM, randomUUID(), new Date()) };
}

async function load(
  client: ReviewClient,
  target: AdmissionTarget,
  webhook: Webhook,
  objects: Objects,
  rate: number,
  durationMs: number,
): Promise<{ outcomes: ReviewOutcome[]; wallMs: number }> {
  const { path: webhookPath, timeoutMs } = target.endpoints[webhook];
  const start = performance.now();
  let lastAnswer = start;
  const sent = await openLoop({
    rate,
    durationMs,
    send: async (): Promise<Omit<ReviewOutcome, "dueMs" | "lagMs">> => {
      const uid = randomUUID();
      const answer = await client.post(webhookPath, reviewBody(uid, objects[webhook]()), timeoutMs);
      lastAnswer = Math.max(lastAnswer, performance.now());
      const verdict = answer.error
        ? { ok: false as const, reason: answer.error }
        : checkAnswer(webhook, uid, answer.status ?? 0, answer.body);
      return { latencyMs: answer.latencyMs, reusedSocket: answer.reusedSocket, verdict };
    },
  });
  const outcomes = sent.map((s) => ({ dueMs: s.dueMs, lagMs: s.lagMs, ...s.result }));
  return { outcomes, wallMs: lastAnswer - start };
}

interface Costs {
  virtApiS: number | undefined;
  clientS: number;
  /** How long virt-api's and this process's main threads waited for a CPU: the machine's contention. */
  virtApiRunQueueMs: number | undefined;
  clientRunQueueMs: number | undefined;
  /** How late this process's event loop ran its callbacks: a stall of the client, not of virt-api. */
  clientLoopDelayP99Ms: number;
  clientLoopDelayMaxMs: number;
}

const difference = (before: number | undefined, after: number | undefined): number | undefined =>
  before === undefined || after === undefined ? undefined : after - before;

/** What the virt-api pod and this process spent during `run`, and this process's event-loop delay. */
async function measuringCosts<T>(
  location: PodLocation,
  hz: number,
  run: () => Promise<T>,
): Promise<[T, Costs]> {
  const apiBefore = await podUsage(location).catch(() => undefined);
  const clientWaitBefore = (await readSchedstat("/proc", process.pid))?.waitNs;
  const clientBefore = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const result = await run();
  loopDelay.disable();
  const client = process.cpuUsage(clientBefore);
  const clientWaitAfter = (await readSchedstat("/proc", process.pid))?.waitNs;
  const apiAfter = await podUsage(location).catch(() => undefined);
  const apiTicks = difference(apiBefore?.cpuTicks, apiAfter?.cpuTicks);
  const apiWaitNs = difference(apiBefore?.runQueueWaitNs, apiAfter?.runQueueWaitNs);
  const clientWaitNs = difference(clientWaitBefore, clientWaitAfter);
  return [
    result,
    {
      virtApiS: apiTicks === undefined ? undefined : apiTicks / hz,
      clientS: (client.user + client.system) / 1e6,
      virtApiRunQueueMs: apiWaitNs === undefined ? undefined : apiWaitNs / 1e6,
      clientRunQueueMs: clientWaitNs === undefined ? undefined : clientWaitNs / 1e6,
      clientLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      clientLoopDelayMaxMs: loopDelay.max / 1e6,
    },
  ];
}

async function measure(options: AdmissionBenchOptions, target: AdmissionTarget, nodesDir: string) {
  const hz = await clockTicksPerSecond();
  const location = { nodesDir, node: target.pod.node, podUid: target.pod.uid };
  const client = new ReviewClient({
    host: target.pod.ip,
    port: target.port,
    servername: target.servername,
    ca: target.ca,
    sockets: options.sockets,
  });
  const phases: PhaseSummary[] = [];
  const costs: [Webhook, Costs, number][] = [];
  try {
    const made = await objects(client, target);
    for (const webhook of options.webhooks) {
      if (options.warmupMs > 0) await load(client, target, webhook, made, options.rate, options.warmupMs);
      const [{ outcomes, wallMs }, used] = await measuringCosts(location, hz, () =>
        load(client, target, webhook, made, options.rate, options.durationMs),
      );
      const phase = summarizePhase({
        webhook,
        path: target.endpoints[webhook].path,
        rate: options.rate,
        durationMs: options.durationMs,
        outcomes,
        wallMs,
      });
      phases.push(phase);
      costs.push([webhook, used, wallMs]);
      console.log(
        `${webhook}: ${phase.ok}/${phase.sent} admitted, p99 ${phase.latency?.p99.toFixed(2) ?? "n/a"} ms`,
      );
    }
  } finally {
    client.close();
  }
  return { phases, costs };
}

async function main(): Promise<void> {
  const l = layout();
  const defaults = { kubeconfig: l.adminKubeconfig, kubectl: binary(l, "kubectl") };
  const options = parseOptions(process.argv.slice(2), defaults);
  const kubeconfig = path.resolve(options.kubeconfig);
  const nodesDir = path.join(path.dirname(kubeconfig), "nodes");
  const target = await findTarget({ kubectl: options.kubectl, kubeconfig }, options.pod);
  const seconds = options.durationMs / 1000;
  const warmup = options.warmupMs > 0 ? ` after ${options.warmupMs / 1000} s of warm-up` : "";
  console.log(
    `admission: ${options.webhooks.join(" then ")} at ${options.rate} reviews/s for ${seconds} s each${warmup}, ` +
      `to pod ${target.pod.namespace}/${target.pod.name} on ${target.pod.node}`,
  );
  const loadBefore = loadavg();
  const { phases, costs } = await measure(options, target, nodesDir);
  const loadAfter = loadavg();

  console.log("");
  console.log(formatCommandLine(options, defaults));
  console.log(
    `https://${target.pod.ip}:${target.port} (pod ${target.pod.name}), certificate verified for ` +
      `${target.servername} with the webhook configurations' caBundle; ${options.sockets} keep-alive sockets at most`,
  );
  for (const webhook of options.webhooks) {
    const endpoint = target.endpoints[webhook];
    console.log(`${webhook}: webhook ${endpoint.name}, timeout ${endpoint.timeoutMs / 1000} s`);
  }
  console.log(
    "a VirtualMachine CREATE (the e2e test guest VM, 128Mi, containerDisk), a new uid each review;",
  );
  console.log(
    "validate is sent the VM as the mutating webhook left it, with the uid and timestamps of a created object",
  );
  for (const line of LEGEND) console.log(line);
  console.log("");
  for (const line of formatPhases(phases)) console.log(line);
  console.log("");
  console.log("the slowest admitted reviews:");
  for (const line of formatSlowest(phases)) console.log(line);
  console.log("");
  for (const line of formatNotes(phases)) console.log(line);
  for (const [webhook, used, wallMs] of costs) {
    const share = (s: number): string =>
      `${s.toFixed(2)} s (${((s / (wallMs / 1000)) * 100).toFixed(0)} % of a core)`;
    const api = used.virtApiS === undefined ? "n/a (no node agent records readable)" : share(used.virtApiS);
    console.log(
      `${webhook}: CPU over the measured ${(wallMs / 1000).toFixed(1)} s: virt-api pod ${api}, this client ${share(used.clientS)}`,
    );
    const waited = (ms: number | undefined): string => (ms === undefined ? "n/a" : `${ms.toFixed(0)} ms`);
    console.log(
      `${webhook}: main threads waiting for a CPU (run queue): virt-api ${waited(used.virtApiRunQueueMs)}, ` +
        `this client ${waited(used.clientRunQueueMs)}; this client's event loop late by ` +
        `${used.clientLoopDelayP99Ms.toFixed(2)} ms at p99, ${used.clientLoopDelayMaxMs.toFixed(2)} ms at most`,
    );
  }
  const fmt = (load: number[]): string => load.map((value) => value.toFixed(2)).join(" ");
  console.log(`load average before ${fmt(loadBefore)}, after ${fmt(loadAfter)}`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(error instanceof BenchError ? message : `admission: ${message}`);
  process.exitCode = 1;
});
