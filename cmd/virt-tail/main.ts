// Transitional hand-over, not a second virt-tail: node agents started before virt-tail became a native
// binary (NATIVE_BINARIES in deploy/local/node-agent/runtime/image-store.ts) still run /usr/bin/virt-tail
// as `node --import tsx cmd/virt-tail/main.ts`, and without this file every launcher Pod they start fails.
// It runs the C program (main.c, built into a shared temporary directory: the container's user cannot
// write the image cache) with the same arguments and ends as it ends. Delete it once no node agent of an
// earlier checkout runs (the next `make up`).
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { ensureNativeBinary } from "../../deploy/local/node-agent/runtime/native-binary.js";

const binary = await ensureNativeBinary(path.join(import.meta.dirname, "main.c"), {
  binDir: path.join(os.tmpdir(), `kubevirt-ts-native-${process.getuid?.() ?? "user"}`),
});
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => (process.exitCode = code ?? 1));
