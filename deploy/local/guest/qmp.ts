// A minimal QMP (QEMU Machine Protocol) client: enough to negotiate capabilities and run a command.
// The guest agent (qemu-ga) speaks the same JSON on its virtio-serial port, without QMP's greeting
// and capabilities negotiation: connectGuestAgent talks to the host end of that port.
import { randomInt } from "node:crypto";
import { connect, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { z } from "zod";

const qmpReply = z.union([
  z.object({ QMP: z.unknown() }),
  z.object({ event: z.string() }),
  z.object({ return: z.unknown() }),
  z.object({ error: z.object({ class: z.string(), desc: z.string() }) }),
]);
type QmpReply = z.infer<typeof qmpReply>;

export class QmpClient {
  // QMP answers in order, so the oldest waiter gets the next answer.
  private readonly pending: Array<{ resolve: (reply: QmpReply) => void; reject: (error: Error) => void }> =
    [];
  /** While set, lines are dropped until this guest-sync answer arrives (see connectGuestAgent). */
  private syncing: { id: number; done: () => void } | undefined;

  private constructor(private readonly socket: Socket) {
    createInterface({ input: socket }).on("line", (line) => {
      if (this.syncing) {
        if (isSyncAnswer(line, this.syncing.id)) {
          this.syncing.done();
          this.syncing = undefined;
        }
        return;
      }
      const reply = qmpReply.parse(JSON.parse(line));
      if ("event" in reply) return; // asynchronous events are not answers
      this.pending.shift()?.resolve(reply);
    });
    socket.on("close", () => {
      this.syncing = undefined;
      for (const waiter of this.pending.splice(0)) waiter.reject(new Error("QMP socket closed"));
    });
  }

  /** Connects to a QMP unix socket and leaves capabilities negotiation mode. */
  static async connect(socketPath: string): Promise<QmpClient> {
    const client = new QmpClient(await openSocket(socketPath));
    await client.nextReply(); // the greeting
    await client.execute("qmp_capabilities");
    return client;
  }

  /**
   * Connects to the host end of a guest agent's port (a `-chardev socket`) and synchronizes: the
   * agent may still hold answers an earlier client left unread, so everything before the answer
   * to a guest-sync with a fresh id is dropped. Rejects if the agent does not answer in time.
   */
  static async connectGuestAgent(socketPath: string, timeoutMs = 5_000): Promise<QmpClient> {
    const client = new QmpClient(await openSocket(socketPath));
    const id = randomInt(1, 2 ** 31);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no guest-sync answer within ${timeoutMs} ms`)),
          timeoutMs,
        );
        client.syncing = {
          id,
          done: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        client.socket.write(JSON.stringify({ execute: "guest-sync", arguments: { id } }) + "\n");
      });
    } catch (error) {
      client.close();
      throw error;
    }
    return client;
  }

  async execute(command: string, args?: Record<string, unknown>): Promise<unknown> {
    const reply = this.nextReply();
    this.send(command, args);
    const answer = await reply;
    if ("error" in answer) throw new Error(`QMP ${command}: ${answer.error.class}: ${answer.error.desc}`);
    return "return" in answer ? answer.return : undefined;
  }

  /** Sends a command that has no answer (guest-shutdown: the agent goes down with the guest). */
  send(command: string, args?: Record<string, unknown>): void {
    this.socket.write(
      JSON.stringify(args ? { execute: command, arguments: args } : { execute: command }) + "\n",
    );
  }

  close(): void {
    this.socket.destroy();
  }

  private nextReply(): Promise<QmpReply> {
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }
}

function isSyncAnswer(line: string, id: number): boolean {
  try {
    return z.object({ return: z.literal(id) }).safeParse(JSON.parse(line)).success;
  } catch {
    return false; // not JSON: a stale partial line
  }
}

function openSocket(socketPath: string): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const s = connect(socketPath, () => resolve(s));
    s.once("error", reject);
  });
}
