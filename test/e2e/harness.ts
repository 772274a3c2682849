// What the end-to-end tests drive the cluster with: kubectl (from the integration harness) and the
// suite's own virtctl, run as a user runs them, plus a serial console session read line by line.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { bundleFile } from "../../hack/bundle-components/layout.js";
import { cluster, eventually, kubectl, kubectlOk } from "../integration/harness.js";

export { cluster, eventually, kubectl, kubectlOk } from "../integration/harness.js";

/** virtctl as `make binaries` bundles it (the global setup has built it): it starts without tsx's transpiling. */
export const VIRTCTL = bundleFile(cluster.repoRoot, "virtctl");

export interface CommandOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export function virtctl(args: string[], kubeconfig = cluster.adminKubeconfig): Promise<CommandOutput> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VIRTCTL, "--kubeconfig", kubeconfig, ...args]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** `virtctl console NAME` with its stdin and stdout in the test's hands. */
export class ConsoleSession {
  private output = "";
  private readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number>;
  /** virtctl's exit code once it has ended (nothing more comes then). */
  private exitCode: number | undefined;

  constructor(vmi: string, namespace = "default", kubeconfig = cluster.adminKubeconfig) {
    this.child = spawn(process.execPath, [
      VIRTCTL,
      "--kubeconfig",
      kubeconfig,
      "-n",
      namespace,
      "console",
      vmi,
    ]);
    this.child.stdout.on("data", (chunk: Buffer) => (this.output += chunk.toString("latin1")));
    this.child.stderr.on("data", (chunk: Buffer) => (this.output += chunk.toString("latin1")));
    this.exited = new Promise((resolve) =>
      this.child.on("close", (code) => {
        this.exitCode = code ?? 1;
        resolve(this.exitCode);
      }),
    );
  }

  get transcript(): string {
    return this.output;
  }

  type(text: string): void {
    this.child.stdin.write(text);
  }

