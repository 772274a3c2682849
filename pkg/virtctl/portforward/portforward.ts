// virtctl port-forward (upstream pkg/virtctl/portforward/portforward.go): forwards local ports to a VM's or
// VMI's ports through the portforward subresource, one WebSocket stream per TCP connection or UDP client,
// or one stream on stdin/stdout with --stdio (what `virtctl ssh` sets as the ProxyCommand).
import { lookup } from "node:dns/promises";
import net from "node:net";
import type WebSocket from "ws";
import type { Command, CommandContext, IO } from "../command.js";
import { helpFlag } from "../flags.js";
import { logLine } from "../log.js";
import { commandHelp } from "../templates/templates.js";
import { forwardTCP, forwardUDP, type Forwarder, type Tunnels } from "./forwarders.js";
import { parsePorts, PROTOCOL_TCP, PROTOCOL_UDP, type ForwardedPort } from "./ports.js";

const COMPONENT = "portforward";

export type TargetKind = "vm" | "vmi";

export interface Target {
  kind: TargetKind;
  /** Empty when the target names none: the client's namespace applies. */
  namespace: string;
  name: string;
}

function normalizeKind(kind: string): TargetKind {
  switch (kind.toLowerCase()) {
    case "vm":
    case "vms":
    case "virtualmachine":
    case "virtualmachines":
      return "vm";
    case "vmi":
    case "vmis":
    case "virtualmachineinstance":
    case "virtualmachineinstances":
      return "vmi";
  }
  throw new Error(`unsupported resource type '${kind}'`);
}

/** `type/name[/namespace]`, with upstream's refusals (shared with ssh and scp). */
export function parseTarget(target: string): Target {
  if (target === "") throw new Error("target cannot be empty");
  const parts = target.split("/");
  if (parts.length === 1) throw new Error("target must contain type and name separated by '/'");
  if (parts.length > 3) throw new Error("target is not valid with more than two '/'");
  const [kind = "", name = "", namespace = ""] = parts;
  if (parts.length === 3 && namespace === "") throw new Error("namespace cannot be empty");
  const normalized = normalizeKind(kind);
  if (name === "") throw new Error("name cannot be empty");
  return { kind: normalized, namespace, name };
}

export const resourceOf = (kind: TargetKind) =>
  kind === "vm" ? "virtualmachines" : "virtualmachineinstances";

/** Go's net.ResolveIPAddr: an address as given, or the first address a host name resolves to. */
async function resolveAddress(address: string): Promise<string> {
  if (net.isIP(address)) return address;
  try {
    return (await lookup(address)).address;
  } catch {
    throw new Error(`lookup ${address}: no such host`);
  }
}

/** Stdin to the stream, the stream to stdout, until either ends. */
function streamStdio(stream: WebSocket, io: IO): Promise<void> {
  return new Promise((resolve) => {
    const onInput = (chunk: Buffer | string) => stream.send(Buffer.from(chunk), { binary: true });
    const endInput = () => stream.close(1000);
    stream.on("message", (data: Buffer, isBinary: boolean) => {
      if (isBinary) io.stdout.write(data);
    });
    stream.on("error", () => undefined);
    stream.once("close", () => {
      io.stdin.off("data", onInput);
      io.stdin.off("end", endInput);
      io.stdin.pause();
      resolve();
    });
    io.stdin.on("data", onInput);
    io.stdin.once("end", endInput);
    io.stdin.resume();
  });
}

