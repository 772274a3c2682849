import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Backoff } from "./backoff.js";
import { FakeKubeClient } from "./fake-kube-client.js";
import { objectSource } from "./kube-client.js";
import { FakePodRuntime } from "./fake-pod-runtime.js";
import { LogLookupError } from "./kubelet-server.js";
import { silentLogger } from "./logger.js";
import { PodDNSConfigurer } from "./pod-dns.js";
import { PodManager, type WorkerDeps } from "./pod-manager.js";
import { nodePodInformer } from "./pod-source.js";
import { PodStateStore, type PodState } from "./pod-state-store.js";
import type { ContainerProcess, ExitStatus } from "./pod-runtime.js";
import { ServiceAccountTokens } from "./service-account-tokens.js";

// The node's pod manager end to end over the fake apiserver's watch, and its take-over of what an
// earlier agent run left behind.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function pod(uid: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    metadata: { name, namespace: "default", uid },
    spec: {
      nodeName: "node01",
      containers: [{ name: "app", image: "busybox", command: ["sleep", "1d"] }],
      ...extra,
    },
    status: { phase: "Pending" },
  };
}

async function setup(client = new FakeKubeClient(), runtime = new FakePodRuntime()) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "kvts-manager-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const store = new PodStateStore(path.join(dir, "pods"));
  const log = silentLogger();
  const informer = nodePodInformer(client, "node01", log);
  const deps: WorkerDeps = {
    nodeName: "node01",
    nodeIP: "10.244.1.1",
    client,
    runtime,
    devices: {
      allocate: async () => Promise.reject(new Error("none")),
      preStart: async () => {},
      restore: () => {},
      release: () => {},
    },
    tokens: new ServiceAccountTokens(client),
    objects: objectSource(client),
    probeRunner: async () => ({ success: true, message: "" }),
    dns: new PodDNSConfigurer({ clusterDNS: ["10.96.0.10"], clusterDomain: "cluster.local", resolvConf: "" }),
    events: { record: () => {} },
    store,
    allocatable: () => ({ cpu: 1, memory: 1, "ephemeral-storage": 1 }),
    apiService: { host: "10.96.0.1", port: 443 },
    crashBackoff: new Backoff(),
    imageBackoff: new Backoff(),
    log,
  };
  const manager = new PodManager(informer, runtime, store, deps, log);
  const abort = new AbortController();
  cleanups.push(() => {
    abort.abort();
    manager.stop();
  });
  return { client, runtime, store, informer, manager, abort };
}

/** Runs the informer until the test ends and waits for its first list, as the agent does before adopting. */
async function syncInformer(h: Awaited<ReturnType<typeof setup>>): Promise<void> {
  void h.informer.run(h.abort.signal);
  expect(await h.informer.waitForSync(h.abort.signal)).toBe(true);
}

function liveProcess(id: string): ContainerProcess {
  return {
    id,
    pid: 4242,
    startedAt: new Date("2025-01-01T00:00:00Z"),
    exited: new Promise<ExitStatus>(() => {}),
  };
}

function state(uid: string, name: string, containerID: string, restartCount: number): PodState {
  return {
    uid,
    namespace: "default",
    name,
    startTime: "2025-01-01T00:00:00Z",
    podIPs: ["10.244.1.50"],
    allocations: {},
    containers: [
      {
        name: "app",
        image: "busybox",
        imageID: "kvts-image://busybox",
        restartCount,
        everStarted: true,
        running: {
          containerID: `kvts://${containerID}`,
          startedAt: "2025-01-01T00:00:00Z",
          attempt: restartCount,
        },
      },
    ],
  };
}

