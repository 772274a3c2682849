import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { binary, layout, type Layout } from "../../deploy/local/cluster/layout.js";

// The benchmarks drive the local cluster with its own kubectl, as a user does.

const run = promisify(execFile);

export interface KubectlOptions {
  kubectl: string;
  kubeconfig: string;
}

/** The local cluster's kubeconfig and kubectl (`make up`'s): the benchmarks' defaults. */
export function localCluster(l: Layout = layout()): KubectlOptions {
  return { kubeconfig: l.adminKubeconfig, kubectl: binary(l, "kubectl") };
}

/** The kubectl and kubeconfig options name, the kubeconfig made absolute (for the processes started elsewhere). */
export function clusterOf(options: KubectlOptions): KubectlOptions {
  return { kubectl: options.kubectl, kubeconfig: path.resolve(options.kubeconfig) };
}

/** What `make up` leaves for a benchmark to find: the hint its errors end with. */
export const START_CLUSTER_HINT = "start the cluster with make up";

export interface KubectlCall {
  /** kubectl's stdin. */
  input?: string;
  /** Every HTTP request's limit ("0": none, for a command that waits with its own --timeout). */
  requestTimeout?: string;
}

/** kubectl's stdout; throws execFile's error (kubectl's stderr in `stderr`) on a non-zero exit. */
export async function kubectlText(
  options: KubectlOptions,
  args: string[],
  call: KubectlCall = {},
): Promise<string> {
  const flags = ["--kubeconfig", options.kubeconfig, `--request-timeout=${call.requestTimeout ?? "10s"}`];
  const child = run(options.kubectl, [...flags, ...args], { maxBuffer: 64 * 1024 * 1024 });
  if (call.input !== undefined) child.child.stdin?.end(call.input);
  return (await child).stdout;
}

export async function kubectlJson(options: KubectlOptions, args: string[]): Promise<unknown> {
  return JSON.parse(await kubectlText(options, [...args, "-o", "json"])) as unknown;
}

/**
 * kubectl's last stderr line says what went wrong ("The connection to the server ... was refused"); for an
 * error caused by kubectl's (bench-objects.ts's kubectlStep), kubectl's still.
 */
export function lastLine(error: unknown): string {
  const stderrOf = (e: unknown): string | undefined => (e as { stderr?: string } | undefined)?.stderr;
  const stderr = (stderrOf(error) ?? stderrOf((error as { cause?: unknown } | undefined)?.cause))?.trim();
  const text = stderr || (error instanceof Error ? error.message : String(error));
  return text.split("\n").at(-1) ?? "";
}

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

/** Why kubectl cannot reach a local cluster before trying it ("no kubeconfig at ..."), or undefined. */
export async function missingClusterFile(options: KubectlOptions): Promise<string | undefined> {
  if (!(await exists(options.kubeconfig))) return `no kubeconfig at ${options.kubeconfig}`;
  if (!(await exists(options.kubectl))) return `no kubectl at ${options.kubectl}`;
  return undefined;
}
