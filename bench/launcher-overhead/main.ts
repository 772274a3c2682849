// bench/launcher-overhead: the memory of every process in a running VM's virt-launcher pod except QEMU,
// against DESIGN.md's target (≤ 64 MiB RSS; upstream budgets 190 MiB). Prints figures, asserts nothing.
//   npx tsx bench/launcher-overhead/main.ts [--namespace default] [--vmi demo] [--kubeconfig ...]
import path from "node:path";
import { parseArgs } from "node:util";
import { binary, layout } from "../../deploy/local/cluster/layout.js";
import { BenchError } from "../common/bench-error.js";
import { findPodProcesses } from "../common/pod-processes.js";
import { sampleProcess, type ProcessSample } from "../common/proc.js";
import { findLauncherPod } from "./cluster.js";
import { formatReport, summarize } from "./report.js";

async function main(): Promise<void> {
  const l = layout();
  const { values } = parseArgs({
    options: {
      namespace: { type: "string", default: "default" },
      vmi: { type: "string", default: "demo" },
      kubeconfig: { type: "string", default: l.adminKubeconfig },
      kubectl: { type: "string", default: binary(l, "kubectl") },
      /** The node agents' state directories (.local/nodes). */
      "nodes-dir": { type: "string" },
    },
  });
  const kubeconfig = path.resolve(values.kubeconfig);
  const nodesDir = path.resolve(values["nodes-dir"] ?? path.join(path.dirname(kubeconfig), "nodes"));

  const pod = await findLauncherPod({ kubectl: values.kubectl, kubeconfig }, values.namespace, values.vmi);
  let found;
  try {
    found = await findPodProcesses({ nodesDir, node: pod.node, podUid: pod.podUid });
  } catch (error) {
    throw new BenchError(`pod ${values.namespace}/${pod.podName}: ${(error as Error).message}`);
  }
  const samples = new Map<number, ProcessSample>();
  for (const { pid } of found.processes) {
    const sample = await sampleProcess("/proc", pid);
    if (sample) samples.set(pid, sample);
  }
  const summary = summarize(found.processes, samples);

  console.log(`launcher-overhead: VMI ${values.namespace}/${values.vmi} (uid ${pod.vmiUid})`);
  console.log(`pod ${values.namespace}/${pod.podName} (uid ${pod.podUid}) on node ${pod.node}`);
  for (const source of found.sources) console.log(`processes from ${source}`);
  for (const warning of found.warnings) console.log(`warning: ${warning}`);
  console.log(
    "RSS = VmRSS of /proc/<pid>/status; PSS = Pss of /proc/<pid>/smaps_rollup (shared pages split)",
  );
  console.log("");
  for (const line of formatReport(summary)) console.log(line);
  if (summary.qemu.count === 0) console.log("note: no qemu process found in the pod");
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(error instanceof BenchError ? message : `launcher-overhead: ${message}`);
  process.exitCode = 1;
});
