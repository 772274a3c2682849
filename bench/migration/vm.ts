import { eventually } from "../../test/e2e/harness.js";
import { testGuestVM } from "../../test/e2e/test-guest-vm.js";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { MigrationSelectorLabel } from "../../pkg/util/constants.js";
import { BenchError } from "../common/bench-error.js";
import {
  deleteAndWait,
  existsAsOwned,
  kubectlStep,
  ownedManifest,
  vmObject,
} from "../common/bench-objects.js";
import { getVmi, launcherPodsOf, type Target } from "./cluster.js";
import { notMigratableReason } from "./cluster-objects.js";

// The benchmark's own VM: the e2e tests' test guest (128Mi, containerDisk) on the masquerade pod
// network, which keeps it live-migratable. A label marks it, so that the benchmark never takes over,
// nor deletes, a VM of the same name it did not create.

const OWNER = "migration";

export async function createVM(t: Target): Promise<void> {
  const vm = vmObject(t.namespace, t.vm);
  await existsAsOwned(t, vm, { owner: OWNER, option: "--vm" }, "; is KubeVirt installed (make up)?");
  const manifest = ownedManifest(testGuestVM(t.vm, { podNetwork: "masquerade" }), OWNER, t.namespace);
  await kubectlStep(t, `creating ${vm.what}`, ["apply", "-f", "-"], { input: JSON.stringify(manifest) });
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
  await deleteAndWait(t, vmObject(t.namespace, t.vm), 120_000);
  await kubectlStep(t, `deleting the migrations of ${vmObject(t.namespace, t.vm).what}`, [
    "-n",
    t.namespace,
    "delete",
    "virtualmachineinstancemigrations.kubevirt.io",
    "-l",
    `${MigrationSelectorLabel}=${t.vm}`,
    "--ignore-not-found",
  ]);
}
