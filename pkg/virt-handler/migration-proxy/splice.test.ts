import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { splice } from "./splice.js";

/** Two connected socket pairs over unix sockets: [client end, server end] each, all half-open capable. */
async function socketPair(socketPath: string): Promise<{ near: Socket; far: Socket; server: Server }> {
  const server = createServer({ allowHalfOpen: true });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const far = new Promise<Socket>((resolve) => server.once("connection", resolve));
  const near = connect({ path: socketPath, allowHalfOpen: true });
  await new Promise((resolve) => near.once("connect", resolve));
  return { near, far: await far, server };
}

const collect = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("end", () => resolve(text));
  });

describe("splice", () => {
  let dir: string;
  const servers: Server[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "splice-"));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** client ⇄ [inbound | splice | outbound] ⇄ launcher */
  async function spliced() {
    const a = await socketPair(path.join(dir, "a.sock"));
    const b = await socketPair(path.join(dir, "b.sock"));
    servers.push(a.server, b.server);
    return { client: a.near, inbound: a.far, launcher: b.far, done: splice(a.far, b.near) };
  }

  it("passes each half-close on and closes both legs once both directions ended", async () => {
    const { client, launcher, done } = await spliced();
    const toLauncher = collect(launcher);
    client.end("request");
    expect(await toLauncher).toBe("request");
    const toClient = collect(client);
    launcher.end("answer after the request ended");
    expect(await toClient).toBe("answer after the request ended");
    expect(await done).toEqual({ inboundToOutbound: 7, outboundToInbound: 30 });
  });

  it("destroys both legs when one fails", async () => {
    const { client, inbound, launcher, done } = await spliced();
    // The far ends see their peer go away: an end of stream or a reset.
    const gone = (socket: Socket) =>
      new Promise((resolve) => {
        socket.once("end", resolve);
        socket.once("error", resolve);
      });
    const launcherClosed = gone(launcher);
    const clientClosed = gone(client);
    client.write("partial");
    inbound.destroy(new Error("inbound leg failed"));
    expect((await done).error?.message).toBe("inbound leg failed");
    await Promise.all([launcherClosed, clientClosed]);
    launcher.destroy();
    client.destroy();
  });
});
