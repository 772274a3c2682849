// virtctl create (upstream pkg/virtctl/create): the parent of the manifest generators; on its own,
// or followed by a word naming none of them, it prints its usage. Of upstream's generators only
// clone is not ported: it is refused by name in root.ts.
import type { Command } from "../command.js";
import { helpFlag } from "../flags.js";
import { commandUsage } from "../templates/templates.js";
import { createInstancetypeCommand } from "./instancetype/instancetype.js";
import { createPreferenceCommand } from "./preference/preference.js";
import { createVMCommand } from "./vm/vm.js";

export const createCommand: Command = {
  name: "create",
  use: "create",
  short: "Create a manifest for the specified Kind.",
  example: "",
  flags: [helpFlag("create")],
  argCount: "any",
  subcommands: [createInstancetypeCommand, createPreferenceCommand, createVMCommand],
  async run(context) {
    context.io.stdout.write(commandUsage(createCommand, context.programName));
  },
};
