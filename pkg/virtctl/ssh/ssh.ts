// virtctl ssh (upstream pkg/virtctl/ssh/ssh.go): runs the system's ssh client with a ProxyCommand that is
// this virtctl's `port-forward --stdio=true kind/name/namespace port`, so the connection goes through the
// portforward subresource. The options are shared with scp.
import { spawn } from "node:child_process";
import path from "node:path";
import type { Command, CommandContext, IO } from "../command.js";
import type { FlagSpec } from "../flags.js";
import { helpFlag } from "../flags.js";
import { parseTarget, type Target, type TargetKind } from "../portforward/portforward.js";

export interface SSHEnvironment {
  HOME?: string;
  USER?: string;
  USERNAME?: string;
  LOGNAME?: string;
}

export interface SSHOptions {
  port: number;
  username: string;
  identityFilePath: string;
  identityFilePathProvided: boolean;
  knownHostsFilePath: string;
  knownHostsFilePathProvided: boolean;
  additionalOptions: readonly string[];
}

/** Upstream's DefaultUsername: the first of $USER, $USERNAME, $LOGNAME that is set. */
export function defaultUsername(env: SSHEnvironment): string {
  return env.USER || env.USERNAME || env.LOGNAME || "";
}

/** ssh's and scp's flags (upstream AddCommandlineArgs), with defaults from the user's environment. */
export function sshFlags(env: SSHEnvironment): FlagSpec[] {
  const home = env.HOME ?? "";
  const username = defaultUsername(env);
  return [
    {
      name: "username",
      short: "l",
      kind: "string",
      defaultValue: username,
      usage: `--username=${username}: Set this to the user you want to open the SSH connection as;If unassigned, this will be empty and the SSH default will apply`,
    },
    {
      name: "identity-file",
      short: "i",
      kind: "string",
      defaultValue: path.join(home, ".ssh", "id_rsa"),
      usage:
        "--identity-file=/home/jdoe/.ssh/id_rsa: Set the path to a private key used for authenticating to the server;If not provided, the client will try to use the local ssh-agent at $SSH_AUTH_SOCK",
    },
    {
      name: "known-hosts",
      kind: "string",
      defaultValue: home ? path.join(home, ".ssh", "kubevirt_known_hosts") : "",
      usage: "--known-hosts=/home/jdoe/.ssh/kubevirt_known_hosts: Set the path to the known_hosts file.",
    },
    {
      name: "port",
      short: "p",
      kind: "int",
      defaultValue: 22,
      usage: "--port=22: Specify a port on the VM to send SSH traffic to",
    },
    {
      name: "local-ssh-opts",
      short: "t",
      kind: "stringArray",
      defaultValue: [],
      usage:
        '--local-ssh-opts="-o StrictHostKeyChecking=no" : Additional options to be passed to the local ssh client',
    },
  ];
}

export function sshOptionsOf(context: CommandContext): SSHOptions {
  const { flags } = context;
  return {
    port: flags.int("port"),
    username: flags.string("username"),
    identityFilePath: flags.string("identity-file"),
    identityFilePathProvided: flags.changed.has("identity-file"),
    knownHostsFilePath: flags.string("known-hosts"),
    knownHostsFilePathProvided: flags.changed.has("known-hosts"),
    additionalOptions: flags.strings("local-ssh-opts"),
  };
}

/** `[username@]type/name[/namespace]`; the username comes back empty when not given. */
export function parseSSHTarget(arg: string): Target & { username: string } {
  let username = "";
  let rest = arg;
  const parts = arg.split("@");
  if (parts.length > 1) {
    username = parts[0] ?? "";
    if (username === "") throw new Error("expected username before '@'");
    rest = parts[1] ?? "";
  }
  if (rest === "") throw new Error("expected target after '@'");
  return { ...parseTarget(rest), username };
}

/** The host name ssh sees (and keeps in known_hosts): `kind.name.namespace`. */
export const sshHost = (kind: TargetKind | string, name: string, namespace: string) =>
  `${kind}.${name}.${namespace}`;

const shellQuote = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;

export interface Self {
  /** How this virtctl is run again: the node binary and the entry script, as process.argv has them. */
  argv: string[];
  /** The client flags this run was given (--kubeconfig, --context), handed on to the tunnel. */
  clientFlags: string[];
}

