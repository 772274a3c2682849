// virtctl soft-reboot and reset (upstream pkg/virtctl/softreboot and pkg/virtctl/reset): PUT
// .../virtualmachineinstances/{name}/softreboot|reset with no body. Soft reboot asks the guest (through its
// agent, else the ACPI power button); reset is the reset button.
import { errorMessage } from "../../util/error-message.js";
import type { Command, CommandContext } from "../command.js";
import { helpFlag } from "../flags.js";

interface Words {
  name: string;
  /** The subresource, which upstream spells without the dash. */
  subresource: string;
  short: string;
  /** Upstream's "Error <doing> VirtualMachineInstance ..." (reset's keeps its spelling). */
  doing: string;
  /** Soft reboot words a client that cannot be made; reset passes the error on as it is. */
  clientError?: string;
}

function vmiCommand(words: Words): Command {
  const title = words.name.replace(
    /(^|-)([a-z])/g,
    (_match, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
  return {
    name: words.name,
    use: `${words.name} (VMI)`,
    short: words.short,
    example: `  # ${title} a virtualmachineinstance called 'myvmi':\n  {{ProgramName}} ${words.name} myvmi`,
    flags: [helpFlag(words.name)],
    argCount: 1,
    async run(context: CommandContext) {
      const [vmi = ""] = context.args;
      const { client } = await context.client().catch((error: unknown) => {
        throw words.clientError ? new Error(`${words.clientError}${errorMessage(error)}`) : error;
      });
      try {
        await client.put(
          client.subresourcePath("virtualmachineinstances", vmi, words.subresource),
          undefined,
        );
      } catch (error) {
        throw new Error(`Error ${words.doing} VirtualMachineInstance ${vmi}: ${errorMessage(error)}`);
      }
      context.io.stdout.write(`VMI ${vmi} was scheduled to ${words.name}\n`);
    },
  };
}

export const softRebootCommand = vmiCommand({
  name: "soft-reboot",
  subresource: "softreboot",
  short: "Soft reboot a virtual machine instance",
  doing: "soft rebooting",
  clientError: "Cannot obtain KubeVirt client: ",
});

export const resetCommand = vmiCommand({
  name: "reset",
  subresource: "reset",
  short: "Reset a virtual machine instance",
  doing: "reseting",
});
