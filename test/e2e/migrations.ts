// What the live-migration tests share: a MigrationPolicy that slows a labelled VM's migrations down enough to
// act while they run, and the migrations of a VMI.
import { kubectlOk } from "./harness.js";

/** The label the slow policy selects VMIs by. */
export const SLOW_MIGRATION_LABEL = "e2e-migration";

/** A MigrationPolicy holding the migrations of VMIs labelled `e2e-migration: <selects>` to 1 MiB/s. */
export function slowMigrationPolicy(name: string, selects: string): object {
  return {
    apiVersion: "migrations.kubevirt.io/v1alpha1",
    kind: "MigrationPolicy",
    metadata: { name },
    spec: {
      bandwidthPerMigration: "1Mi",
      selectors: { virtualMachineInstanceSelector: { [SLOW_MIGRATION_LABEL]: selects } },
    },
  };
}

/** The names of the migrations of VMI `vmi`, oldest first. */
export async function migrationsOf(vmi: string): Promise<string[]> {
  const names = await kubectlOk([
    "get",
    "vmim",
    "-l",
    `kubevirt.io/vmi-name=${vmi}`,
    "--sort-by=.metadata.creationTimestamp",
    "-o",
    "jsonpath={.items[*].metadata.name}",
  ]);
  return names.split(/\s+/).filter(Boolean);
}
