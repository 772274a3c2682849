// kubectl's streaming commands through the real apiserver to the node agent's kubelet endpoints: exec
// (kubectl 1.34 speaks WebSocket v5 to the apiserver, which translates to SPDY towards the node), with
// stdin, exit codes and a TTY; cp both ways (tar over exec); port-forward to a server in the pod; attach.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpGetThroughPortForward } from "../support/port-forward.js";
import { binary } from "../../deploy/local/cluster/layout.js";
import { cluster, ensureNodes, eventually, kubectl, kubectlOk } from "./harness.js";

const NS = "kubectl-streaming-it";
const POD = "target";
let scratch: string;

const podManifest = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: POD, namespace: NS },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: "main",
        image: "busybox",
        workingDir: "/srv",
        env: [{ name: "GREETING", value: "from-the-pod-env" }],
        command: [
          "sh",
          "-c",
          "mkdir -p /tmp/www && echo served-by-busybox > /tmp/www/index.html && httpd -p 8080 -h /tmp/www; " +
            "i=0; while true; do i=$((i+1)); echo tick-$i; sleep 0.5; done",
        ],
        securityContext: { runAsUser: 1000, runAsGroup: 1000 },
      },
    ],
  },
};

beforeAll(async () => {
  await ensureNodes();
  scratch = await mkdtemp(path.join(os.tmpdir(), "kvts-streaming-"));
  await kubectl(["delete", "namespace", NS, "--wait=true", "--ignore-not-found"]);
  await kubectlOk(["create", "namespace", NS]);
  await eventually(() => kubectlOk(["-n", NS, "get", "serviceaccount", "default"]), 60_000);
  await kubectlOk(["apply", "-f", "-"], JSON.stringify(podManifest));
  await kubectlOk(["-n", NS, "wait", `pod/${POD}`, "--for=condition=Ready", "--timeout=120s"]);
}, 300_000);

afterAll(async () => {
  await kubectl(["delete", "namespace", NS, "--wait=false", "--ignore-not-found"]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const exec = (args: string[], input?: string) =>
  kubectl(
    ["-n", NS, "exec", ...(input !== undefined ? ["-i"] : []), POD, "--", ...args],
    input === undefined ? {} : { input },
  );

describe("kubectl exec", () => {
  it("runs in the container's root, directory, user, environment and network", async () => {
    const result = await exec([
      "sh",
      "-c",
      'pwd; id -u; echo "$GREETING"; cat /etc/hostname; ip -o -4 addr show eth0',
    ]);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trim().split("\n");
    expect(lines.slice(0, 4)).toEqual(["/srv", "1000", "from-the-pod-env", POD]);
    const podIP = (await kubectlOk(["-n", NS, "get", "pod", POD, "-o", "jsonpath={.status.podIP}"])).trim();
    expect(lines[4]).toContain(`inet ${podIP}/`);
  });

  it("passes stdin and reports a command's exit code as kubectl's own", async () => {
    expect((await exec(["cat"], "through stdin\n")).stdout).toBe("through stdin\n");
    const failing = await exec(["sh", "-c", "echo to-stderr >&2; exit 3"]);
    expect(failing.code).toBe(3);
    expect(failing.stderr).toContain("to-stderr");
    expect((await exec(["false"])).code).toBe(1);
    const missing = await exec(["no-such-command"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'error executing command in container: failed to exec in container: exec: "no-such-command": executable file not found in $PATH',
    );
  });

  it("gives `-t` a terminal (kubectl run on a pseudo-terminal of its own)", async () => {
    const kubectlPath = binary(cluster, "kubectl");
    // The terminal kubectl runs on has a size; kubectl sends it as the first resize.
    const command = `stty cols 101 rows 31; ${kubectlPath} --kubeconfig ${cluster.adminKubeconfig} -n ${NS} exec -it ${POD} -- sh -c 'tty; stty size'`;
    const output = await new Promise<string>((resolve) => {
      const child = spawn("script", ["-qec", command, "/dev/null"]);
      let text = "";
      child.stdout.on("data", (c: Buffer) => (text += c.toString()));
      child.on("close", () => resolve(text));
      child.stdin.end();
    });
    expect(output).toMatch(/\/dev\/pts\/\d+\r\n31 101\r\n/);
  });
});

describe("kubectl cp", () => {
  it("copies a file into the container and back out", async () => {
    const local = path.join(scratch, "upload.txt");
    await writeFile(local, "copied in and out\n".repeat(5000));
    await kubectlOk(["-n", NS, "cp", local, `${POD}:/tmp/upload.txt`]);
    expect((await exec(["wc", "-c", "/tmp/upload.txt"])).stdout).toContain("90000");
    const back = path.join(scratch, "download.txt");
    await kubectlOk(["-n", NS, "cp", `${POD}:/tmp/upload.txt`, back]);
    expect(await readFile(back, "utf8")).toBe("copied in and out\n".repeat(5000));
  });
});

describe("kubectl port-forward", () => {
  it("reaches the pod's server through a local port", async () => {
    const { response, stderr } = await httpGetThroughPortForward(
      binary(cluster, "kubectl"),
      ["--kubeconfig", cluster.adminKubeconfig, "-n", NS, "port-forward", `pod/${POD}`, "18080:8080"],
      18080,
      "/index.html",
    );
    expect(response, stderr).toMatch(/^HTTP\/1\.[01] 200/);
    expect(response).toContain("served-by-busybox");
  });
});

describe("kubectl attach", () => {
  it("follows the container's output as it is written", async () => {
    const child = spawn(binary(cluster, "kubectl"), [
      "--kubeconfig",
      cluster.adminKubeconfig,
      "-n",
      NS,
      "attach",
      POD,
    ]);
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    try {
      await eventually(
        async () => expect(text.match(/tick-\d+/g)?.length ?? 0).toBeGreaterThanOrEqual(2),
        20_000,
      );
      const seen = [...text.matchAll(/tick-(\d+)/g)].map((m) => Number(m[1]));
      // New output only, in order.
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen[0]).toBeGreaterThan(1);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
