// virtctl guestosinfo, userlist and fslist (upstream pkg/virtctl/vm/guestosinfo.go, user_list.go and
// fs_list.go): GET the VMI's guest agent subresource and print the object as Go's json.MarshalIndent
// writes it, after reading it into upstream's type as client-go does.
import type { z } from "zod";
import {
  FileSystemListWire,
  GuestAgentInfoWire,
  GuestOSUserListWire,
  fileSystemListJSON,
  guestAgentInfoJSON,
  marshalIndent,
  userListJSON,
} from "../../api/guest-agent-info.js";
import { errorMessage } from "../../util/error-message.js";
import type { Command } from "../command.js";
import { helpFlag } from "../flags.js";

interface GuestAgentCommand<T> {
  name: string;
  subresource: string;
  short: string;
  /** Upstream's words before the error, e.g. "Error listing users of". */
  failure: string;
  schema: z.ZodType<T>;
  write: (value: T) => object;
}

function guestAgentCommand<T>(spec: GuestAgentCommand<T>): Command {
  const title = spec.name.charAt(0).toUpperCase() + spec.name.slice(1);
  return {
    name: spec.name,
    use: `${spec.name} (VMI)`,
    short: spec.short,
    example: `  # ${title} a virtual machine instance called 'myvm':\n  {{ProgramName}} ${spec.name} myvm`,
    flags: [helpFlag(spec.name)],
    argCount: 1,
    async run(context) {
      const [vmiName = ""] = context.args;
      const { client } = await context.client();
      let value: T;
      try {
        const body = await client.getJson(
          client.subresourcePath("virtualmachineinstances", vmiName, spec.subresource),
        );
        value = spec.schema.parse(body);
      } catch (error) {
        throw new Error(`${spec.failure} VirtualMachineInstance ${vmiName}, ${errorMessage(error)}`);
      }
      context.io.stdout.write(`${marshalIndent(spec.write(value))}\n`);
    },
  };
}

export const guestOSInfoCommand = guestAgentCommand({
  name: "guestosinfo",
  subresource: "guestosinfo",
  short: "Return guest agent info about operating system.",
  failure: "Error getting guestosinfo of",
  schema: GuestAgentInfoWire,
  write: guestAgentInfoJSON,
});

export const userListCommand = guestAgentCommand({
  name: "userlist",
  subresource: "userlist",
  short: "Return full list of logged in users on the guest machine.",
  failure: "Error listing users of",
  schema: GuestOSUserListWire,
  write: userListJSON,
});

export const fsListCommand = guestAgentCommand({
  name: "fslist",
  subresource: "filesystemlist",
  short: "Return full list of filesystems available on the guest machine.",
  failure: "Error listing filesystems of",
  schema: FileSystemListWire,
  write: fileSystemListJSON,
});
