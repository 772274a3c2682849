// What integration tests use to talk to the real cluster the global setup brought up (or the
// `make up` cluster it found running): a client-node KubeConfig, the built kubectl, and nodes on demand.
import { execFile } from "node:child_process";
import { KubeConfig } from "@kubernetes/client-node";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/controller/client.js";
import { resourcePath, type GroupVersionResource } from "../../pkg/controller/gvr.js";
import { binary, layout } from "../../deploy/local/cluster/layout.js";
import { startKubeProxy, startNodeAgents, waitForReadyNodes } from "../../deploy/local/cluster/start.js";

export const cluster = layout();

/** The admin identity (system:masters) from `.local/kubeconfig`. */
export async function kubeConfig(): Promise<KubeConfig> {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.adminKubeconfig);
  return kc;
}

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs the kubectl built with the cluster (same release) against it; never throws on a non-zero exit. */
export function kubectl(args: string[], options: { input?: string } = {}): Promise<KubectlResult> {
  return new Promise((resolvePromise) => {
    const child = execFile(
      binary(cluster, "kubectl"),
      ["--kubeconfig", cluster.adminKubeconfig, ...args],
      { encoding: "utf8", maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolvePromise({ stdout, stderr, code });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * Starts the node agents and kube-proxy if they are not running and waits for every node to be
 * Ready. For tests that need Pods to run; the global setup's teardown stops them again.
 */
export async function ensureNodes(): Promise<void> {
  const say = (line: string) => console.log(`[nodes] ${line}`);
  const agents = await startNodeAgents(cluster, say);
  if (!agents.started)
    throw new Error("the node agent (deploy/local/node-agent/main.ts) is not in this checkout");
  await waitForReadyNodes(cluster, say);
  await startKubeProxy(cluster, say);
}

/** kubectl that throws with its stderr on a non-zero exit, answering stdout. */
export async function kubectlOk(args: string[], input?: string): Promise<string> {
  const result = await kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** How `eventually` probes when the caller names no interval: often at first, then, for a long wait, less. */
const QUICK_PROBE_INTERVAL_MS = 500;
const PATIENT_AFTER_MS = 10_000;
const PATIENT_PROBE_INTERVAL_MS = 2_000;

/**
 * Retries `probe` until it resolves (the world converges), rethrowing its last error after `timeoutMs`: every
 * `intervalMs`, or without one every 500 ms for 10 s and every 2 s after that (a guest booting). A probe is
 * usually a kubectl call, a process of its own: files polling twice a second for minutes take CPU from what they
 * wait for. A caller that must not miss a short-lived state names its interval.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  timeoutMs = 60_000,
  intervalMs?: number,
): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      const patient = Date.now() - started > PATIENT_AFTER_MS;
      const wait = intervalMs ?? (patient ? PATIENT_PROBE_INTERVAL_MS : QUICK_PROBE_INTERVAL_MS);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** The scale subresource of an object, as `kubectl scale` reads it. */
export interface Scale {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

export async function scaleOf(
  client: KubeClient,
  gvr: GroupVersionResource,
  namespace: string,
  name: string,
): Promise<Scale> {
  return (await client.transport.request({
    method: "GET",
    path: resourcePath(gvr, { namespace, name, subresource: "scale" }),
  })) as Scale;
}

/** Installs the generated KubeVirt CRDs and waits until `needed` are Established (one a previous file
 * deleted may still be going away first). */
export async function installCRDs(needed: readonly string[]): Promise<void> {
  await crdsNotTerminating(needed);
  // Server-side apply: the largest CRDs exceed client-side apply's annotation limit.
  await kubectlOk([
    "apply",
    "--server-side",
    "--force-conflicts",
    "-f",
    join(cluster.repoRoot, "manifests/generated/crds"),
  ]);
  await kubectlOk([
    "wait",
    "--for",
    "condition=Established",
    "--timeout=60s",
    ...needed.map((name) => `crd/${name}`),
  ]);
}

/** A CRD that a previous test file deleted may still be going away; waits until none of `names` is. */
export async function crdsNotTerminating(names: readonly string[]): Promise<void> {
  await eventually(async () => {
    for (const name of names) {
      const result = await kubectl(["get", "crd", name, "-o", "jsonpath={.metadata.deletionTimestamp}"]);
      if (result.code === 0 && result.stdout.trim() !== "") throw new Error(`${name} is terminating`);
    }
  }, 120_000);
}
