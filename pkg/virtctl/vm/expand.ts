// virtctl expand (upstream pkg/virtctl/vm/expand.go): the VirtualMachine with its instance type and
// preference expanded, from virt-api's virtualmachines/{name}/expand-spec for a stored VM (--vm) or its
// expand-vm-spec for one read from a file or stdin (--file, `-` for stdin), printed as YAML the way
// sigs.k8s.io/yaml writes it or as JSON the way json.MarshalIndent(vm, "", " ") does (no newline after it,
// as upstream prints it).
import type { Readable } from "node:stream";
import { VirtualMachineSchema, type VirtualMachine } from "../../api/generated/v1.js";
import { marshalIndent } from "../../api/guest-agent-info.js";
import { errorMessage } from "../../util/error-message.js";
import { readFileGo } from "../../util/go-file-error.js";
import { marshalGoYaml } from "../../util/go-yaml.js";
import { goJsonTypeName } from "../../util/go-json.js";
import { decodeYAMLOrJSON } from "../../util/yaml-or-json.js";
import type { Command } from "../command.js";
import { helpFlag, UsageError, type FlagSpec, type ParsedFlags } from "../flags.js";

export const COMMAND_EXPAND = "expand";
const VM_FLAG = "vm";
const FILE_FLAG = "file";
const OUTPUT_FLAG = "output";
const YAML = "yaml";
const JSON_FORMAT = "json";

const flags: FlagSpec[] = [
  {
    name: VM_FLAG,
    kind: "string",
    defaultValue: "",
    usage: 'Specify VirtualMachine name that should be expanded. Mutually exclusive with "--file" flag.',
  },
  {
    name: FILE_FLAG,
    short: "f",
    kind: "string",
    defaultValue: "",
    usage:
      'If present, the Virtual Machine spec in provided file will be expanded. Mutually exclusive with "--vm" flag.',
  },
  {
    name: OUTPUT_FLAG,
    short: "o",
    kind: "string",
    defaultValue: YAML,
    usage: "Specify a format that will be used to display output.",
  },
  helpFlag(COMMAND_EXPAND),
];

// Upstream's text, its stray spaces included.
const EXAMPLE =
  "  #Expand a virtual machine called 'myvm'.\n" +
  "  {{ProgramName}} expand --vm myvm\n" +
  "  \n" +
  "  # Expand a virtual machine from file called myvm.yaml.\n" +
  "  {{ProgramName}} expand --file myvm.yaml\n" +
  "\n" +
  "  # Expand a virtual machine from stdin. Press Ctrl+D (Unix) or Ctrl+Z (Windows) to signal the end of input.\n" +
  "  {{ProgramName}} expand --file -\n" +
  "\n" +
  "  # Expand a virtual machine called myvm and display output in json format.\n" +
  "  {{ProgramName}} expand --vm myvm --output json\n" +
  "  ";

/** Upstream's Args: no positional argument, a VM or a file, a known format. */
function validateArgs(parsed: ParsedFlags): void {
  const received = parsed.positionals.length;
  if (received !== 0) throw new UsageError(`accepts 0 arg(s), received ${received}`);
  if (parsed.string(FILE_FLAG) === "" && parsed.string(VM_FLAG) === "") {
    throw new UsageError("error invalid arguments - VirtualMachine name or file must be provided");
  }
  const format = parsed.string(OUTPUT_FLAG);
  if (format !== YAML && format !== JSON_FORMAT) {
    throw new UsageError(`error not supported output format defined: ${format}`);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** Upstream's readVMFromFileOrStdin; a document that is null gives no VM, as upstream's nil. */
async function readVM(path: string, stdin: Readable): Promise<VirtualMachine | null> {
  let data: Buffer;
  if (path === "-") {
    try {
      data = await readAll(stdin);
    } catch (error) {
      throw new Error(`error reading from stdin: ${errorMessage(error)}`);
    }
  } else {
    try {
      data = readFileGo(path);
    } catch (error) {
      throw new Error(`error reading file ${errorMessage(error)}`);
    }
  }
  const decoded = decodeYAMLOrJSON(data, VirtualMachineSchema, "v1.VirtualMachine");
  if (!decoded.ok) throw new Error(`error decoding VirtualMachine ${decoded.message}`);
  return decoded.value as VirtualMachine | null;
}

/**
 * client-go's Into a v1.VirtualMachine, then SetGroupVersionKind: the kind and version lead, as Go writes
 * them. The server's object is printed as it came, not checked again.
 */
function asVirtualMachine(body: unknown): VirtualMachine {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Error(`json: cannot unmarshal ${goJsonTypeName(body)} into Go value of type v1.VirtualMachine`);
  }
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = body as VirtualMachine;
  return { kind: "VirtualMachine", apiVersion: "kubevirt.io/v1", ...rest };
}

export const expandCommand: Command = {
  name: COMMAND_EXPAND,
  use: "expand (VM)",
  short: "Return the VirtualMachine object with expanded instancetype and preference.",
  example: EXAMPLE,
  flags,
  argCount: "any",
  validateArgs,
  exclusiveFlagGroups: [[FILE_FLAG, VM_FLAG]],
  async run(context) {
    const { client } = await context.client();
    const namespace = client.namespace;
    const vmName = context.flags.string(VM_FLAG);
    const failed = (name: string, error: unknown) =>
      new Error(
        `error expanding VirtualMachine - ${name} in namespace - ${namespace}: ${errorMessage(error)}`,
      );
    let expanded: VirtualMachine;
    if (vmName !== "") {
      try {
        expanded = asVirtualMachine(
          await client.getJson(client.subresourcePath("virtualmachines", vmName, "expand-spec")),
        );
      } catch (error) {
        throw failed(vmName, error);
      }
    } else {
      const vm = await readVM(context.flags.string(FILE_FLAG), context.io.stdin);
      try {
        expanded = asVirtualMachine(
          await client.putJson(client.namespaceSubresourcePath("expand-vm-spec"), vm),
        );
      } catch (error) {
        throw failed(vm?.metadata?.name ?? "", error);
      }
    }
    const format = context.flags.string(OUTPUT_FLAG);
    context.io.stdout.write(format === JSON_FORMAT ? marshalIndent(expanded, " ") : marshalGoYaml(expanded));
  },
};
