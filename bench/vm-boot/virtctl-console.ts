import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { performance } from "node:perf_hooks";
import { bundleFile } from "../../hack/bundle-components/layout.js";
import { Transcript } from "./probe.js";

// `virtctl console <vm>` as a user runs it right after `kubectl apply`: it waits (its --timeout) while
// virt-api answers that the VMI is not ready, but quits at once while the VMI does not exist yet, so
// it is started again until it holds the console. Its stdout is the serial console; its stderr says when
// it connected.

const RESTART_MS = 250;
const CONNECTED = /Successfully connected to/;

export interface VirtctlConsoleOptions {
  repoRoot: string;
  kubeconfig: string;
  namespace: string;
  vmi: string;
}

export class VirtctlConsole extends Transcript {
  /** performance.now() when virtctl first said it connected. */
  connectedAtMs: number | undefined;
  /** virtctl's stderr, for the error when nothing comes. */
  private stderr = "";
  private child: ChildProcessWithoutNullStreams | undefined;
  private closed = false;
  private restart: NodeJS.Timeout | undefined;

  constructor(private readonly options: VirtctlConsoleOptions) {
    super((text) => this.child?.stdin.write(text));
    this.start();
  }

  get lastError(): string {
    return this.stderr.trim().split("\n").at(-1) ?? "";
  }

  private start(): void {
    const { repoRoot, kubeconfig, namespace, vmi } = this.options;
    const virtctl = bundleFile(repoRoot, "virtctl");
    const args = [virtctl, "--kubeconfig", kubeconfig, "-n", namespace, "console", vmi, "--timeout", "5"];
    const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    // What is typed while no virtctl listens is lost, as it would be for a user.
    child.stdin.on("error", () => undefined);
    child.stdout.on("data", (chunk: Buffer) => this.append(chunk.toString("latin1")));
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-4000);
      if (this.connectedAtMs === undefined && CONNECTED.test(this.stderr))
        this.connectedAtMs = performance.now();
    });
    child.on("close", () => {
      if (this.child === child) this.child = undefined;
      if (!this.closed) this.restart = setTimeout(() => this.start(), RESTART_MS);
    });
  }

  /** Leaves the console as a user does (Ctrl+]), then ends virtctl by its PID if it is still there. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restart);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin.write("\x1d");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