async function run(context: CommandContext): Promise<void> {
  const { io, args, flags } = context;
  if (args.length < 2) {
    logLine(
      io,
      COMPONENT,
      "error",
      `fatal: Number of input parameters is incorrect, portforward requires at least 2 arg(s), received ${args.length}`,
    );
    // Always on stderr, so that it shows in stdio mode too.
    io.stderr.write(commandHelp(portForwardCommand, context.programName));
    throw new Error("argument validation failed");
  }
  const { client, config } = await context.client();
  const target = parseTarget(args[0] ?? "");
  const ports = parsePorts(args.slice(1));
  const namespace = target.namespace || config.namespace;
  const open = (port: ForwardedPort) =>
    client.dial(
      client.subresourcePath(
        resourceOf(target.kind),
        target.name,
        `portforward/${port.remote}/${port.protocol}`,
        namespace,
      ),
    );
  if (flags.bool("stdio")) {
    const [port] = ports;
    if (ports.length !== 1 || !port) throw new Error("only one port supported when forwarding to stdout");
    await streamStdio(await open(port), io);
    return;
  }
  const address = await resolveAddress(flags.string("address"));
  const closers: Forwarder[] = [];
  try {
    for (const port of ports) {
      logLine(
        io,
        COMPONENT,
        "info",
        `forwarding ${port.protocol} ${address}:${port.local} to ${port.remote}`,
      );
      const tunnels: Tunnels = {
        open: () => open(port),
        log: (level, message) => logLine(io, COMPONENT, level, message),
        target: `${target.kind}/${target.name}.${namespace}`,
      };
      if (port.protocol === PROTOCOL_UDP) {
        closers.push(await forwardUDP(address, port.local, port.remote, tunnels));
      } else if (port.protocol === PROTOCOL_TCP) {
        closers.push(await forwardTCP(address, port.local, port.remote, tunnels));
      } else {
        throw new Error(`unknown protocol: ${port.protocol}`);
      }
    }
    await new Promise<void>((resolve) => {
      const stop = io.onInterrupt(() => {
        stop();
        resolve();
      });
    });
  } finally {
    for (const forwarder of closers) forwarder.close();
  }
}

const LONG = `Forward local ports to a virtualmachine or virtualmachineinstance.

The target argument supports the syntax target/name[/namespace] with /namespace as optional field.
Kind accepts any of vmi, vmis, vm, vms, virtualmachineinstance, virtualmachine, virtualmachineinstances, virtualmachines.

A dot in target without specifying a namespace activates legacy parsing of name and namespace using
the old type/name.namespace syntax. This is to avoid breaking existing scripts using the old syntax.
A warning will be emitted instead. This behavior will be removed in the next release.

The port argument supports the syntax protocol/localPort:targetPort with protocol/ and :targetPort as optional fields.
Protocol supports TCP (default) and UDP.

Portforwards get established over the Kubernetes control-plane using websocket streams.
Usage can be restricted by the cluster administrator through the /portforward subresource.`;

const EXAMPLES = `  # Forward the local port 8080 to the vmi port:
  {{ProgramName}} port-forward vmi/testvmi 8080

  # Forward the local port 8080 to the vmi port 9090:
  {{ProgramName}} port-forward vmi/testvmi 8080:9090

  # Forward the local port 8080 to the vmi port 9090 as a UDP connection:
  {{ProgramName}} port-forward vmi/testvmi/mynamespace udp/8080:9090

  # Forward the local port 8080 to the vm port
  {{ProgramName}} port-forward vm/testvm 8080

  # Forward the local port 8080 to the vm port in mynamespace
  {{ProgramName}} port-forward vm/testvm/mynamespace 8080

  # Note: {{ProgramName}} port-forward sends all traffic over the Kubernetes API Server.
  # This means any traffic will add additional pressure to the control plane.
  # For continous traffic intensive connections, consider using a dedicated Kubernetes Service.`;

export const portForwardCommand: Command = {
  name: "port-forward",
  use: "port-forward type/name[/namespace] [protocol/]localPort[:targetPort]...",
  short: "Forward local ports to a virtualmachine or virtualmachineinstance.",
  long: LONG,
  example: EXAMPLES,
  flags: [
    {
      name: "stdio",
      kind: "bool",
      defaultValue: false,
      usage:
        "--stdio=true: Set this to true to forward the tunnel to stdout/stdin; Only works with a single port",
    },
    {
      name: "address",
      kind: "string",
      defaultValue: "127.0.0.1",
      usage: "--address=: Set this to the address the local ports should be opened on",
    },
    helpFlag("port-forward"),
  ],
  argCount: "any",
  run,
};
