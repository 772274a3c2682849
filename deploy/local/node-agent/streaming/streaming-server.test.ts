import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { LogLookupError } from "../kubelet-server.js";
import type { ExecStreams } from "../pod-runtime.js";
import { openAndWait, readAll, spdyUpgrade } from "./spdy-test-client.js";
import { StreamingServer } from "./streaming-server.js";
import type { StreamingHost } from "./streaming-server.js";

// The streaming endpoints against a scripted container, through the same upgrade path kubelet-server
// uses; the client side is this package's SPDY connection in client mode and the ws package.

const execs: { command: string[]; tty: boolean }[] = [];

async function scriptedExec(command: string[], io: ExecStreams): Promise<number> {
  execs.push({ command, tty: io.tty });
  switch (command[0]) {
    case "echo":
      io.stdout?.write(command.slice(1).join(" ") + "\n");
      return 0;
    case "cat":
      if (io.stdin) for await (const chunk of io.stdin) io.stdout?.write(chunk as Buffer);
      return 0;
    case "big":
      io.stdout?.write(Buffer.alloc(300_000, "z"));
      return 0;
    case "warn":
      io.stderr?.write("careful\n");
      return 3;
    case "size":
      for await (const size of io.resizes ?? []) {
        io.stdout?.write(`${size.width}x${size.height}\n`);
        return 0;
      }
      return 9;
    default:
      throw new Error(`exec: "${command[0]}": executable file not found in $PATH`);
  }
}

const host: StreamingHost = {
  container(namespace, pod) {
    if (pod === "missing") throw new LogLookupError(404, "pod does not exist");
    return {
      exec: scriptedExec,
      async attach(io) {
        io.stdout?.write(`attached to ${namespace}/${pod}\n`);
      },
    };
  },
  pod(_namespace, pod) {
    if (pod === "missing") throw new LogLookupError(404, "pod does not exist");
    return {
      pod,
      uid: "uid-1",
      async forward(port, stream) {
        if (port === 9) throw new Error("failed to connect to localhost:9 inside namespace");
        stream.write(`port ${port}:`);
        stream.pipe(stream);
        await new Promise((resolve) => stream.once("end", resolve));
      },
    };
  },
};

let server: http.Server;
let port: number;
const upgraded = new Set<Duplex>();

