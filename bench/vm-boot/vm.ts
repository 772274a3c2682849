import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { VirtualMachine, VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { testGuestVM } from "../../test/e2e/test-guest-vm.js";
import { BenchError } from "../common/bench-error.js";
import {
  deleteAndWait,
  ensureNamespace as ensureOwnNamespace,
  kubectlStep,
  namespaceObject,
  ownedManifest,
  readLabels,
  vmObject,
} from "../common/bench-objects.js";
import type { KubectlOptions } from "../common/kubectl.js";
import { awaitAnswer, type ConsoleAnswer } from "./probe.js";
import { VirtctlConsole } from "./virtctl-console.js";
import { vmiPhaseTimes, type PhaseTime } from "../common/vmi-phases.js";

// The benchmark's VM in a namespace of its own: the e2e tests' test guest (128Mi, containerDisk, KubeVirt's
// default pod network), labelled so the benchmark never takes over, nor deletes, what it did not create.

const OWNER = "vm-boot";

export interface Target extends KubectlOptions {
  namespace: string;
  vm: string;
  repoRoot: string;
}

/** Creates the namespace unless it is there already; answers whether it created it. Refuses one not the benchmark's. */
export const ensureNamespace = (t: Target): Promise<boolean> => ensureOwnNamespace(t, t.namespace, OWNER);

export function benchVM(t: Pick<Target, "namespace" | "vm">): VirtualMachine {
  return ownedManifest(testGuestVM(t.vm), OWNER, t.namespace);
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
  if ((await readLabels(t, vmObject(t.namespace, t.vm))) !== undefined)
    throw new BenchError(`VM ${t.namespace}/${t.vm} is still there from an earlier run`);
  const manifest = JSON.stringify(benchVM(t));
  const startWallMs = Date.now();
  const startMs = performance.now();
  await kubectlStep(t, `kubectl apply of VM ${t.namespace}/${t.vm}`, ["apply", "-f", "-"], {
    input: manifest,
  });
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
      await kubectlStep(t, `reading VMI ${t.namespace}/${t.vm}`, [
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
  await deleteAndWait(t, vmObject(t.namespace, t.vm), timeoutMs);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const left = await kubectlStep(t, `listing pods in ${t.namespace}`, [
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

export const deleteNamespace = (t: Target, timeoutMs: number): Promise<void> =>
  deleteAndWait(t, namespaceObject(t.namespace), timeoutMs);
