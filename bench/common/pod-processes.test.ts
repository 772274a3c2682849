import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { podUsage } from "./pod-cpu.js";
import { findPodProcesses } from "./pod-processes.js";
import { FakeHost, fakeComputeProcesses } from "./testing/fake-proc.js";

const POD_UID = "4da728a5-3498-44b0-82da-c3e47f69b0ea";
const NODE_NAME = "node02";

let host: FakeHost;

beforeEach(async () => {
  host = await FakeHost.create("bench-pod-processes");
});

afterEach(async () => {
  await host.remove();
});

const location = () => ({
  nodesDir: host.nodesDir,
  node: NODE_NAME,
  podUid: POD_UID,
  procRoot: host.procRoot,
});

describe("finding the pod's processes", () => {
  it("reads every container cgroup of the pod, daemons reparented to init included", async () => {
    await fakeComputeProcesses(host);
    await host.container(NODE_NAME, POD_UID, "compute", 100);
    await host.container(NODE_NAME, POD_UID, "guest-console-log", 110);
    await host.container(NODE_NAME, POD_UID, "volumecontainerdisk-init", 120, { exited: true });
    await host.cgroup(NODE_NAME, POD_UID, "", []);
    await host.cgroup(NODE_NAME, POD_UID, "compute-0", [100, 101, 102, 103, 104]);
    await host.cgroup(NODE_NAME, POD_UID, "guest-console-log-0", [110, 111]);
    await host.cgroup(NODE_NAME, POD_UID, "stray-0", [130]);

    const found = await findPodProcesses(location());
    expect(found.processes).toEqual([
      { pid: 100, container: "compute", supervisor: true },
      { pid: 101, container: "compute", supervisor: false },
      { pid: 102, container: "compute", supervisor: false },
      { pid: 103, container: "compute", supervisor: false },
      { pid: 104, container: "compute", supervisor: false },
      { pid: 110, container: "guest-console-log", supervisor: true },
      { pid: 111, container: "guest-console-log", supervisor: false },
      { pid: 130, container: "stray-0", supervisor: false },
    ]);
    expect(found.warnings).toEqual([]);
    expect(found.sources).toEqual([`cgroup ${host.podCgroup(NODE_NAME, POD_UID)} (3 container cgroups)`]);
  });

  it("falls back to the supervisor's descendants without a cgroup, and says what that misses", async () => {
    await fakeComputeProcesses(host);
    await host.container(NODE_NAME, POD_UID, "compute", 100, { cgroup: false });
    const found = await findPodProcesses(location());
    expect(found.processes.map((p) => p.pid).sort()).toEqual([100, 101, 102]);
    expect(found.warnings.join("\n")).toMatch(/daemons\) are missed/);
  });

  it("fails when the agent has no record of the pod", async () => {
    await expect(findPodProcesses(location())).rejects.toThrow(/no node agent records/);
  });
});

describe("a pod's usage", () => {
  it("sums the CPU ticks and run-queue waits of the pod's processes, not the agent's supervising shells", async () => {
    await host.process({ pid: 200, ppid: 1, comm: "sh", argv: ["/bin/sh"], utimeTicks: 7, waitNs: 9 });
    await host.process({
      pid: 201,
      ppid: 200,
      comm: "node",
      argv: ["node"],
      utimeTicks: 300,
      stimeTicks: 40,
      waitNs: 5_000_000,
    });
    await host.process({ pid: 202, ppid: 201, comm: "helper", argv: ["helper"], utimeTicks: 5, waitNs: 20 });
    await host.container(NODE_NAME, POD_UID, "virt-api", 200);
    await host.cgroup(NODE_NAME, POD_UID, "virt-api-0", [200, 201, 202, 203]);
    expect(await podUsage(location())).toEqual({ cpuTicks: 345, runQueueWaitNs: 5_000_020 });
  });
});