beforeAll(async () => {
  const streaming = new StreamingServer(host, { error: () => undefined });
  server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on("upgrade", (req, socket, head) => {
    upgraded.add(socket);
    if (!streaming.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  for (const socket of upgraded) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const execPath = (query: string) => `/exec/default/pod1/main?${query}`;

async function spdyExec(query: string, streams: string[], stdin?: string) {
  const answer = await spdyUpgrade(port, execPath(query), ["v5.channel.k8s.io", "v4.channel.k8s.io"]);
  const connection = answer.connection;
  if (!connection) throw new Error(`no upgrade: ${answer.status} ${answer.body}`);
  // client-go's order: the error stream first, then the others.
  const error = await openAndWait(connection, { streamType: "error" });
  const opened = new Map<string, Awaited<ReturnType<typeof openAndWait>>>();
  for (const type of streams) opened.set(type, await openAndWait(connection, { streamType: type }));
  const input = opened.get("stdin");
  if (input) input.end(stdin ?? "");
  const [status, stdout, stderr] = await Promise.all([
    readAll(error),
    opened.get("stdout") ? readAll(opened.get("stdout") as NodeJS.ReadableStream) : Promise.resolve(""),
    opened.get("stderr") ? readAll(opened.get("stderr") as NodeJS.ReadableStream) : Promise.resolve(""),
  ]);
  return {
    protocol: answer.headers["x-stream-protocol-version"],
    status: JSON.parse(status) as object,
    stdout,
    stderr,
    opened,
  };
}

describe("exec over SPDY/3.1", () => {
  it("negotiates v4 (kubelet offers no v5 on SPDY), runs the command and reports Success", async () => {
    const result = await spdyExec("command=echo&command=hello&output=1&error=1", ["stdout", "stderr"]);
    expect(result.protocol).toBe("v4.channel.k8s.io");
    expect(result.stdout).toBe("hello\n");
    expect(result.status).toEqual({ metadata: {}, status: "Success" });
  });

  it("feeds stdin until the client closes it", async () => {
    const result = await spdyExec("command=cat&input=1&output=1", ["stdin", "stdout"], "some input");
    expect(result.stdout).toBe("some input");
  });

  it("moves more than a flow-control window without waiting for WINDOW_UPDATE", async () => {
    const result = await spdyExec("command=big&output=1", ["stdout"]);
    expect(result.stdout.length).toBe(300_000);
  });

  it("reports a non-zero exit as kubelet's NonZeroExitCode status with the ExitCode cause", async () => {
    const result = await spdyExec("command=warn&output=1&error=1", ["stdout", "stderr"]);
    expect(result.stderr).toBe("careful\n");
    expect(result.status).toEqual({
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: error executing command [warn], exit code 3",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "3" }] },
    });
  });

  it("reports a command that cannot start as an internal error", async () => {
    const result = await spdyExec("command=nosuch&output=1", ["stdout"]);
    expect(result.status).toMatchObject({
      status: "Failure",
      reason: "InternalError",
      code: 500,
      message: expect.stringContaining('error executing command in container: exec: "nosuch"'),
    });
  });

  it("with a TTY expects a resize stream, drops stderr and delivers sizes", async () => {
    const answer = await spdyUpgrade(port, execPath("command=size&output=1&error=1&tty=1"), [
      "v4.channel.k8s.io",
    ]);
    const connection = answer.connection!;
    const error = await openAndWait(connection, { streamType: "error" });
    const stdout = await openAndWait(connection, { streamType: "stdout" });
    const resize = await openAndWait(connection, { streamType: "resize" });
    resize.write('{"Width":120,"Height":40}');
    expect(await readAll(stdout)).toBe("120x40\n");
    expect(JSON.parse(await readAll(error))).toEqual({ metadata: {}, status: "Success" });
    expect(execs.at(-1)).toEqual({ command: ["size"], tty: true });
  });

  it("attach runs with the same streams and status", async () => {
    const answer = await spdyUpgrade(port, "/attach/ns1/pod2/main?output=1", ["v4.channel.k8s.io"]);
    const connection = answer.connection!;
    const error = await openAndWait(connection, { streamType: "error" });
    const stdout = await openAndWait(connection, { streamType: "stdout" });
    expect(await readAll(stdout)).toBe("attached to ns1/pod2\n");
    expect(JSON.parse(await readAll(error))).toEqual({ metadata: {}, status: "Success" });
  });
});

describe("refusals before the upgrade, as kubelet answers them", () => {
  it("404 for a pod that is not on the node", async () => {
    const answer = await spdyUpgrade(port, "/exec/default/missing/main?command=ls&output=1", [
      "v4.channel.k8s.io",
    ]);
    expect(answer.status).toBe(404);
    expect(answer.body).toBe("pod does not exist\n");
  });

  it("400 without any of stdin, stdout, stderr", async () => {
    const answer = await spdyUpgrade(port, "/exec/default/pod1/main?command=ls", ["v4.channel.k8s.io"]);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain("you must specify at least 1 of stdin, stdout, stderr");
  });

  it("400 without a protocol, 403 with the accepted list when none matches", async () => {
    const none = await spdyUpgrade(port, execPath("command=ls&output=1"), []);
    expect(none.status).toBe(400);
    expect(none.body).toContain("X-Stream-Protocol-Version is required");
    const wrong = await spdyUpgrade(port, execPath("command=ls&output=1"), ["v9.channel.k8s.io"]);
    expect(wrong.status).toBe(403);
    expect(wrong.headers["x-accepted-stream-protocol-versions"]).toBe(
      "v4.channel.k8s.io, v3.channel.k8s.io, v2.channel.k8s.io, channel.k8s.io",
    );
  });
});

describe("port-forward over SPDY/3.1", () => {
  it("pairs the data and error streams by requestID and relays the data stream", async () => {
    const answer = await spdyUpgrade(port, "/portForward/default/pod1", ["portforward.k8s.io"]);
    const connection = answer.connection!;
    const error = await openAndWait(connection, { streamType: "error", port: "80", requestID: "0" });
    const data = await openAndWait(connection, { streamType: "data", port: "80", requestID: "0" });
    data.end("ping");
    expect(await readAll(data)).toBe("port 80:ping");
    expect(await readAll(error)).toBe("");
  });

  it("writes why a forward failed on the error stream", async () => {
    const answer = await spdyUpgrade(port, "/portForward/default/pod1", ["portforward.k8s.io"]);
    const connection = answer.connection!;
    const error = await openAndWait(connection, { streamType: "error", port: "9", requestID: "1" });
    await openAndWait(connection, { streamType: "data", port: "9", requestID: "1" });
    expect(await readAll(error).catch(() => "reset")).toContain(
      "error forwarding port 9 to pod pod1, uid uid-1: failed to connect to localhost:9 inside namespace",
    );
  });

  it("resets a stream without a port header", async () => {
    const answer = await spdyUpgrade(port, "/portForward/default/pod1", ["portforward.k8s.io"]);
    const stream = answer.connection!.openStream({ streamtype: ["data"] });
    await expect(stream.replyReceived).rejects.toThrow();
  });
});

function wsConnect(
  path: string,
  protocol: string,
): Promise<{ ws: WebSocket; messages: Buffer[]; closed: Promise<void> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, protocol);
  const messages: Buffer[] = [];
  ws.on("message", (data: Buffer) => messages.push(Buffer.from(data)));
  const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ws, messages, closed }));
    ws.once("error", reject);
  });
}

