import { BenchError } from "../common/bench-error.js";
import {
  START_CLUSTER_HINT,
  kubectlJson,
  lastLine,
  missingClusterFile,
  type KubectlOptions,
} from "../common/kubectl.js";

// Finds a VMI's launcher pod through kubectl (read-only: get only).

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

export async function findLauncherPod(
  options: KubectlOptions,
  namespace: string,
  vmiName: string,
): Promise<LauncherPod> {
  const noVmi = `no running VMI ${namespace}/${vmiName}`;
  const hint = START_CLUSTER_HINT;
  const missing = await missingClusterFile(options);
  if (missing) throw new BenchError(`${noVmi}: ${missing}; ${hint}`);
  let vmi: Vmi;
  try {
    vmi = (await kubectlJson(options, [
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
    pods = (await kubectlJson(options, [
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
