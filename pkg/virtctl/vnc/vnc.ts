// virtctl vnc (upstream pkg/virtctl/vnc/vnc.go): opens the VMI's vnc stream, listens on a local TCP port
// and joins the first VNC client that connects to the stream. With --proxy-only it prints the port as
// {"port":N} for a viewer started by hand, else it starts remote-viewer or TigerVNC's vncviewer on it.
// It ends when that client or the stream goes away, or on interrupt.
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { lookup } from "node:dns/promises";
import net from "node:net";
import path from "node:path";
import type WebSocket from "ws";
import { VirtualMachineInstanceSchema } from "../../api/generated/v1.js";
import { hasCondition } from "../../controller/conditions.js";
import { errorMessage } from "../../util/error-message.js";
import { streamMessages } from "../../util/websocket-stream.js";
import type { Command, CommandContext } from "../command.js";
import { helpFlag, UsageError } from "../flags.js";
import type { SubresourceClient } from "../kubecli/subresources.js";
import { listenError } from "../portforward/forwarders.js";
import { screenshotCommand } from "./screenshot/screenshot.js";

/** How long a started viewer gets to connect. */
const LISTEN_TIMEOUT_MS = 60_000;
export const REMOTE_VIEWER = "remote-viewer";
export const TIGER_VNC = "vncviewer";

export interface Viewer {
  binary: string;
  args: string[];
}

/** `name` in $PATH as exec.LookPath finds it, or undefined. */
export function lookPath(name: string, searchPath = process.env.PATH ?? ""): string | undefined {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const tigerArgs = (address: string, port: number) => [`${address}:${port}`];
const remoteViewerArgs = (port: number) => [`vnc://127.0.0.1:${port}`];

/** The viewer to start on Linux: the one given by --vnc-type/--vnc-path, else the first one installed. */
export function chooseViewer(
  vncType: string,
  vncPath: string,
  address: string,
  port: number,
  find: (name: string) => string | undefined = lookPath,
): Viewer {
  if (vncType !== "" && vncPath !== "") {
    if (!existsSync(vncPath)) throw new Error(`specified VNC path does not exist: ${vncPath}`);
    if (vncType === "tiger") return { binary: vncPath, args: tigerArgs(address, port) };
    if (vncType === "remote-viewer") return { binary: vncPath, args: remoteViewerArgs(port) };
    throw new Error(`unsupported vnc-type for linux: ${vncType}`);
  }
  if (find(REMOTE_VIEWER)) return { binary: REMOTE_VIEWER, args: remoteViewerArgs(port) };
  if (find(TIGER_VNC)) return { binary: TIGER_VNC, args: tigerArgs(address, port) };
  throw new Error(`could not find ${REMOTE_VIEWER} or ${TIGER_VNC} binary in $PATH`);
}

function runViewer(viewer: Viewer): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(viewer.binary, viewer.args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${viewer.binary} execution failed: exit status ${code}, output: ${output}`)),
    );
  });
}

/** Upstream's PrintWarningForPausedVMI, once a client is connected. */
async function warnIfPaused(client: SubresourceClient, vmi: string, context: CommandContext): Promise<void> {
  try {
    const object = VirtualMachineInstanceSchema.parse(
      await client.getJson(client.objectPath("virtualmachineinstances", vmi)),
    );
    if (hasCondition(object.status, "Paused")) {
      context.io.stderr.write(`\rWarning: ${vmi} is paused. Console will be active after unpause.\n`);
    }
  } catch {
    // as upstream: no warning when the VMI cannot be read
  }
}

async function listen(address: string, port: number): Promise<net.Server> {
  let ip = address;
  if (!net.isIP(address)) {
    try {
      ip = (await lookup(address)).address;
    } catch {
      throw new Error(`can't resolve the address: lookup ${address}: no such host`);
    }
  }
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new Error(`can't listen on unix socket: ${listenError("tcp", ip, port, error).message}`)),
    );
    server.listen(port, ip, () => resolve());
  });
  return server;
}

