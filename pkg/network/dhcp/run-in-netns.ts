import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
import type { DhcpServerConfig } from "./server-config.js";

// Runs the DHCP server in a pod network namespace the caller is not in, as a child process entered
// with nsenter. The launcher, already inside the pod's namespace, calls startSingleClientDhcpServer
// directly; this is for everything else (tests, tools).

export interface DhcpServerProcess {
  pid: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

export async function runDhcpServerInNetns(
  netnsPath: string,
  config: DhcpServerConfig,
): Promise<DhcpServerProcess> {
  if (netnsPath === "") throw new Error("a network namespace path is required");
  const child = spawn("nsenter", [`--net=${netnsPath}`, "--", process.execPath, ...serverMainArgs()], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin.write(JSON.stringify(config) + "\n");
  try {
    await waitForReady(child.stdout, exited);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    pid: child.pid ?? -1,
    stop: async () => {
      // Closing stdin is the server's cue to stop (nsenter execs node, so this is the server's own stdin).
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `server-main.js` beside this file when built; the TypeScript source under tsx otherwise. */
function serverMainArgs(): string[] {
  const compiled = fileURLToPath(new URL("./server-main.js", import.meta.url));
  if (existsSync(compiled)) return [compiled];
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return ["--import", tsxLoader, fileURLToPath(new URL("./server-main.ts", import.meta.url))];
}

function waitForReady(stdout: NodeJS.ReadableStream, exited: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("the DHCP server did not report ready")),
      READY_TIMEOUT_MS,
    );
    const lines = createInterface({ input: stdout });
    lines.once("line", (line) => {
      clearTimeout(timer);
      if (line.includes('"ready":true')) resolve();
      else reject(new Error(`unexpected DHCP server output: ${line}`));
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error("the DHCP server exited before it was ready"));
    });
  });
}
