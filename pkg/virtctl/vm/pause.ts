// virtctl pause and unpause (upstream pkg/virtctl/pause and pkg/virtctl/unpause): PUT
// .../virtualmachineinstances/{name}/pause|unpause with v1.PauseOptions / UnpauseOptions. For a VM the VM
// is read first and its VMI (same name) is the one paused, as upstream does.
import type { PauseOptions, VirtualMachine } from "../../api/generated/v1.js";
import { VirtualMachineSchema } from "../../api/generated/v1.js";
import { runStrategyOf } from "../../api/run-strategy.js";
import { errorMessage } from "../../util/error-message.js";
import type { Command, CommandContext } from "../command.js";
import { helpFlag } from "../flags.js";
import { ApiError } from "../kubecli/errors.js";
import { dryRunFlag, dryRunOption } from "./common.js";

type Verb = "pause" | "unpause";

const WORDS: Record<Verb, { short: string; doing: string }> = {
  pause: { short: "Pause a virtual machine", doing: "pausing" },
  unpause: { short: "Unpause a virtual machine", doing: "unpausing" },
};

/** Upstream's handleNotFoundError: a pause of a VM without VMI says why there is none. */
function vmiNotFound(vm: VirtualMachine): Error {
  const name = vm.metadata?.name ?? "";
  const strategy = runStrategyOf(vm);
  if (!strategy.ok) return new Error(`Error pausing VirtualMachineInstance ${name}: ${strategy.message}`);
  if (strategy.value === "Halted") {
    return new Error(
      `Error pausing VirtualMachineInstance ${name}. VirtualMachine ${name} is not set to run`,
    );
  }
  return new Error(`Error pausing VirtualMachineInstance ${name}, it was not found`);
}

async function run(verb: Verb, context: CommandContext): Promise<void> {
  const [kind = "", name = ""] = context.args;
  const resourceType = kind.toLowerCase();
  const { client } = await context.client();
  const options: PauseOptions = { dryRun: dryRunOption(context) };
  const send = () => client.put(client.subresourcePath("virtualmachineinstances", name, verb), options);
  const failed = (error: unknown) =>
    new Error(`Error ${WORDS[verb].doing} VirtualMachineInstance ${name}: ${errorMessage(error)}`);
  if (resourceType === "virtualmachine" || resourceType === "vm") {
    let vm: VirtualMachine;
    try {
      vm = VirtualMachineSchema.parse(await client.getJson(client.objectPath("virtualmachines", name)));
    } catch (error) {
      throw new Error(`Error getting VirtualMachine ${name}: ${errorMessage(error)}`);
    }
    try {
      await send();
    } catch (error) {
      if (verb === "pause" && error instanceof ApiError && error.code === 404) throw vmiNotFound(vm);
      throw failed(error);
    }
  } else if (resourceType === "virtualmachineinstance" || resourceType === "vmi") {
    await send().catch((error: unknown) => {
      throw failed(error);
    });
  } else if (verb === "unpause") {
    // An unknown kind: upstream's unpause does nothing and says nothing, its pause still prints the line.
    return;
  }
  context.io.stdout.write(`VMI ${name} was scheduled to ${verb}\n`);
}

function command(verb: Verb): Command {
  return {
    name: verb,
    use: `${verb} vm|vmi (VM)|(VMI)`,
    short: WORDS[verb].short,
    example: `  # ${WORDS[verb].short.replace("a virtual machine", "a virtualmachine")} called 'myvm':\n  {{ProgramName}} ${verb} vm myvm`,
    flags: [dryRunFlag, helpFlag(verb)],
    argCount: 2,
    run: (context) => run(verb, context),
  };
}

export const pauseCommand = command("pause");
export const unpauseCommand = command("unpause");
