import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { virtctl } from "../../test/e2e/harness.js";
import type {
  VirtualMachineInstanceMigration,
  VirtualMachineInstanceMigrationState,
} from "../../pkg/api/generated/v1.js";
import { BenchError } from "../common/bench-error.js";
import { getMigration, getVmi, migrationsOf, type Target } from "./cluster.js";
import { migrationFailure, migrationStateOf, newMigration } from "./cluster-objects.js";

// One live migration as a user starts it (`virtctl migrate`), followed to its end by polling the
// migration object: kubectl takes ~0.1 s a call, so the poll's own period bounds the wall time's
// resolution and is reported with it.

const POLL_PAUSE_MS = 50;

export interface MigrationOutcome {
  vmim: VirtualMachineInstanceMigration;
  state: VirtualMachineInstanceMigrationState | undefined;
  /** From starting `virtctl migrate` to the first poll that saw Succeeded. */
  wallS: number;
  /** The mean period of those polls. */
  pollS: number;
  /** How long `virtctl migrate` took to return (a Node.js process starting is part of the wall time). */
  virtctlS: number;
}

export async function migrate(t: Target, timeoutMs: number): Promise<MigrationOutcome> {
  const known = new Set((await migrationsOf(t)).map((m) => m.metadata?.name ?? ""));
  const start = performance.now();
  const started = await virtctl(["-n", t.namespace, "migrate", t.vm], t.kubeconfig);
  if (started.code !== 0) {
    throw new BenchError(`virtctl migrate ${t.vm} failed (exit ${started.code}): ${started.stderr.trim()}`);
  }
  const virtctlS = (performance.now() - start) / 1000;
  const name = newMigration(await migrationsOf(t), known)?.metadata?.name;
  if (!name) throw new BenchError(`virtctl migrate ${t.vm} left no new migration object of the VMI`);

  const pollStart = performance.now();
  for (let polls = 1; ; polls++) {
    const vmim = await getMigration(t, name);
    const phase = vmim.status?.phase;
    if (phase === "Succeeded") {
      const end = performance.now();
      const state = migrationStateOf(vmim, await getVmi(t));
      return { vmim, state, wallS: (end - start) / 1000, pollS: (end - pollStart) / 1000 / polls, virtctlS };
    }
    if (phase === "Failed")
      throw new BenchError(migrationFailure(vmim, await getVmi(t).catch(() => undefined), "failed"));
    if (performance.now() - start > timeoutMs) {
      const vmi = await getVmi(t).catch(() => undefined);
      throw new BenchError(migrationFailure(vmim, vmi, `did not succeed within ${timeoutMs / 1000} s`));
    }
    await sleep(POLL_PAUSE_MS);
  }
}
