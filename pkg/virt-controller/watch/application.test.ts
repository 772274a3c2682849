import { afterEach, describe, expect, it, vi } from "vitest";
import { KubeClient } from "../../controller/client.js";
import { silentLogger } from "../../controller/log.js";
import { VirtControllerApp } from "./application.js";
import type { StoredVM, StoredVMI } from "../../controller/resources.js";
import type { Pod } from "../../api/core/v1/pod.js";
import { Tables, TestLauncherSettings, vmFixture } from "../testing/controller-env.js";
import { FakeApiServer } from "../../controller/testing/fake-apiserver.js";
import { replicaSetFixture, Tables as ReplicaSetTables } from "./replicaset/testing.js";
import { poolFixture, Tables as PoolTables } from "./pool/testing.js";
import { samplesOf } from "../../monitoring/metrics/testing/exposition.js";

// Whole virt-controller processes (leader election, informers, the controllers, HTTP endpoints) against
// one in-memory apiserver.

const timings = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };
const running: Array<{ stop: AbortController; done: Promise<void> }> = [];

afterEach(async () => {
  for (const app of running.splice(0)) {
    app.stop.abort();
    await app.done;
  }
});

function start(server: FakeApiServer, identity: string): { app: VirtControllerApp; stop: AbortController } {
  const app = new VirtControllerApp({
    client: new KubeClient(server),
    namespace: "kubevirt",
    identity,
    launcher: TestLauncherSettings,
    vmWorkers: 2,
    vmiWorkers: 2,
    rsWorkers: 2,
    poolWorkers: 2,
    nodeWorkers: 2,
    logger: silentLogger,
    http: {
      bindAddress: "127.0.0.1",
      port: 0,
      certFile: "/nonexistent/tls.crt",
      keyFile: "/nonexistent/tls.key",
    },
    leaderElection: timings,
  });
  const stop = new AbortController();
  running.push({ stop, done: app.run(stop.signal) });
  return { app, stop };
}

async function getJSON(app: VirtControllerApp, path: string): Promise<{ status: number; body: unknown }> {
  await vi.waitFor(() => expect(app.port).toBeDefined());
  const response = await fetch(`http://127.0.0.1:${app.port}${path}`);
  return { status: response.status, body: await response.json() };
}

describe("virt-controller process", () => {
  it("runs a VM to a VMI and its launcher Pod once it leads", async () => {
    const server = new FakeApiServer();
    const { app } = start(server, "virt-controller-a");
    server.seed(Tables.vms, vmFixture("demo", { runStrategy: "Always" }));
    await vi.waitFor(() => expect(server.list<Pod>(Tables.pods)).toHaveLength(1), { timeout: 5000 });
    const [pod] = server.list<Pod>(Tables.pods);
    expect(pod?.spec.containers[0]?.image).toBe(TestLauncherSettings.launcherImage);
    expect(server.list<StoredVMI>(Tables.vmis).map((vmi) => vmi.metadata?.name)).toEqual(["demo"]);
    expect(app.isLeader()).toBe(true);
    expect((await getJSON(app, "/leader")).body).toEqual({ apiserver: { leader: "true" } });
  });

  it("serves /metrics: ready, leading, and the VMIs of the leader's cache", async () => {
    const server = new FakeApiServer();
    const { app } = start(server, "virt-controller-a");
    server.seed(Tables.vms, vmFixture("demo", { runStrategy: "Always" }));
    await vi.waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${app.port}/metrics`);
        const text = await response.text();
        expect(samplesOf(text, "kubevirt_virt_controller_ready_status")[0]?.value).toBe(1);
        expect(samplesOf(text, "kubevirt_virt_controller_leading_status")[0]?.value).toBe(1);
        expect(samplesOf(text, "kubevirt_vmi_info", { name: "demo" })).toHaveLength(1);
      },
      { timeout: 5000 },
    );
  });

  it("the leader watches the four instancetype kinds its VM controller reads", async () => {
    const server = new FakeApiServer();
    start(server, "virt-controller-a");
    await Promise.all(
      [Tables.instancetypes, Tables.clusterInstancetypes, Tables.preferences, Tables.clusterPreferences].map(
        (table) => server.untilWatching(table),
      ),
    );
  });

  it("runs a VMI replica set to its VMIs", async () => {
    const server = new FakeApiServer();
    start(server, "virt-controller-a");
    server.seed(ReplicaSetTables.replicaSets, replicaSetFixture(2));
    await vi.waitFor(
      () =>
        expect(server.list<StoredVMI>(Tables.vmis).map((vmi) => vmi.metadata?.generateName)).toEqual([
          "rs",
          "rs",
        ]),
      { timeout: 5000 },
    );
  });

  it("runs a VM pool to its VMs, and the VM controller those to their VMIs", async () => {
    const server = new FakeApiServer();
    start(server, "virt-controller-a");
    server.seed(PoolTables.pools, poolFixture(2));
    await vi.waitFor(
      () => {
        expect(server.list<StoredVM>(Tables.vms).map((vm) => vm.metadata?.name)).toEqual([
          "pool-0",
          "pool-1",
        ]);
        expect(server.list<StoredVMI>(Tables.vmis).map((vmi) => vmi.metadata?.name)).toEqual([
          "pool-0",
          "pool-1",
        ]);
      },
      { timeout: 5000 },
    );
  });

  it("lets one replica lead; the other takes over when it stops", async () => {
    const server = new FakeApiServer();
    const first = start(server, "virt-controller-a");
    await vi.waitFor(() => expect(first.app.isLeader()).toBe(true), { timeout: 5000 });
    const second = start(server, "virt-controller-b");
    expect((await getJSON(second.app, "/leader")).body).toEqual({ apiserver: { leader: "false" } });
    const health = await getJSON(second.app, "/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ apiserver: { connectivity: "ok" } });

    first.stop.abort();
    await vi.waitFor(() => expect(second.app.isLeader()).toBe(true), { timeout: 5000 });
    server.seed(Tables.vms, vmFixture("after-failover", { runStrategy: "Always" }));
    await vi.waitFor(() => expect(server.list<Pod>(Tables.pods)).toHaveLength(1), { timeout: 5000 });
  });
});
