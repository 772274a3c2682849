import type { ChildProcess } from "node:child_process";
import { CommandError } from "../driver/netns-exec.js";
import type { Netns, NetnsLab } from "./netns-lab.js";
import { LineQueue } from "./netns-lab.js";

// A TCP server and client run with node inside a test namespace: the server answers every connection
// with its tag and reports the peer address it saw (for NAT checks); it never resolves names.

const SERVER_CODE = `
const net = require("node:net");
const [port, tag] = process.argv.slice(1);
net.createServer((socket) => {
  process.stdout.write(JSON.stringify({ remote: socket.remoteAddress }) + "\\n");
  socket.end(tag);
}).listen(Number(port), "0.0.0.0", () => process.stdout.write("listening\\n"));
`;

const CLIENT_CODE = `
const net = require("node:net");
const [host, port] = process.argv.slice(1);
const socket = net.connect({ host, port: Number(port), timeout: 3000 });
let data = "";
socket.on("data", (chunk) => (data += chunk));
socket.on("end", () => { process.stdout.write(JSON.stringify({ data })); process.exit(0); });
socket.on("timeout", () => { process.stdout.write(JSON.stringify({ error: "ETIMEDOUT" })); process.exit(0); });
socket.on("error", (error) => { process.stdout.write(JSON.stringify({ error: error.code })); process.exit(0); });
`;

export interface TcpServer {
  process: ChildProcess;
  /** The peer address of the next connection the server accepted. */
  nextPeer(): Promise<string>;
}

export async function startTcpServer(
  lab: NetnsLab,
  netns: Netns,
  port: number,
  tag: string,
): Promise<TcpServer> {
  const child = lab.spawn(netns, process.execPath, ["-e", SERVER_CODE, String(port), tag]);
  const output = new LineQueue(child);
  if ((await output.next()) !== "listening") throw new Error(`the test server on port ${port} did not start`);
  return {
    process: child,
    nextPeer: async () => (JSON.parse(await output.next()) as { remote: string }).remote,
  };
}

export interface TcpResult {
  data?: string;
  error?: string;
}

export async function tcpRequest(
  lab: NetnsLab,
  netns: Netns,
  host: string,
  port: number,
): Promise<TcpResult> {
  try {
    const output = await lab.run(netns, process.execPath, ["-e", CLIENT_CODE, host, String(port)]);
    return JSON.parse(output) as TcpResult;
  } catch (error) {
    if (error instanceof CommandError) return { error: error.stderr };
    throw error;
  }
}