describe("WebSocket channel protocols", () => {
  it("v4.channel.k8s.io: opening message, output on channel 1, JSON status on channel 3", async () => {
    const { ws, messages, closed } = await wsConnect(
      execPath("command=echo&command=ws&output=1"),
      "v4.channel.k8s.io",
    );
    expect(ws.protocol).toBe("v4.channel.k8s.io");
    await closed;
    expect(messages[0]).toEqual(Buffer.from([1]));
    const stdout = messages
      .filter((m) => m[0] === 1)
      .map((m) => m.subarray(1).toString())
      .join("");
    expect(stdout).toBe("ws\n");
    const status = messages.find((m) => m[0] === 3);
    expect(JSON.parse(status!.subarray(1).toString())).toEqual({ metadata: {}, status: "Success" });
  });

  it("v5.channel.k8s.io: the CLOSE channel ends stdin", async () => {
    const { ws, messages, closed } = await wsConnect(
      execPath("command=cat&input=1&output=1"),
      "v5.channel.k8s.io",
    );
    ws.send(Buffer.concat([Buffer.from([0]), Buffer.from("typed")]));
    ws.send(Buffer.from([255, 0]));
    await closed;
    const stdout = messages
      .filter((m) => m[0] === 1)
      .map((m) => m.subarray(1).toString())
      .join("");
    expect(stdout).toBe("typed");
  });

  it("base64.channel.k8s.io: text frames, channel as a digit, text status for failures only", async () => {
    const { messages, closed } = await wsConnect(
      execPath("command=warn&output=1&error=1"),
      "base64.channel.k8s.io",
    );
    await closed;
    const text = messages.map((m) => m.toString());
    expect(text).toContain(`2${Buffer.from("careful\n").toString("base64")}`);
    const status = text.find((t) => t.startsWith("3") && t.length > 1);
    expect(Buffer.from(status!.slice(1), "base64").toString()).toBe(
      "command terminated with non-zero exit code: error executing command [warn], exit code 3",
    );
  });

  it("port-forward: the port opens both channels, data relays on channel 0", async () => {
    const { ws, messages } = await wsConnect("/portForward/default/pod1?port=8080", "v4.channel.k8s.io");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages.slice(0, 2)).toEqual([Buffer.from([0, 0x90, 0x1f]), Buffer.from([1, 0x90, 0x1f])]);
    ws.send(Buffer.concat([Buffer.from([0]), Buffer.from("hi")]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const data = messages
      .slice(2)
      .filter((m) => m[0] === 0)
      .map((m) => m.subarray(1).toString())
      .join("");
    expect(data).toBe("port 8080:hi");
    ws.close();
  });
});
