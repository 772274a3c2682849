// bench/vm-boot: from `kubectl apply` of a small VM (the test guest containerDisk, TCG) until its serial
// console answers, against the same guest booted bare by qemu-system-x86_64 -accel tcg in the same run;
// DESIGN.md's target: ≤ 1.5 × the bare boot + 2 s. --runs pairs of boots (alternating which goes first),
// in a namespace of its own that it deletes afterwards. Prints figures, asserts nothing.
//   npx tsx bench/vm-boot/main.ts [--runs 3] [--namespace bench-vm-boot] [--vm bench-vm-boot]
import { loadavg } from "node:os";
import path from "node:path";
import { layout } from "../../deploy/local/cluster/layout.js";
import { testGuestRoot } from "../../deploy/local/guest/test-guest.js";
import { runMain } from "../common/bench-error.js";
import { clusterOf, localCluster } from "../common/kubectl.js";
import { formatLoad } from "../common/machine.js";
import { bareQemuArgs, bootBare } from "./bare.js";
import { formatCommandLine, parseOptions } from "./options.js";
import { LEGEND, formatRuns, formatSummary, formatVmTimeline, seconds, type RunResult } from "./report.js";
import { bootVM, deleteNamespace, deleteVM, ensureNamespace, type Target } from "./vm.js";

/** One boot under TCG, from its start to the console's answer. */
const BOOT_TIMEOUT_MS = 300_000;
const DELETE_TIMEOUT_MS = 180_000;

const since = (startMs: number, atMs: number): number => (atMs - startMs) / 1000;

async function measure(t: Target, image: string, run: number): Promise<RunResult> {
  const bareFirst = run % 2 === 1;
  const boots: Partial<Pick<RunResult, "bare" | "vm">> = {};
  const bare = async (): Promise<void> => {
    const boot = await bootBare(image, BOOT_TIMEOUT_MS);
    boots.bare = {
      promptS: since(boot.startMs, boot.promptAtMs),
      answerS: since(boot.startMs, boot.answerAtMs),
      uptimeS: boot.guestUptimeS,
    };
    console.log(
      `run ${run}: bare QEMU (PID ${boot.pid ?? "?"}) answered after ${seconds(boots.bare.answerS)} s`,
    );
  };
  const vm = async (): Promise<void> => {
    try {
      const boot = await bootVM(t, BOOT_TIMEOUT_MS);
      boots.vm = {
        applyS: since(boot.startMs, boot.appliedAtMs),
        connectedS: boot.connectedAtMs === undefined ? undefined : since(boot.startMs, boot.connectedAtMs),
        promptS: since(boot.startMs, boot.promptAtMs),
        answerS: since(boot.startMs, boot.answerAtMs),
        uptimeS: boot.guestUptimeS,
        phases: boot.phases,
      };
      console.log(`run ${run}: VM answered after ${seconds(boots.vm.answerS)} s`);
    } finally {
      await deleteVM(t, DELETE_TIMEOUT_MS);
    }
  };
  for (const boot of bareFirst ? [bare, vm] : [vm, bare]) await boot();
  return { run, bareFirst, bare: boots.bare!, vm: boots.vm! };
}

async function main(): Promise<void> {
  const l = layout();
  const defaults = { image: testGuestRoot(), ...localCluster(l) };
  const options = parseOptions(process.argv.slice(2), defaults);
  const t: Target = {
    ...clusterOf(options),
    namespace: options.namespace,
    vm: options.vm,
    repoRoot: l.repoRoot,
  };
  console.log(`vm-boot: ${options.runs} runs of VM ${t.namespace}/${t.vm} against bare QEMU ...`);
  const loadBefore = loadavg();
  const created = await ensureNamespace(t);
  const results: RunResult[] = [];
  try {
    for (let run = 1; run <= options.runs; run++) results.push(await measure(t, options.image, run));
  } finally {
    if (created) {
      console.log(`deleting namespace ${t.namespace} ...`);
      // A failed clean-up must not hide why the benchmark stopped.
      await deleteNamespace(t, DELETE_TIMEOUT_MS).catch((error: unknown) =>
        console.error(`could not delete namespace ${t.namespace}: ${(error as Error).message}`),
      );
    }
  }

  console.log("");
  console.log(formatCommandLine(options, defaults));
  console.log(
    `bare: qemu-system-x86_64 -nographic ${bareQemuArgs(path.join(options.image, "disk/disk.qcow2")).join(" ")}`,
  );
  console.log(
    `VM: the e2e test guest VM (128Mi, containerDisk kubevirt-ts/test-guest, default pod network), runStrategy Always`,
  );
  console.log(`load average before ${formatLoad(loadBefore)}, after ${formatLoad(loadavg())}`);
  for (const line of LEGEND) console.log(line);
  console.log("");
  for (const line of formatRuns(results)) console.log(line);
  console.log("");
  console.log(
    "the VM's way there, seconds since starting kubectl apply (VMI timestamps are whole seconds, up to 1 s early):",
  );
  for (const line of formatVmTimeline(results)) console.log(line);
  console.log("");
  for (const line of formatSummary(results)) console.log(line);
}

runMain("vm-boot", main);
