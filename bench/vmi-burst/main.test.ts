import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FakeKubectl } from "../common/testing/fake-kubectl.js";
import { FakeVmiApiserver, type VmiScript } from "./testing/fake-apiserver.js";

// The benchmark's main from its command line to its printed figures and its clean-up, against a stand-in
// kubectl (namespace, component pods, /metrics, deletions) and a stand-in apiserver for the VMIs: no cluster.

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const REPO = path.resolve(path.dirname(MAIN), "../..");

const metrics = (pods: number, posts: number): string =>
  [
    "# TYPE apiserver_request_total counter",
    `apiserver_request_total{code="200",resource="pods",subresource="",verb="LIST"} ${pods}`,
    ...(posts > 0
      ? [
          `apiserver_request_total{code="201",resource="virtualmachineinstances",subresource="",verb="POST"} ${posts}`,
        ]
      : []),
    "",
  ].join("\n");

let kubectl: FakeKubectl | undefined;
let apiserver: FakeVmiApiserver | undefined;

afterEach(async () => {
  await apiserver?.stop();
  await kubectl?.remove();
});

async function setUp(script: (name: string) => VmiScript, namespace = ""): Promise<void> {
  apiserver = await FakeVmiApiserver.start(script);
  kubectl = await FakeKubectl.create([
    { when: ["get", "namespace"], stdout: namespace },
    { when: ["get", "pods"], stdout: '{"items":[]}' },
    { when: ["get", "leases.coordination.k8s.io"], stdout: '{"items":[]}' },
    { when: ["get", "--raw", "/metrics"], stdouts: [metrics(10, 0), metrics(12, 5)] },
  ]);
  await writeFile(kubectl.kubeconfig, apiserver.kubeconfig());
}

function runMain(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", MAIN, ...args, "--kubeconfig", kubectl!.kubeconfig, "--kubectl", kubectl!.kubectl],
    {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("vmi-burst main", () => {
  it("creates the burst, names the VMI that never ran once the timeout is up, prints its figures and cleans up", async () => {
    await setUp((name) =>
      name === "burst-0003"
        ? {
            stuckConditions: [
              {
                type: "PodScheduled",
                status: "False",
                reason: "Unschedulable",
                message: "0/2 nodes are available",
              },
            ],
          }
        : { scheduledMs: 30, runningMs: 60 },
    );
    const { code, stdout, stderr } = await runMain(["--count", "5", "--interval", "20ms", "--timeout", "3s"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain(
      "npx tsx bench/vmi-burst/main.ts --count 5 --interval 20ms --timeout 3s --namespace bench-vmi-burst --kubeconfig",
    );
    expect(stdout).toMatch(
      /^mode: stand-in launcher \(the default\): every VMI has spec\.startStrategy: Paused/m,
    );
    expect(stdout).toMatch(
      /^burst: 5 of 5 VMIs created, sent over [\d.]+ s \(20 ms apart, none waiting for another\); --timeout 3 s ran out$/m,
    );
    expect(stdout).toMatch(/^create -> Running, VMI timestamps\s+4\s+\d+\s+\d+\s+\d+$/m);
    expect(stdout).toMatch(/^sent -> Running, watch\s+4\s+\d+\.\d\d\s/m);
    expect(stdout).toMatch(/: not met: 1 of 5 VMIs did not reach Running$/m);
    expect(stdout).toContain(
      "4 of 4 VMIs that reached Running carry the Paused condition, as spec.startStrategy: Paused asks",
    );
    expect(stdout).toMatch(
      /^burst-0003\s+Scheduling\s+PodScheduled=False \(Unschedulable: 0\/2 nodes are available\)$/m,
    );
    expect(stdout).toMatch(/^POST\s+virtualmachineinstances\s+5\s+1\.00\s+0$/m);
    expect(stdout).toMatch(/^LIST\s+pods\s+2\s+0\.40\s+0$/m);
    expect(stdout).toMatch(/^warning: no running KubeVirt component pod in namespace kubevirt/m);
    expect(stdout).toContain("KubeVirt's components: n/a (no running component pod found)");

    expect(apiserver!.requests.filter((r) => r.startsWith("POST"))).toHaveLength(5);
    expect(apiserver!.requests).toContain(
      "GET /apis/kubevirt.io/v1/namespaces/bench-vmi-burst/virtualmachineinstances watch",
    );
    const calls = (await kubectl!.calls()).map((call) => call.args.join(" "));
    expect(calls).toEqual([
      "get namespace bench-vmi-burst --ignore-not-found -o json",
      "create -f -",
      expect.stringMatching(/^-n kubevirt get pods -l /),
      "-n kubevirt get leases.coordination.k8s.io -o json",
      "get --raw /metrics",
      "get --raw /metrics",
      "-n bench-vmi-burst delete virtualmachineinstances.kubevirt.io -l kubevirt-ts.io/benchmark=vmi-burst --ignore-not-found --wait=true --timeout=300s",
      "delete namespace bench-vmi-burst --ignore-not-found --wait=true --timeout=300s",
    ]);
  }, 30_000);

  it("ends as soon as every VMI runs, meets the target, and keeps the VMIs with --keep", async () => {
    await setUp(() => ({ scheduledMs: 10, runningMs: 20 }));
    const { code, stdout } = await runMain(["--count", "3", "--interval", "0ms", "--keep", "--boot"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/; every VMI created reached Running or ended within [\d.]+ s$/m);
    expect(stdout).toMatch(/p95 \d s \(VMI timestamps of 3 VMIs\): within, \d s to spare$/m);
    expect(stdout).toMatch(/^mode: --boot: the guests really boot/m);
    expect(stdout).toContain("0 of 3 VMIs that reached Running carry the Paused condition");
    expect(stdout).toContain("kept the VMIs in namespace bench-vmi-burst");
    expect((await kubectl!.calls()).some((call) => call.args.includes("delete"))).toBe(false);
  }, 30_000);

  it("refuses to start over the VMIs an earlier run kept, and deletes nothing", async () => {
    const owned = JSON.stringify({
      metadata: { name: "bench-vmi-burst", labels: { "kubevirt-ts.io/benchmark": "vmi-burst" } },
    });
    await setUp(() => ({}), owned);
    apiserver!.seed({
      metadata: { name: "burst-0001", labels: { "kubevirt-ts.io/benchmark": "vmi-burst" } },
      status: { phase: "Running" },
    });
    const { code, stderr } = await runMain([]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^1 VMIs of an earlier burst are in namespace bench-vmi-burst \(kept with --keep\?\): delete them first/,
    );
    expect((await kubectl!.calls()).some((call) => call.args.includes("delete"))).toBe(false);
    expect(apiserver!.requests.some((r) => r.startsWith("POST"))).toBe(false);
  }, 30_000);
});