async function run(context: CommandContext): Promise<void> {
  const { flags, io } = context;
  const [vmi = ""] = context.args;
  const vncType = flags.string("vnc-type");
  const vncPath = flags.string("vnc-path");
  if ((vncType === "") !== (vncPath === "")) {
    const missing = vncType === "" ? "vnc-type" : "vnc-path";
    throw new UsageError(
      `if any flags in the group [vnc-type vnc-path] are set they must all be set; missing [${missing}]`,
    );
  }
  const { client } = await context.client();
  const proxyOnly = flags.bool("proxy-only");
  let stream: WebSocket;
  try {
    const query = new URLSearchParams({ preserveSession: String(flags.bool("preserve-session")) });
    stream = await client.dial(client.subresourcePath("virtualmachineinstances", vmi, "vnc"), query);
  } catch (error) {
    throw new Error(`can't access VMI ${vmi}: ${errorMessage(error)}`);
  }
  // The VNC server speaks first: what it sends waits in the stream until a viewer is there to read it
  // (upstream's io.Pipe). Paused before anything else is awaited, so not one message is handed out early.
  stream.pause();
  // Only a proxy for a viewer started by hand may listen elsewhere than on the loopback.
  const address = proxyOnly ? flags.string("address") : "127.0.0.1";
  let server: net.Server;
  try {
    server = await listen(address, flags.int("port"));
  } catch (error) {
    stream.terminate();
    throw error;
  }
  const port = (server.address() as net.AddressInfo).port;
  let stopInterrupt = () => undefined as unknown;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => reject(new Error(`error encountered: ${errorMessage(error)}`));
      stopInterrupt = io.onInterrupt(() => resolve());
      stream.once("close", () => resolve());
      const deadline = proxyOnly
        ? undefined
        : setTimeout(() => fail(new Error(`accept tcp ${address}:${port}: i/o timeout`)), LISTEN_TIMEOUT_MS);
      server.once("connection", (connection) => {
        clearTimeout(deadline);
        server.close();
        connection.on("error", () => connection.destroy());
        void warnIfPaused(client, vmi, context);
        void streamMessages(stream, connection).then(() => resolve());
        stream.resume();
      });
      if (proxyOnly) {
        io.stdout.write(`${JSON.stringify({ port })}\n`);
      } else {
        let viewer: Viewer;
        try {
          viewer = chooseViewer(vncType, vncPath, address, port);
        } catch (error) {
          fail(error);
          return;
        }
        runViewer(viewer).then(() => resolve(), fail);
      }
    });
  } finally {
    stopInterrupt();
    server.close();
    if (stream.readyState === stream.OPEN) stream.close(1000);
  }
}

export const vncCommand: Command = {
  name: "vnc",
  use: "vnc (VMI)",
  short: "Open a vnc connection to a virtual machine instance.",
  example: "  # Connect to 'testvmi' via remote-viewer:\n   {{ProgramName}} vnc testvmi",
  flags: [
    {
      name: "address",
      kind: "string",
      defaultValue: "127.0.0.1",
      usage:
        "--address=127.0.0.1: Setting this will change the listening address of the VNC server. Example: --address=0.0.0.0 will make the server listen on all interfaces.",
    },
    {
      name: "proxy-only",
      kind: "bool",
      defaultValue: false,
      usage:
        "--proxy-only=false: Setting this true will run only the virtctl vnc proxy and show the port where VNC viewers can connect",
    },
    {
      name: "preserve-session",
      kind: "bool",
      defaultValue: false,
      usage: "--preserve-session: This option will preserve an existing VNC session instead of dropping it.",
    },
    {
      name: "port",
      kind: "int",
      defaultValue: 0,
      usage:
        "--port=0: Assigning a port value to this will try to run the proxy on the given port if the port is accessible; If unassigned, the proxy will run on a random port",
    },
    {
      name: "vnc-type",
      kind: "string",
      defaultValue: "",
      usage:
        "--vnc-type=tiger: Specify the type of VNC viewer to use (tiger, chicken, real, remote-viewer). Must provide --vnc-path",
    },
    {
      name: "vnc-path",
      kind: "string",
      defaultValue: "",
      usage:
        "--vnc-path=/path/to/vnc: Specify the path to the VNC viewer executable. Must provide --vnc-type",
    },
    helpFlag("vnc"),
  ],
  argCount: 1,
  subcommands: [screenshotCommand],
  run,
};
