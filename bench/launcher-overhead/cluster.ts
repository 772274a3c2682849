import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import { promisify } from "node:util";

// Finds a VMI's launcher pod through kubectl (read-only: get only).

const run = promisify(execFile);

export class BenchError extends Error {}

export interface KubectlOptions {
  kubectl: string;
  kubeconfig: string;
}

export interface LauncherPod {
  vmiUid: string;
  podName: string;
  podUid: string;
  node: string;
}

interface ObjectMeta {
  name?: string;
  uid?: string;
}

interface Vmi {
  metadata?: ObjectMeta;
  status?: { phase?: string; nodeName?: string };
}

interface Pod {
  metadata?: ObjectMeta & { deletionTimestamp?: string };
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

async function kubectl(options: KubectlOptions, args: string[]): Promise<unknown> {
  const { stdout } = await run(
    options.kubectl,
    ["--kubeconfig", options.kubeconfig, "--request-timeout=10s", ...args, "-o", "json"],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as unknown;
}

/** kubectl's last stderr line says what went wrong ("The connection to the server ... was refused"). */
function lastLine(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr?.trim();
  const text = stderr || (error instanceof Error ? error.message : String(error));
  return text.split("\n").at(-1) ?? "";
}

export async function findLauncherPod(
  options: KubectlOptions,
  namespace: string,
  vmiName: string,
): Promise<LauncherPod> {
  const noVmi = `no running VMI ${namespace}/${vmiName}`;
  const hint = "start the cluster with make up";
  if (
    !(await access(options.kubeconfig).then(
      () => true,
      () => false,
    ))
  ) {
    throw new BenchError(`${noVmi}: no kubeconfig at ${options.kubeconfig}; ${hint}`);
  }
  if (
    !(await access(options.kubectl).then(
      () => true,
      () => false,
    ))
  ) {
    throw new BenchError(`${noVmi}: no kubectl at ${options.kubectl}; ${hint}`);
  }
  let vmi: Vmi;
  try {
    vmi = (await kubectl(options, [
      "get",
      "virtualmachineinstances.kubevirt.io",
      "-n",
      namespace,
      vmiName,
    ])) as Vmi;
  } catch (error) {
    throw new BenchError(`${noVmi}: ${lastLine(error)}; ${hint}`);
  }
  const phase = vmi.status?.phase ?? "no phase";
  const vmiUid = vmi.metadata?.uid;
  if (phase !== "Running" || !vmiUid) throw new BenchError(`${noVmi} (phase ${phase}): ${hint}`);

  let pods: { items?: Pod[] };
  try {
    pods = (await kubectl(options, [
      "get",
      "pods",
      "-n",
      namespace,
      "-l",
      `kubevirt.io=virt-launcher,kubevirt.io/created-by=${vmiUid}`,
    ])) as { items?: Pod[] };
  } catch (error) {
    throw new BenchError(`${noVmi}: ${lastLine(error)}; ${hint}`);
  }
  const running = (pods.items ?? []).filter(
    (pod) => pod.status?.phase === "Running" && !pod.metadata?.deletionTimestamp,
  );
  // During a migration two pods run: the VMI's node names the one whose QEMU runs the guest.
  const pod = running.find((p) => p.spec?.nodeName === vmi.status?.nodeName) ?? running[0];
  if (!pod?.metadata?.name || !pod.metadata.uid || !pod.spec?.nodeName) {
    throw new BenchError(`${noVmi}: no running virt-launcher pod for VMI uid ${vmiUid}`);
  }
  return { vmiUid, podName: pod.metadata.name, podUid: pod.metadata.uid, node: pod.spec.nodeName };
}
