import { createInterface } from "node:readline";
import { pino } from "pino";
import { DhcpServerConfigSchema } from "./server-config.js";
import { startSingleClientDhcpServer } from "./server.js";

// Entry point of a DHCP server process started inside a pod's network namespace
// (`nsenter --net=<path> node server-main.js`), for callers that are not themselves in that namespace.
// Protocol on stdin/stdout: the first stdin line is the DhcpServerConfig as JSON; once serving, one
// line {"ready":true} goes to stdout. The server stops when stdin closes (its starter went away) or on
// SIGTERM/SIGINT. Logs go to stderr.

const log = pino({ base: { component: "dhcp-server" } }, pino.destination(2));

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new Error("no DHCP server configuration on stdin");
  const config = DhcpServerConfigSchema.parse(JSON.parse(first.value));
  const server = await startSingleClientDhcpServer(config, log);
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");

  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  lines.once("close", stop);
}

main().catch((error: unknown) => {
  log.error({ err: error }, "DHCP server failed");
  process.exit(1);
});
