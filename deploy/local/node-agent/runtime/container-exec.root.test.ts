import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Duplex, PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerProcess, PodRef } from "../pod-runtime.js";
import type { ClusterNetworkConfig } from "./cluster-network-config.js";
import { NodeRuntime } from "./node-runtime.js";
import { rootTestsUnavailable, waitFor } from "./root-test-support.js";
import { runnable } from "../../../../pkg/testutils/requirement.js";

// kubelet's exec and port-forward against a real container: the command runs in the container's
// namespaces, root, directory, user and environment; a TTY is a real terminal that resizes; port-forward
// reaches a server listening on localhost inside the pod.

const canRun = runnable("the exec root tests", rootTestsUnavailable());

const ID = randomBytes(2).toString("hex");
const PREFIX = `ke${ID}-`;
const CLUSTER: ClusterNetworkConfig = {
  tableName: `kvts_exec_${ID}`,
  interfacePrefix: PREFIX,
  podRanges: ["10.244.206.0/24"],
  clusterRanges: ["10.244.206.0/24", "127.0.0.0/8"],
  blackholeRanges: ["10.244.206.0/24"],
  serviceRanges: [],
};

let base: string;
let node: NodeRuntime;
let pod: PodRef;
let container: ContainerProcess;

async function run(
  command: string[],
  options: { stdin?: string; tty?: boolean; resize?: { width: number; height: number } } = {},
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (c: Buffer) => out.push(c));
  stderr.on("data", (c: Buffer) => err.push(c));
  const resizes = options.resize
    ? (async function* () {
        // The size arrives a moment after the streams open, as a client's does.
        await new Promise((resolve) => setTimeout(resolve, 300));
        yield options.resize!;
      })()
    : undefined;
  const exitCode = await node.execStream(container.id, command, {
    tty: options.tty ?? false,
    stdout,
    ...(options.tty ? {} : { stderr }),
    ...(options.stdin !== undefined ? { stdin: Readable.from([Buffer.from(options.stdin)]) } : {}),
    ...(resizes ? { resizes } : {}),
  });
  return { exitCode, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

beforeAll(async () => {
  if (!canRun) return;
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-exec-"));
  node = await NodeRuntime.create({
    nodeName: `e${ID}`,
    stateDir: path.join(base, "state"),
    podCidr: "10.244.206.0/24",
    cluster: CLUSTER,
    images: { cacheDir: path.join(base, "cache"), checkoutDir: path.join(base, "checkout") },
  });
  pod = { uid: randomUUID(), namespace: "default", name: "exec-target" };
  await node.runSandbox({ ...pod, hostNetwork: false, dns: { servers: [], searches: [], options: [] } });
  await node.setUpVolumes(pod, [{ name: "www", source: { kind: "emptyDir" } }]);
  const image = await node.pullImage("busybox");
  container = await node.startContainer({
    pod,
    name: "main",
    attempt: 0,
    image,
    command: [
      "sh",
      "-c",
      "echo 'served from the pod' > /www/index.html; exec httpd -f -p 127.0.0.1:8080 -h /www",
    ],
    workingDir: "/www",
    env: { GREETING: "hello", PATH: "/bin:/usr/bin:/sbin:/usr/sbin" },
    mounts: [{ volume: "www", mountPath: "/www", readOnly: false }],
    volumeDevices: [],
    hostMounts: [],
    devices: [],
    privileged: false,
    runAsUser: 1234,
    runAsGroup: 1234,
    hostNetwork: false,
    hostPID: false,
  });
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  if (pod) {
    await node.stopContainer(container.id, 2000).catch(() => undefined);
    await node.removePod(pod).catch(() => undefined);
  }
  await node?.teardownNode({ clusterNetwork: true }).catch(() => undefined);
  await rm(base, { recursive: true, force: true });
}, 60_000);

describe.runIf(canRun)("exec and port-forward into a real container", () => {
  it("runs in the container's root, directory, user, environment and network", async () => {
    const result = await run([
      "sh",
      "-c",
      'pwd; id -u; echo "$GREETING"; cat /etc/hostname; ls /www; ip -o addr show eth0',
    ]);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.slice(0, 5)).toEqual(["/www", "1234", "hello", "exec-target", "index.html"]);
    expect(lines[5]).toMatch(/eth0\s+inet 10\.244\.206\.\d+\/24/);
  });

  it("sees the container's processes", async () => {
    const result = await run(["ps"]);
    expect(result.stdout).toMatch(/httpd -f -p 127\.0\.0\.1:8080/);
  });

  it("feeds stdin and reports the exit code and stderr", async () => {
    expect((await run(["cat"], { stdin: "piped in" })).stdout).toBe("piped in");
    const failing = await run(["sh", "-c", "echo nope >&2; exit 7"]);
    expect(failing).toEqual({ exitCode: 7, stdout: "", stderr: "nope\n" });
    // A command that cannot be executed fails the exec itself, as a runtime's exec start fails.
    await expect(run(["no-such-command"])).rejects.toThrow(
      'failed to exec in container: exec: "no-such-command": executable file not found in $PATH',
    );
    await expect(run(["/no/such/path"])).rejects.toThrow(
      'exec: "/no/such/path": stat /no/such/path: no such file or directory',
    );
    // Output that merely looks like nsenter's complaint stays the command's.
    const lookalike = await run(["sh", "-c", "echo 'nsenter: failed to execute x: y' >&2"]);
    expect(lookalike).toEqual({ exitCode: 0, stdout: "", stderr: "nsenter: failed to execute x: y\n" });
    // A shell's own 127 is the command's exit code.
    expect((await run(["sh", "-c", "no-such-command"])).exitCode).toBe(127);
  });

  it("gives a TTY a real terminal of the client's size, from the command's first instruction", async () => {
    const result = await run(["sh", "-c", "tty; stty size"], {
      tty: true,
      resize: { width: 132, height: 43 },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\/dev\/pts\/\d+\r?\n43 132\r?\n$/);
  });

  it("port-forward reaches a server listening on localhost inside the pod", async () => {
    const toPod = new PassThrough();
    const fromPod = new PassThrough();
    const chunks: Buffer[] = [];
    fromPod.on("data", (c: Buffer) => chunks.push(c));
    const stream = Duplex.from({ readable: toPod, writable: fromPod });
    const forwarding = node.portForward(container.id, 8080, stream);
    toPod.end("GET /index.html HTTP/1.0\r\n\r\n");
    await forwarding;
    await waitFor("the response", async () => (chunks.length > 0 ? true : undefined));
    const response = Buffer.concat(chunks).toString();
    expect(response).toMatch(/^HTTP\/1\.[01] 200/);
    expect(response).toContain("served from the pod");
  });

  it("port-forward to a closed port fails with the reason", async () => {
    const stream = Duplex.from({ readable: new PassThrough(), writable: new PassThrough() });
    await expect(node.portForward(container.id, 9, stream)).rejects.toThrow(
      /failed to connect to localhost:9/,
    );
  });
});