/** This virtctl's own command line for a run with the same client configuration. */
export function selfOf(context: CommandContext, argv = process.argv.slice(0, 2)): Self {
  const clientFlags: string[] = [];
  for (const flag of ["kubeconfig", "context"]) {
    if (context.flags.changed.has(flag)) clientFlags.push(`--${flag}=${context.flags.string(flag)}`);
  }
  return { argv, clientFlags };
}

/** `ProxyCommand=<virtctl> port-forward --stdio=true kind/name/namespace port`. */
export function proxyCommandOption(
  self: Self,
  kind: string,
  namespace: string,
  name: string,
  port: number,
): string {
  const words = [
    ...self.argv,
    ...self.clientFlags,
    "port-forward",
    "--stdio=true",
    `${kind}/${name}/${namespace}`,
    String(port),
  ];
  return `ProxyCommand=${words.map(shellQuote).join(" ")}`;
}

/**
 * The arguments of the local ssh or scp client: the ProxyCommand, extra options, the identity, then
 * `clientArgs`. Upstream's local client leaves --known-hosts unused; given explicitly, it is ssh's
 * UserKnownHostsFile here, and by default nothing is added, as upstream.
 */
export function localClientArgs(
  self: Self,
  kind: string,
  namespace: string,
  name: string,
  options: SSHOptions,
  clientArgs: string[],
): string[] {
  const args = [
    "-o",
    proxyCommandOption(self, kind, namespace, name, options.port),
    ...options.additionalOptions,
  ];
  if (options.knownHostsFilePathProvided) args.push("-o", `UserKnownHostsFile=${options.knownHostsFilePath}`);
  if (options.identityFilePathProvided) args.push("-i", options.identityFilePath);
  return [...args, ...clientArgs];
}

/** Runs the local client on the terminal when virtctl has one, else on virtctl's own streams. */
export function runLocalClient(command: string, args: string[], io: IO): Promise<void> {
  const own = io.stdin === process.stdin && io.stdout === process.stdout && io.stderr === process.stderr;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: own ? "inherit" : "pipe" });
    if (!own) {
      io.stdin.pipe(child.stdin!);
      child.stdout!.pipe(io.stdout, { end: false });
      child.stderr!.pipe(io.stderr, { end: false });
    }
    child.once("error", (error) => reject(new Error(`exec: "${command}": ${error.message}`)));
    child.once("close", (code, signal) => {
      if (!own) io.stdin.unpipe(child.stdin!);
      if (code === 0) resolve();
      else reject(new Error(signal ? `signal: ${signal}` : `exit status ${code}`));
    });
  });
}

async function run(context: CommandContext): Promise<void> {
  const { config } = await context.client();
  const options = sshOptionsOf(context);
  const target = parseSSHTarget(context.args[0] ?? "");
  const namespace = target.namespace || config.namespace;
  if (target.username !== "") options.username = target.username;
  const host = sshHost(target.kind, target.name, namespace);
  const clientArgs = [options.username ? `${options.username}@${host}` : host];
  const command = context.flags.string("command");
  if (command !== "") clientArgs.push(command);
  await runLocalClient(
    "ssh",
    localClientArgs(selfOf(context), target.kind, namespace, target.name, options, clientArgs),
    context.io,
  );
}

export function newSSHCommand(env: SSHEnvironment): Command {
  return {
    name: "ssh",
    use: "ssh (VM|VMI)",
    short: "Open a SSH connection to a virtual machine instance.",
    example:
      "  # Connect to 'testvmi':\n  {{ProgramName}} ssh jdoe@vmi/testvmi [--identity-file]\n\n" +
      "  # Connect to 'testvm' in 'mynamespace' namespace\n  {{ProgramName}} ssh jdoe@vm/testvm/mynamespace [--identity-file]\n\n" +
      "  # Specify a username and namespace:\n  {{ProgramName}} ssh --namespace=mynamespace --username=jdoe vmi/testvmi",
    flags: [
      ...sshFlags(env),
      {
        name: "command",
        short: "c",
        kind: "string",
        defaultValue: "",
        usage: "--command='ls /': Specify a command to execute in the VM",
      },
      helpFlag("ssh"),
    ],
    argCount: 1,
    run,
  };
}

export const sshCommand = newSSHCommand(process.env);