describe("PodManager", () => {
  it("runs pods bound to the node as they appear, and deletes them once their containers stopped", async () => {
    const h = await setup();
    await syncInformer(h);
    await h.manager.adopt();
    h.manager.start(h.abort.signal);
    h.client.putPod(pod("u1", "web"));
    await vi.waitFor(() => expect(h.runtime.running("app")).toBeDefined());
    await h.manager.idle();
    expect((await h.client.getPod("default", "web"))?.status?.phase).toBe("Running");

    const logs = h.manager.locate("default", "web", "app", false);
    expect(logs.path).toBe("/nonexistent/var/log/pods/default_web_u1/app/0.log");
    expect(logs.isRunning()).toBe(true);
    expect(() => h.manager.locate("default", "web", "app", true)).toThrow(
      new LogLookupError(400, 'previous terminated container "app" in pod "web" not found'),
    );

    const stored = h.client.pod("default", "web") as Record<string, Record<string, unknown>>;
    h.client.putPod({
      ...stored,
      metadata: {
        ...stored.metadata,
        deletionTimestamp: "2025-01-01T00:00:00Z",
        deletionGracePeriodSeconds: 0,
      },
    });
    await vi.waitFor(() => expect(h.client.pod("default", "web")).toBeUndefined(), { timeout: 5000 });
    expect(h.runtime.removed).toEqual(["u1"]);
    expect(await h.store.loadAll()).toEqual([]);
  });

  it("after a restart adopts surviving pods with their processes and counts, and removes what has no pod", async () => {
    const client = new FakeKubeClient();
    const runtime = new FakePodRuntime();
    client.putPod(pod("kept", "kept"));
    client.putPod(pod("died", "died"));
    const h = await setup(client, runtime);
    await h.store.save(state("kept", "kept", "old-1", 3));
    await h.store.save(state("died", "died", "old-2", 1));
    await h.store.save(state("gone", "gone", "old-3", 0));
    runtime.recovered = [
      {
        pod: { uid: "kept", namespace: "default", name: "kept" },
        name: "app",
        attempt: 3,
        id: "old-1",
        process: liveProcess("old-1"),
      },
      {
        pod: { uid: "died", namespace: "default", name: "died" },
        name: "app",
        attempt: 1,
        id: "old-2",
        exit: { exitCode: 1, finishedAt: new Date() },
      },
      {
        pod: { uid: "gone", namespace: "default", name: "gone" },
        name: "app",
        attempt: 0,
        id: "old-3",
        process: liveProcess("old-3"),
      },
      {
        pod: { uid: "stray", namespace: "default", name: "stray" },
        name: "app",
        attempt: 0,
        id: "old-4",
        process: liveProcess("old-4"),
      },
    ];
    runtime.recoveredPods = [{ uid: "empty", namespace: "default", name: "empty" }];

    await syncInformer(h);
    const result = await h.manager.adopt();
    h.manager.start(h.abort.signal);
    expect(result.adopted.sort()).toEqual(["died", "kept"]);
    expect(result.removed.sort()).toEqual(["empty", "gone", "stray"]);
    expect(runtime.stops.map((s) => s.id).sort()).toEqual(["old-3", "old-4"]);
    expect(runtime.removed.sort()).toEqual(["empty", "gone", "stray"]);
    await h.manager.idle();

    // The adopted process keeps running, with its restart count; nothing new was started for it.
    expect(await client.getPod("default", "kept")).toMatchObject({
      status: {
        containerStatuses: [
          { name: "app", restartCount: 3, state: { running: {} }, containerID: "kvts://old-1" },
        ],
      },
    });
    // The one that died while the agent was away was restarted as its next attempt.
    const restarted = runtime.running("app");
    expect(restarted?.request.pod.uid).toBe("died");
    expect(restarted?.request.attempt).toBe(2);
    expect(await client.getPod("default", "died")).toMatchObject({
      status: {
        containerStatuses: [
          { restartCount: 2, lastState: { terminated: { exitCode: 1, containerID: "kvts://old-2" } } },
        ],
      },
    });
    expect((await h.store.loadAll()).map((s) => s.uid).sort()).toEqual(["died", "kept"]);
  });
});
