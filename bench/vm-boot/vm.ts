import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { VirtualMachine, VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { testGuestVM } from "../../test/e2e/test-guest-vm.js";
import { BenchError } from "../common/bench-error.js";
import {
  START_CLUSTER_HINT,
  kubectlText,
  lastLine,
  missingClusterFile,
  type KubectlOptions,
} from "../common/kubectl.js";
import { awaitAnswer, type ConsoleAnswer } from "./probe.js";
import { VirtctlConsole } from "./virtctl-console.js";
import { vmiPhaseTimes, type PhaseTime } from "./vmi-phases.js";

// The benchmark's VM in a namespace of its own: the e2e tests' test guest (128Mi, containerDisk, KubeVirt's
// default pod network), labelled so the benchmark never takes over, nor deletes, what it did not create.

export const OWNER_LABEL = "kubevirt-ts.io/benchmark";
export const OWNER = "vm-boot";

export interface Target extends KubectlOptions {
  namespace: string;
  vm: string;
  repoRoot: string;
}

async function run(t: Target, what: string, args: string[], input?: string): Promise<string> {
  try {
    return await kubectlText(t, args, { ...(input === undefined ? {} : { input }), requestTimeout: "0" });
  } catch (error) {
    throw new BenchError(`${what}: ${lastLine(error)}`);
  }
}

const labelsOf = (json: string): Record<string, string> | undefined =>
  json.trim() === ""
    ? undefined
    : ((JSON.parse(json) as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {});

/** Creates the namespace unless it is there already; answers whether it created it. Refuses one not the benchmark's. */
export async function ensureNamespace(t: Target): Promise<boolean> {
  const missing = await missingClusterFile(t);
  if (missing) throw new BenchError(`the cluster is not up: ${missing}; ${START_CLUSTER_HINT}`);
  const existing = labelsOf(
    await run(t, `reading namespace ${t.namespace}`, [
      "get",
      "namespace",
      t.namespace,
      "--ignore-not-found",
      "-o",
      "json",
    ]),
  );
  if (existing) {
    if (existing[OWNER_LABEL] !== OWNER)
      throw new BenchError(
        `namespace ${t.namespace} exists and is not the benchmark's: name another with --namespace`,
      );
    return false;
  }
  const namespace = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: t.namespace, labels: { [OWNER_LABEL]: OWNER } },
  };
  await run(t, `creating namespace ${t.namespace}`, ["create", "-f", "-"], JSON.stringify(namespace));
  return true;
}

export function benchVM(t: Pick<Target, "namespace" | "vm">): VirtualMachine {
  const vm = testGuestVM(t.vm);
  vm.metadata = { ...vm.metadata, namespace: t.namespace, labels: { [OWNER_LABEL]: OWNER } };
  return vm;
}

export interface VmBoot extends ConsoleAnswer {
  /** performance.now() just before `kubectl apply` started. */
  startMs: number;
  /** When kubectl apply returned, and when virtctl console said it connected. */
  appliedAtMs: number;
  connectedAtMs: number | undefined;
  /** The VMI's creation and phases, in seconds since kubectl apply started (whole-second timestamps). */
  phases: PhaseTime[];
}

/** `kubectl apply` of the VM, then `virtctl console` until the guest answers. */
export async function bootVM(t: Target, timeoutMs: number): Promise<VmBoot> {
  const exists = await run(t, `reading VM ${t.namespace}/${t.vm}`, [
    "-n",
    t.namespace,
    "get",
    "virtualmachines.kubevirt.io",
    t.vm,
    "--ignore-not-found",
    "-o",
    "name",
  ]);
  if (exists.trim() !== "")
    throw new BenchError(`VM ${t.namespace}/${t.vm} is still there from an earlier run`);
  const manifest = JSON.stringify(benchVM(t));
  const startWallMs = Date.now();
  const startMs = performance.now();
  await run(t, `kubectl apply of VM ${t.namespace}/${t.vm}`, ["apply", "-f", "-"], manifest);
  const appliedAtMs = performance.now();
  const console = new VirtctlConsole({
    repoRoot: t.repoRoot,
    kubeconfig: t.kubeconfig,
    namespace: t.namespace,
    vmi: t.vm,
  });
  try {
    const answer = await awaitAnswer(console, timeoutMs - (appliedAtMs - startMs)).catch((error: unknown) => {
      const virtctl = console.lastError ? `; virtctl's last word: ${console.lastError}` : "";
      throw new BenchError(`VM ${t.namespace}/${t.vm}: ${(error as Error).message}${virtctl}`);
    });
    const vmi = JSON.parse(
      await run(t, `reading VMI ${t.namespace}/${t.vm}`, [
        "-n",
        t.namespace,
        "get",
        "virtualmachineinstances.kubevirt.io",
        t.vm,
        "-o",
        "json",
      ]),
    ) as VirtualMachineInstance;
    const phases = vmiPhaseTimes(vmi, startWallMs);
    return { ...answer, startMs, appliedAtMs, connectedAtMs: console.connectedAtMs, phases };
  } finally {
    await console.close();
  }
}

/** Deletes the VM and waits until its pods are gone too, so that the next boot has the machine to itself. */
export async function deleteVM(t: Target, timeoutMs: number): Promise<void> {
  await run(t, `deleting VM ${t.namespace}/${t.vm}`, [
    "-n",
    t.namespace,
    "delete",
    "virtualmachines.kubevirt.io",
    t.vm,
    "--ignore-not-found",
    "--wait=true",
    `--timeout=${Math.round(timeoutMs / 1000)}s`,
  ]);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = await run(t, `listing pods in ${t.namespace}`, [
      "-n",
      t.namespace,
      "get",
      "pods",
      "-o",
      "name",
    ]);
    if (left.trim() === "") return;
    if (performance.now() > deadline)
      throw new BenchError(
        `pods of VM ${t.namespace}/${t.vm} still there after ${timeoutMs / 1000} s: ${left.trim()}`,
      );
    await sleep(500);
  }
}

export async function deleteNamespace(t: Target, timeoutMs: number): Promise<void> {
  await run(t, `deleting namespace ${t.namespace}`, [
    "delete",
    "namespace",
    t.namespace,
    "--ignore-not-found",
    "--wait=true",
    `--timeout=${Math.round(timeoutMs / 1000)}s`,
  ]);
}