  /** Waits until the transcript, from `from` on, matches; presses Enter every `pokeMs` meanwhile. */
  async expect(
    pattern: RegExp,
    timeoutMs: number,
    options: { from?: number; pokeMs?: number } = {},
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let lastPoke = 0;
    for (;;) {
      const match = this.output.slice(options.from ?? 0).match(pattern);
      if (match) return match[0];
      if (Date.now() > deadline || this.exitCode !== undefined) {
        // The last lines only: a summary of the failure (CI keeps a tail of the output) shows them whole.
        const lastLines = this.output
          .split(/\r?\n/)
          .filter((line) => line.trim() !== "")
          .slice(-7)
          .map((line) => line.slice(-160));
        const ended =
          this.exitCode === undefined ? "" : ` (virtctl console ended, exit code ${this.exitCode})`;
        throw new Error(`console never printed ${pattern}${ended}; its last lines:\n${lastLines.join("\n")}`);
      }
      if (options.pokeMs && Date.now() - lastPoke > options.pokeMs) {
        this.type("\r");
        lastPoke = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Runs a shell command in the guest and answers what it printed (trimmed) and its exit status. The
   * command's output is framed by markers the echo of the typed line cannot match (the shell expands them).
   */
  async run(command: string, timeoutMs = 60_000): Promise<{ output: string; status: number }> {
    const tag = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const framed = new RegExp(`BEGIN-${tag}\\r?\\n([\\s\\S]*?)END-${tag}-(\\d+)-`);
    const from = this.output.length;
    // The typed line echoes `BEGIN-"tag"` and `$?`: only the shell's output matches the frame.
    this.type(`echo BEGIN-"${tag}"; ${command}; echo "END-${tag}-$?-"\r`);
    const match = framed.exec(await this.expect(framed, timeoutMs, { from }));
    return { output: (match?.[1] ?? "").replace(/\r/g, "").trim(), status: Number(match?.[2] ?? -1) };
  }

  /** Leaves the console as a user does (Ctrl+]). */
  async close(): Promise<number> {
    this.child.stdin.write("\x1d");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** A jsonpath of an object, "" when it does not exist. */
export async function jsonpath(
  kind: string,
  name: string,
  path: string,
  namespace = "default",
): Promise<string> {
  const result = await kubectl(["-n", namespace, "get", kind, name, "-o", `jsonpath=${path}`]);
  return result.code === 0 ? result.stdout : "";
}

/** `status/reason` of an object's condition of `type`; "/" when it has none. */
export const conditionOf = (kind: string, name: string, type: string, namespace = "default") =>
  jsonpath(
    kind,
    name,
    `{.status.conditions[?(@.type=="${type}")].status}/{.status.conditions[?(@.type=="${type}")].reason}`,
    namespace,
  );

/** The STATUS column of `kubectl get vm NAME`, as a user reads it. */
export async function vmStatusColumn(name: string): Promise<string | undefined> {
  const table = await kubectlOk(["get", "vm", name]);
  const [header = "", row = ""] = table.trim().split("\n");
  return row.slice(header.indexOf("STATUS")).split(/\s+/)[0];
}

/** Waits for VMI `name` to run (up to `timeoutMs`) and answers the name of its virt-launcher pod. */
export async function runningLauncher(
  name: string,
  timeoutMs: number,
  namespace = "default",
): Promise<string> {
  await eventually(
    async () => expect(await jsonpath("vmi", name, "{.status.phase}", namespace)).toBe("Running"),
    timeoutMs,
    1_000,
  );
  const uid = await jsonpath("vmi", name, "{.metadata.uid}", namespace);
  const selector = `kubevirt.io/created-by=${uid}`;
  const launcher = (
    await kubectlOk([
      "-n",
      namespace,
      "get",
      "pods",
      "-l",
      selector,
      "-o",
      "jsonpath={.items[0].metadata.name}",
    ])
  ).trim();
  expect(launcher).toMatch(/^virt-launcher-/);
  return launcher;
}

export async function applyYAML(yaml: string): Promise<void> {
  await kubectlOk(["apply", "-f", "-"], yaml);
}

/** `kubectl apply` of an object (JSON is YAML to kubectl). */
export async function applyObject(object: object): Promise<void> {
  await applyYAML(JSON.stringify(object));
}

/** Names (or another jsonpath) of the KubeVirt pods labelled `kubevirt.io=<component>`, on `node` if given. */
export async function componentPods(
  component: string,
  options: { node?: string; path?: string } = {},
): Promise<string> {
  const args = ["-n", "kubevirt", "get", "pods", "-l", `kubevirt.io=${component}`];
  if (options.node) args.push("--field-selector", `spec.nodeName=${options.node}`);
  const out = await kubectlOk([...args, "-o", `jsonpath=${options.path ?? "{.items[*].metadata.name}"}`]);
  return out.trim();
}

/** PIDs of this machine's processes whose argument vector satisfies `matches`. */
export async function processPids(matches: (argv: string[]) => boolean): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline !== "" && matches(cmdline.replace(/\0$/, "").split("\0"))) pids.push(Number(entry));
  }
  return pids;
}

/** PIDs of the QEMU processes running the domain of VMI `namespace/name` (`-name guest=<namespace>_<name>,`). */
export function qemuPids(name: string, namespace = "default"): Promise<number[]> {
  return processPids(
    ([binary = "", ...args]) =>
      binary.startsWith("/usr/bin/qemu-system") &&
      args.some((arg) => arg.includes(`guest=${namespace}_${name},`)),
  );
}

/** The PID the node agent recorded for a container of a pod (what a kubelet's runtime knows). */
export async function containerPid(pod: string, container: string, namespace = "default"): Promise<number> {
  const { metadata, spec } = JSON.parse(
    await kubectlOk(["-n", namespace, "get", "pod", pod, "-o", "json"]),
  ) as {
    metadata: { uid: string };
    spec: { nodeName: string };
  };
  const state = join(
    cluster.nodesDir,
    spec.nodeName,
    "runtime/pods",
    metadata.uid,
    "containers",
    container,
    "state.json",
  );
  return (JSON.parse(await readFile(state, "utf8")) as { pid: number }).pid;
}

/** Events whose fields match `fieldSelector`, one line each: `first` (a JSONPath), then "<reason>: <message>". */
function eventLines(
  fieldSelector: string,
  namespace: string,
  first: string,
  sortBy?: string,
): Promise<string> {
  return kubectlOk([
    "-n",
    namespace,
    "get",
    "events",
    "--field-selector",
    fieldSelector,
    ...(sortBy ? [`--sort-by=${sortBy}`] : []),
    "-o",
    `jsonpath={range .items[*]}${first} {.reason}: {.message}{'\\n'}{end}`,
  ]);
}

/** The newest `count` events whose fields match `fieldSelector`, newest first: "<time> <reason>: <message>". */
export async function latestEvents(
  fieldSelector: string,
  count: number,
  namespace = "default",
): Promise<string[]> {
  const listed = await eventLines(fieldSelector, namespace, "{.lastTimestamp}", ".lastTimestamp");
  return listed.trim().split("\n").filter(Boolean).reverse().slice(0, count);
}

/** The events whose fields match `fieldSelector`, one "<object name> <reason>: <message>" line each. */
export function events(fieldSelector: string, namespace = "default"): Promise<string> {
  return eventLines(fieldSelector, namespace, "{.involvedObject.name}");
}
