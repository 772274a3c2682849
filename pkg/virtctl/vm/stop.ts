// virtctl stop: PUT .../virtualmachines/{name}/stop with v1.StopOptions.
import type { StopOptions } from "../../api/generated/v1.js";
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

export const stopCommand: Command = {
  name: "stop",
  use: "stop (VM)",
  short: "Stop a virtual machine.",
  example: vmExample("stop"),
  flags: [...forceFlags, dryRunFlag, helpFlag("stop")],
  argCount: 1,
  async run(context) {
    const [vmName = ""] = context.args;
    const { client } = await context.client();
    const options: StopOptions = { dryRun: dryRunOption(context) };
    const gracePeriod = forcedGracePeriod(context);
    if (gracePeriod !== undefined) options.gracePeriod = gracePeriod;
    const prefix =
      gracePeriod === undefined ? "error stopping VirtualMachine " : "error force stopping VirtualMachine: ";
    await withErrorPrefix(prefix, () =>
      client.put(client.subresourcePath("virtualmachines", vmName, "stop"), options),
    );
    reportScheduled(context, vmName, "stop");
  },
};
