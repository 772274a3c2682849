// virtctl start: PUT .../virtualmachines/{name}/start with v1.StartOptions.
import type { StartOptions } from "../../api/generated/v1.js";
import type { Command } from "../command.js";
import { helpFlag } from "../flags.js";
import { dryRunFlag, dryRunOption, reportScheduled, vmExample, withErrorPrefix } from "./common.js";

export const startCommand: Command = {
  name: "start",
  use: "start (VM)",
  short: "Start a virtual machine.",
  example: vmExample("start"),
  flags: [
    {
      name: "paused",
      kind: "bool",
      defaultValue: false,
      usage: "--paused=false: If set to true, start virtual machine in paused state",
    },
    dryRunFlag,
    helpFlag("start"),
  ],
  argCount: 1,
  async run(context) {
    const [vmName = ""] = context.args;
    const { client } = await context.client();
    const options: StartOptions = { dryRun: dryRunOption(context) };
    if (context.flags.bool("paused")) options.paused = true;
    // upstream's wording has no colon here, unlike stop and restart
    await withErrorPrefix("Error starting VirtualMachine ", () =>
      client.put(client.subresourcePath("virtualmachines", vmName, "start"), options),
    );
    reportScheduled(context, vmName, "start");
  },
};
