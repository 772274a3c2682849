// virtctl migrate (upstream pkg/virtctl/vm/migrate.go): PUT .../virtualmachines/{name}/migrate with
// v1.MigrateOptions, --addedNodeSelector as its addedNodeSelector.
import type { MigrateOptions } from "../../api/generated/v1.js";
import { errorMessage } from "../../util/error-message.js";
import type { Command } from "../command.js";
import { helpFlag, type FlagSpec } from "../flags.js";
import { dryRunFlag, dryRunOption, reportScheduled, vmExample } from "./common.js";

const ADDED_NODE_SELECTOR_USAGE =
  "--addedNodeSelector=key=value1,key2=value2: configure an additional node selector for the one-off migration attempt. AddedNodeSelector can only restrict constraints already set on the VM. By default the scheduler is responsible for finding the best Node, which is the recommended way of migrating VMs.";

const addedNodeSelectorFlag: FlagSpec = {
  name: "addedNodeSelector",
  kind: "stringToString",
  defaultValue: {},
  usage: ADDED_NODE_SELECTOR_USAGE,
};

/** Go encodes a map with its keys sorted. */
const sortedMap = (map: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((key) => [key, map[key] ?? ""]),
  );

export const migrateCommand: Command = {
  name: "migrate",
  use: "migrate (VM)",
  short: "Migrate a virtual machine.",
  example: vmExample("migrate"),
  flags: [addedNodeSelectorFlag, dryRunFlag, helpFlag("migrate")],
  argCount: 1,
  async run(context) {
    const [vmName = ""] = context.args;
    const { client } = await context.client();
    const options: MigrateOptions = { dryRun: dryRunOption(context) };
    // An unset flag leaves the map nil, which the body leaves out.
    if (context.flags.changed.has("addedNodeSelector")) {
      options.addedNodeSelector = sortedMap(context.flags.stringMap("addedNodeSelector"));
    }
    try {
      await client.put(client.subresourcePath("virtualmachines", vmName, "migrate"), options);
    } catch (error) {
      throw new Error(`Error migrating VirtualMachine ${errorMessage(error)}`);
    }
    reportScheduled(context, vmName, "migrate");
  },
};
