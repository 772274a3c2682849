import { eventually } from "../../test/e2e/harness.js";
import { testGuestVM } from "../../test/e2e/test-guest-vm.js";
import type { VirtualMachine, VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { MigrationSelectorLabel } from "../../pkg/util/constants.js";
import { BenchError } from "../common/bench-error.js";
import { kubectlText, lastLine } from "../common/kubectl.js";
import { getVmi, launcherPodsOf, type Target } from "./cluster.js";
import { notMigratableReason } from "./cluster-objects.js";

// The benchmark's own VM: the e2e tests' test guest (128Mi, containerDisk) on the masquerade pod
// network, which keeps it live-migratable. A label marks it, so that the benchmark never takes over,
// nor deletes, a VM of the same name it did not create.

const OWNER_LABEL = "kubevirt-ts.io/benchmark";
const OWNER = "migration";

export async function createVM(t: Target): Promise<void> {
  let existing: string;
  try {
    // Empty when there is no such VM.
    existing = await kubectlText(t, [
      "-n",
      t.namespace,
      "get",
      "virtualmachines.kubevirt.io",
      t.vm,
      "--ignore-not-found",
      "-o",
      "json",
    ]);
  } catch (error) {
    throw new BenchError(
      `reading VM ${t.namespace}/${t.vm}: ${lastLine(error)}; is KubeVirt installed (make up)?`,
    );
  }
  const labels =
    existing.trim() === "" ? undefined : ((JSON.parse(existing) as VirtualMachine).metadata?.labels ?? {});
  if (labels && labels[OWNER_LABEL] !== OWNER) {
    throw new BenchError(
      `VM ${t.namespace}/${t.vm} exists and is not the benchmark's: name another with --vm`,
    );
  }
  const vm = testGuestVM(t.vm, { podNetwork: "masquerade" });
  vm.metadata = { ...vm.metadata, namespace: t.namespace, labels: { [OWNER_LABEL]: OWNER } };
  try {
    await kubectlText(t, ["apply", "-f", "-"], { input: JSON.stringify(vm) });
  } catch (error) {
    throw new BenchError(`creating VM ${t.namespace}/${t.vm}: ${lastLine(error)}`);
  }
}

/** Waits until a migration can start (notMigratableReason), then answers the VMI. */
export async function waitMigratable(t: Target, timeoutMs: number): Promise<VirtualMachineInstance> {
  try {
    return await eventually(
      async () => {
        const vmi = await getVmi(t);
        const reason = notMigratableReason(vmi, await launcherPodsOf(t, vmi.metadata?.uid ?? ""));
        if (reason) throw new BenchError(reason);
        return vmi;
      },
      timeoutMs,
      1_000,
    );
  } catch (error) {
    throw new BenchError(
      `VMI ${t.namespace}/${t.vm} did not become live-migratable within ${timeoutMs / 1000} s: ${(error as Error).message}`,
    );
  }
}

/** Deletes the VM (its VMI and launcher pods go with it) and the migration objects the runs left. */
export async function deleteVM(t: Target): Promise<void> {
  await kubectlText(
    t,
    [
      "-n",
      t.namespace,
      "delete",
      "virtualmachines.kubevirt.io",
      t.vm,
      "--ignore-not-found",
      "--wait=true",
      "--timeout=120s",
    ],
    { requestTimeout: "0" },
  );
  await kubectlText(t, [
    "-n",
    t.namespace,
    "delete",
    "virtualmachineinstancemigrations.kubevirt.io",
    "-l",
    `${MigrationSelectorLabel}=${t.vm}`,
    "--ignore-not-found",
  ]);
}
