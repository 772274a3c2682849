// A minimal QMP (QEMU Machine Protocol) client: enough to negotiate capabilities and run a command.
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

  private constructor(private readonly socket: Socket) {
    createInterface({ input: socket }).on("line", (line) => {
      const reply = qmpReply.parse(JSON.parse(line));
      if ("event" in reply) return; // asynchronous events are not answers
      this.pending.shift()?.resolve(reply);
    });
    socket.on("close", () => {
      for (const waiter of this.pending.splice(0)) waiter.reject(new Error("QMP socket closed"));
    });
  }

  /** Connects to a QMP unix socket and leaves capabilities negotiation mode. */
  static async connect(socketPath: string): Promise<QmpClient> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(socketPath, () => resolve(s));
      s.once("error", reject);
    });
    const client = new QmpClient(socket);
    await client.nextReply(); // the greeting
    await client.execute("qmp_capabilities");
    return client;
  }

  async execute(command: string, args?: Record<string, unknown>): Promise<unknown> {
    const reply = this.nextReply();
    this.socket.write(
      JSON.stringify(args ? { execute: command, arguments: args } : { execute: command }) + "\n",
    );
    const answer = await reply;
    if ("error" in answer) throw new Error(`QMP ${command}: ${answer.error.class}: ${answer.error.desc}`);
    return "return" in answer ? answer.return : undefined;
  }

  close(): void {
    this.socket.destroy();
  }

  private nextReply(): Promise<QmpReply> {
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }
}
