// bench/migration: live migration of an idle small guest between the two nodes (TCG), against DESIGN.md's
// targets (completes ≤ 10 s, guest downtime ≤ 1 s). Creates its own VM, migrates it --runs times (each
// run to the other node), prints figures, asserts nothing, and deletes the VM unless --keep.
//   npx tsx bench/migration/main.ts [--vm bench-migration] [--namespace default] [--runs 5] [--keep]
import { runMain } from "../common/bench-error.js";
import { clusterOf, lastLine, localCluster } from "../common/kubectl.js";
import { secondsBetween } from "../common/timestamps.js";
import { requireTwoReadyNodes, type Target } from "./cluster.js";
import { consoleRoundTripS, readGuestClock, withConsole } from "./console.js";
import { guestDowntimeS } from "./guest-clock.js";
import { migrate } from "./migrate.js";
import { commandLine, parseOptions } from "./options.js";
import { LEGEND, formatPhases, formatRuns, formatSummary, seconds, type RunResult } from "./report.js";
import { phaseOffsets } from "./timestamps.js";
import { createVM, deleteVM, waitMigratable } from "./vm.js";

/** Boot under TCG, from apply to a live-migratable VMI. */
const BOOT_TIMEOUT_MS = 300_000;
/** Between runs: the last migration's source pod finishing. */
const SETTLE_TIMEOUT_MS = 120_000;
const MIGRATION_TIMEOUT_MS = 180_000;

async function measure(t: Target, run: number): Promise<RunResult> {
  await waitMigratable(t, SETTLE_TIMEOUT_MS);
  const { consoleRttS, before } = await withConsole(t, async (session) => ({
    consoleRttS: await consoleRoundTripS(session),
    before: await readGuestClock(session),
  }));
  const outcome = await migrate(t, MIGRATION_TIMEOUT_MS);
  const after = await withConsole(t, readGuestClock);
  return {
    run,
    migration: outcome.vmim.metadata?.name ?? "?",
    sourceNode: outcome.state?.sourceNode ?? "?",
    targetNode: outcome.state?.targetNode ?? "?",
    startToEndS: secondsBetween(outcome.state?.startTimestamp, outcome.state?.endTimestamp),
    wallS: outcome.wallS,
    pollS: outcome.pollS,
    virtctlS: outcome.virtctlS,
    phases: phaseOffsets(outcome.vmim),
    downtimeS: guestDowntimeS(before, after),
    consoleRttS,
  };
}

async function main(): Promise<void> {
  const defaults = localCluster();
  const options = parseOptions(process.argv.slice(2), defaults);
  const t: Target = { ...clusterOf(options), namespace: options.namespace, vm: options.vm };
  const nodes = await requireTwoReadyNodes(t);
  console.log(`migration: VM ${t.namespace}/${t.vm}, ${options.runs} runs between ${nodes.join(", ")}`);

  await createVM(t);
  const results: RunResult[] = [];
  try {
    console.log("waiting for the VMI to run, be live-migratable and show its console prompt ...");
    await waitMigratable(t, BOOT_TIMEOUT_MS);
    await withConsole(t, async () => undefined);
    for (let run = 1; run <= options.runs; run++) {
      const result = await measure(t, run);
      results.push(result);
      console.log(
        `run ${run}: ${result.sourceNode} -> ${result.targetNode} in ${seconds(result.wallS)} s, ` +
          `guest downtime ${seconds(result.downtimeS)} s`,
      );
    }
  } finally {
    await cleanUp(t, options.keep);
  }

  console.log("");
  console.log(commandLine(options, defaults));
  for (const line of LEGEND) console.log(line);
  console.log("");
  for (const line of formatRuns(results)) console.log(line);
  console.log("");
  console.log("seconds from the migration object's creation to each phase:");
  for (const line of formatPhases(results)) console.log(line);
  console.log("");
  for (const line of formatSummary(results)) console.log(line);
}

async function cleanUp(t: Target, keep: boolean): Promise<void> {
  if (keep) {
    console.log(`kept VM ${t.namespace}/${t.vm} (kubectl delete vm -n ${t.namespace} ${t.vm} removes it)`);
    return;
  }
  console.log(`deleting VM ${t.namespace}/${t.vm} ...`);
  // A failed clean-up must not hide why the benchmark stopped.
  await deleteVM(t).catch((error: unknown) =>
    console.error(`could not delete VM ${t.namespace}/${t.vm}: ${lastLine(error)}`),
  );
}

runMain("migration", main);
