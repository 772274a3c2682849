// virtctl restart: PUT .../virtualmachines/{name}/restart with v1.RestartOptions.
import type { RestartOptions } from "../../api/generated/v1.js";
import type { Command } from "../command.js";
import { helpFlag } from "../flags.js";
import {
  dryRunFlag,
  dryRunOption,
  forceFlags,
  forcedGracePeriod,
  reportScheduled,
  vmExample,
  withErrorPrefix,
} from "./common.js";

export const restartCommand: Command = {
  name: "restart",
  use: "restart (VM)",
  short: "Restart a virtual machine.",
  example: vmExample("restart"),
  flags: [...forceFlags, dryRunFlag, helpFlag("restart")],
  argCount: 1,
  async run(context) {
    const [vmName = ""] = context.args;
    const { client } = await context.client();
    const options: RestartOptions = { dryRun: dryRunOption(context) };
    const gracePeriod = forcedGracePeriod(context);
    if (gracePeriod !== undefined) options.gracePeriodSeconds = gracePeriod;
    const prefix =
      gracePeriod === undefined
        ? "error restarting VirtualMachine: "
        : "error force restarting VirtualMachine: ";
    await withErrorPrefix(prefix, () =>
      client.put(client.subresourcePath("virtualmachines", vmName, "restart"), options),
    );
    reportScheduled(context, vmName, "restart");
  },
};
