// virtctl (also the kubectl plugin kubectl-virt): wires the process to pkg/virtctl.
import type { Writable } from "node:stream";
import type { IO } from "../../pkg/virtctl/command.js";
import { execute, programNameOf } from "../../pkg/virtctl/root.js";

const io: IO = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  onInterrupt(listener) {
    process.on("SIGINT", listener);
    return () => process.off("SIGINT", listener);
  },
};

/** Resolves once everything written so far has been handed to the OS. */
function flushed(stream: Writable): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

const code = await execute(process.argv.slice(2), io, programNameOf(process.argv[1] ?? "virtctl"));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
// stdin or a kept-alive agent may still hold the event loop open: the command is done
process.exit(code);
