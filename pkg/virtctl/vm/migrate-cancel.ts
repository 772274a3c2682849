// virtctl migrate-cancel (upstream pkg/virtctl/vm/migrate_cancel.go): lists the VMI's migrations (label
// kubevirt.io/vmi-name) and deletes the first that is not final, which aborts it.
import { VirtualMachineInstanceMigrationListSchema } from "../../api/generated/v1.js";
import { errorMessage } from "../../util/error-message.js";
import { MigrationSelectorLabel } from "../../util/constants.js";
import type { Command } from "../command.js";
import { helpFlag } from "../flags.js";
import { dryRunFlag, dryRunOption, reportScheduled } from "./common.js";

export const migrateCancelCommand: Command = {
  name: "migrate-cancel",
  use: "migrate-cancel (VM)",
  short: "Cancel migration of a virtual machine.",
  // Go's strings.Title capitalizes after the dash too.
  example: "  # Migrate-Cancel a virtual machine called 'myvm':\n  {{ProgramName}} migrate-cancel myvm",
  flags: [dryRunFlag, helpFlag("migrate-cancel")],
  argCount: 1,
  async run(context) {
    const [vmiName = ""] = context.args;
    const { client } = await context.client();
    const resource = "virtualmachineinstancemigrations";
    let migrations;
    try {
      const query = new URLSearchParams({ labelSelector: `${MigrationSelectorLabel}==${vmiName}` });
      const list = await client.getJson(client.namespacedPath("kubevirt.io/v1", resource), query);
      migrations = VirtualMachineInstanceMigrationListSchema.parse(list).items;
    } catch (error) {
      throw new Error(`Error fetching virtual machine instance migration list  ${errorMessage(error)}`);
    }
    const dryRun = dryRunOption(context);
    // One migration at most is active; the others are done.
    const active = migrations.find((migration) => {
      const phase = migration.status?.phase;
      return phase !== "Succeeded" && phase !== "Failed";
    });
    if (active === undefined) throw new Error(`Found no migration to cancel for ${vmiName}`);
    const migrationName = active.metadata?.name ?? "";
    try {
      await client.delete(
        client.namespacedPath("kubevirt.io/v1", resource, migrationName),
        dryRun ? { dryRun } : {},
      );
    } catch (error) {
      throw new Error(
        `Error canceling migration ${migrationName} of a VirtualMachine ${vmiName}: ${errorMessage(error)}`,
      );
    }
    reportScheduled(context, vmiName, "migrate-cancel");
  },
};
