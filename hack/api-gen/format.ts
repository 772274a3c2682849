// Prettier 3 only formats asynchronously, but generators return their files synchronously.
// Run prettier in a worker thread and block on an Atomics wait until it answers.
import { createRequire } from "node:module";
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";

const PRETTIER_OPTIONS = { parser: "typescript", printWidth: 110 } as const;
const TIMEOUT_MS = 120_000;

const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { port, signal, prettierPath, sources, options } = workerData;
(async () => {
  let reply;
  try {
    const prettier = require(prettierPath);
    reply = { formatted: await Promise.all(sources.map((s) => prettier.format(s, options))) };
  } catch (error) {
    reply = { error: String(error && error.stack ? error.stack : error) };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
})();
`;

interface WorkerReply {
  formatted?: string[];
  error?: string;
}

/** Formats TypeScript sources with the repository's prettier settings, synchronously. */
export function formatTypeScript(sources: readonly string[]): string[] {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const prettierPath = createRequire(import.meta.url).resolve("prettier");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { port: port2, signal, prettierPath, sources, options: PRETTIER_OPTIONS },
    transferList: [port2],
  });
  try {
    if (Atomics.wait(signal, 0, 0, TIMEOUT_MS) === "timed-out") throw new Error("prettier worker timed out");
    const reply = receiveMessageOnPort(port1)?.message as WorkerReply | undefined;
    if (reply?.formatted === undefined) throw new Error(`prettier failed: ${reply?.error ?? "no reply"}`);
    return reply.formatted;
  } finally {
    port1.close();
    void worker.terminate();
  }
}
