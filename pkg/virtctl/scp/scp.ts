// virtctl scp (upstream pkg/virtctl/scp/scp.go): runs the system's scp client through the same ProxyCommand
// as virtctl ssh; one side is local, the other `[username@]type/name[/namespace]:path`.
import type { Command, CommandContext } from "../command.js";
import { helpFlag } from "../flags.js";
import type { Target } from "../portforward/portforward.js";
import {
  localClientArgs,
  parseSSHTarget,
  runLocalClient,
  selfOf,
  sshFlags,
  sshHost,
  sshOptionsOf,
  type SSHEnvironment,
} from "../ssh/ssh.js";

export interface Remote extends Target {
  username: string;
  path: string;
}

/** Which side is remote (the one with a ':'), as upstream decides it. */
export function parseSCPTarget(
  source: string,
  destination: string,
): { local: string; remote: Remote; toRemote: boolean } {
  if (source.includes(":") && destination.includes(":")) {
    throw new Error(
      `copying from a remote location to another remote location is not supported: ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    );
  }
  if (!source.includes(":") && !destination.includes(":")) {
    throw new Error(
      `none of the two provided locations seems to be a remote location: ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    );
  }
  const toRemote = destination.includes(":");
  const [remoteArg, local] = toRemote ? [destination, source] : [source, destination];
  const at = remoteArg.indexOf(":");
  const remote = { ...parseSSHTarget(remoteArg.slice(0, at)), path: remoteArg.slice(at + 1) };
  return { local, remote, toRemote };
}

async function run(context: CommandContext): Promise<void> {
  const { config } = await context.client();
  const options = sshOptionsOf(context);
  const [source = "", destination = ""] = context.args;
  const { local, remote, toRemote } = parseSCPTarget(source, destination);
  const namespace = remote.namespace || config.namespace;
  if (remote.username !== "") options.username = remote.username;
  const host = sshHost(remote.kind, remote.name, namespace);
  const target = `${options.username ? `${options.username}@` : ""}${host}:${remote.path}`;
  const clientArgs: string[] = [];
  if (context.flags.bool("recursive")) clientArgs.push("-r");
  if (context.flags.bool("preserve")) clientArgs.push("-p");
  clientArgs.push(...(toRemote ? [local, target] : [target, local]));
  await runLocalClient(
    "scp",
    localClientArgs(selfOf(context), remote.kind, namespace, remote.name, options, clientArgs),
    context.io,
  );
}

export function newSCPCommand(env: SSHEnvironment): Command {
  return {
    name: "scp",
    use: "scp (VM|VMI)",
    short: "SCP files from/to a virtual machine instance.",
    example: `  # Copy a file to the remote home folder of user jdoe
  {{ProgramName}} scp myfile.bin jdoe@vmi/testvmi:myfile.bin

  # Copy a directory to the remote home folder of user jdoe
  {{ProgramName}} scp --recursive ~/mydir/ jdoe@vmi/testvmi:./mydir

  # Copy a file to the remote home folder of user jdoe without specifying a file name on the target
  {{ProgramName}} scp myfile.bin jdoe@vmi/testvmi:.

  # Copy a file to 'testvm' in 'mynamespace' namespace
  {{ProgramName}} scp myfile.bin jdoe@vmi/testvmi.mynamespace:myfile.bin

  # Copy a file from the remote location to a local folder
  {{ProgramName}} scp jdoe@vmi/testvmi:myfile.bin ~/myfile.bin`,
    flags: [
      ...sshFlags(env),
      {
        name: "recursive",
        short: "r",
        kind: "bool",
        defaultValue: false,
        usage: "Recursively copy entire directories",
      },
      {
        name: "preserve",
        kind: "bool",
        defaultValue: false,
        usage: "Preserves modification times, access times, and modes from the original file.",
      },
      helpFlag("scp"),
    ],
    argCount: 2,
    run,
  };
}

export const scpCommand = newSCPCommand(process.env);
