import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Backoff } from "./backoff.js";
import { AdmissionError, type DeviceAllocation } from "./device-manager.js";
import { FakeKubeClient } from "./fake-kube-client.js";
import { objectSource } from "./kube-client.js";
import { FakePodRuntime } from "./fake-pod-runtime.js";
import type { ContainerStatus, Pod } from "./k8s-types.js";
import { silentLogger } from "./logger.js";
import { PodDNSConfigurer } from "./pod-dns.js";
import { PodStateStore } from "./pod-state-store.js";
import { PodWorker, RETRY_MS, type DeviceAllocator, type PodWorkerDeps } from "./pod-worker.js";
import { ServiceAccountTokens } from "./service-account-tokens.js";
import type { ProbeRunner } from "./probe-runner.js";

// The per-pod lifecycle against a fake runtime and a fake apiserver, one sync at a time, with a clock
// the test moves.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

class StubDevices implements DeviceAllocator {
  readonly calls: string[] = [];
  available = 1;
  async allocate(pod: string, container: string, resource: string, count: number): Promise<DeviceAllocation> {
    this.calls.push(`${pod}/${container}/${resource}x${count}`);
    if (count > this.available) {
      throw new AdmissionError(
        "UnexpectedAdmissionError",
        `Allocate failed due to requested number of devices unavailable for ${resource}. Requested: ${count}, Available: ${this.available}, which is unexpected`,
      );
    }
    return {
      resource,
      deviceIDs: ["tun0"],
      response: {
        envs: { TUN: "tun0" },
        mounts: [],
        devices: [{ container_path: "/dev/net/tun", host_path: "/dev/net/tun", permissions: "rw" }],
        annotations: {},
      },
    };
  }
  async preStart(): Promise<void> {}
  restore(): void {}
  release(pod: string): void {
    this.calls.push(`release ${pod}`);
  }
}

async function harness(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  const client = new FakeKubeClient();
  const runtime = new FakePodRuntime();
  const clock = { t: Date.parse("2025-01-01T00:00:00Z") };
  const now = () => new Date(clock.t);
  runtime.now = now;
  client.clock = () => clock.t;
  const dir = await mkdtemp(path.join(os.tmpdir(), "kvts-worker-"));
  dirs.push(dir);
  const devices = new StubDevices();
  const probeResults = { ready: false };
  const probeRunner: ProbeRunner = async () => ({ success: probeResults.ready, message: "not yet" });
  const enqueued: (number | undefined)[] = [];
  const deps: PodWorkerDeps = {
    nodeName: "node01",
    nodeIP: "10.244.1.1",
    client,
    runtime,
    devices,
    tokens: new ServiceAccountTokens(client, () => clock.t),
    objects: objectSource(client),
    probeRunner,
    dns: new PodDNSConfigurer({ clusterDNS: ["10.96.0.10"], clusterDomain: "cluster.local", resolvConf: "" }),
    events: { record: () => {} },
    store: new PodStateStore(path.join(dir, "pods")),
    allocatable: () => ({ cpu: 2, memory: 2 ** 30, "ephemeral-storage": 2 ** 34 }),
    apiService: { host: "10.96.0.1", port: 443 },
    crashBackoff: new Backoff(10_000, 300_000, () => clock.t),
    imageBackoff: new Backoff(10_000, 300_000, () => clock.t),
    enqueue: (_uid, afterMs) => enqueued.push(afterMs),
    log: silentLogger(),
    now,
  };
  client.putPod({
    metadata: { name: "web", namespace: "apps", uid: "uid-1", ...metadata },
    spec: { nodeName: "node01", ...spec },
    status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True" }] },
  });
  const current = async (): Promise<Pod | undefined> => client.getPod("apps", "web");
  const worker = new PodWorker((await current()) as Pod, deps);
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const sync = async () => {
    await settle();
    return worker.sync(await current());
  };
  const status = async () => (await current())?.status;
  const container = async (name: string): Promise<ContainerStatus | undefined> => {
    const s = await status();
    return [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? [])].find(
      (c) => c.name === name,
    );
  };
  const condition = async (type: string) => (await status())?.conditions?.find((c) => c.type === type);
  return {
    client,
    runtime,
    clock,
    worker,
    sync,
    status,
    container,
    condition,
    devices,
    probeResults,
    enqueued,
    deps,
    dir,
  };
}

const busybox = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: "busybox",
  command: ["sleep", "3600"],
  ...extra,
});

describe("PodWorker", () => {
  it("reports a failed sandbox as kubelet does and tries again only after the back-off", async () => {
    const h = await harness({ containers: [busybox("app")] });
    const events: string[] = [];
    h.deps.events = { record: (_pod, type, reason, message) => events.push(`${type} ${reason}: ${message}`) };
    h.runtime.sandboxFailure = new Error('plugin type="multus" failed (add): no such network');
    expect(await h.sync()).toEqual({ requeueAfterMs: RETRY_MS });
    expect(events).toEqual([
      'Warning FailedCreatePodSandBox: Failed to create pod sandbox: plugin type="multus" failed (add): no such network',
    ]);
    expect(await h.container("app")).toMatchObject({ state: { waiting: { reason: "ContainerCreating" } } });
    // a sync the pod's own status change causes does not run the plugins again
    h.clock.t += 3_000;
    expect(await h.sync()).toMatchObject({ requeueAfterMs: RETRY_MS - 3_000 });
    expect(h.runtime.sandboxAttempts).toBe(1);
    h.clock.t += RETRY_MS - 3_000;
    await h.sync();
    expect(h.runtime.sandboxAttempts).toBe(2);
    h.runtime.sandboxFailure = undefined;
    h.clock.t += RETRY_MS;
    await h.sync();
    expect(h.runtime.sandboxAttempts).toBe(3);
    expect(h.runtime.running("app")).toBeDefined();
  });

  it("runs a pod: sandbox IP, started container, Running and Ready", async () => {
    const h = await harness({
      containers: [
        busybox("app", { env: [{ name: "WHO", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }] }),
      ],
    });
    await h.sync();
    const proc = h.runtime.running("app");
    expect(proc?.request).toMatchObject({
      pod: { uid: "uid-1", namespace: "apps", name: "web" },
      attempt: 0,
      command: ["sleep", "3600"],
      image: { image: "busybox", imageID: "kvts-image://busybox" },
    });
    expect(proc?.request.env).toMatchObject({ WHO: "10.244.1.10", KUBERNETES_SERVICE_HOST: "10.96.0.1" });
    expect(await h.status()).toMatchObject({
      phase: "Running",
      podIP: "10.244.1.10",
      podIPs: [{ ip: "10.244.1.10" }],
      hostIP: "10.244.1.1",
      startTime: "2025-01-01T00:00:00Z",
    });
    expect(await h.container("app")).toMatchObject({
      state: { running: { startedAt: "2025-01-01T00:00:00Z" } },
      ready: true,
      started: true,
      restartCount: 0,
      containerID: `kvts://${proc?.id}`,
      imageID: "kvts-image://busybox",
    });
    // The status patch merges conditions by type: the scheduler's PodScheduled stays first.
    expect((await h.status())?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      "PodScheduled=True",
      "PodReadyToStartContainers=True",
      "Initialized=True",
      "Ready=True",
      "ContainersReady=True",
    ]);
  });

  it("runs init containers one after another to completion before the containers", async () => {
    const h = await harness({
      initContainers: [busybox("init1"), busybox("init2")],
      containers: [busybox("app")],
    });
    await h.sync();
    expect(h.runtime.processes.map((p) => p.request.name)).toEqual(["init1"]);
    expect(await h.container("app")).toMatchObject({ state: { waiting: { reason: "PodInitializing" } } });
    expect(await h.condition("Initialized")).toMatchObject({
      status: "False",
      reason: "ContainersNotInitialized",
      message: "containers with incomplete status: [init1 init2]",
    });
    h.runtime.exit("init1", 0);
    await h.sync();
    expect(h.runtime.processes.map((p) => p.request.name)).toEqual(["init1", "init2"]);
    h.runtime.exit("init2", 0);
    await h.sync();
    expect(h.runtime.running("app")).toBeDefined();
    expect(await h.container("init2")).toMatchObject({
      state: { terminated: { exitCode: 0, reason: "Completed" } },
      ready: true,
    });
    expect(await h.condition("Initialized")).toMatchObject({ status: "True" });
    expect((await h.status())?.phase).toBe("Running");
  });

  it("restarts a crashing container with kubelet's back-off and a growing restartCount", async () => {
    const h = await harness({ containers: [busybox("app")] });
    await h.sync();
    h.runtime.exit("app", 1);
    await h.sync(); // the first restart is immediate
    expect(await h.container("app")).toMatchObject({
      restartCount: 1,
      state: { running: {} },
      lastState: { terminated: { exitCode: 1, reason: "Error" } },
    });
    h.clock.t += 1000;
    h.runtime.exit("app", 2);
    const outcome = await h.sync();
    expect(outcome.requeueAfterMs).toBe(10_000);
    expect(await h.container("app")).toMatchObject({
      restartCount: 1,
      state: {
        waiting: {
          reason: "CrashLoopBackOff",
          message: "back-off 10s restarting failed container=app pod=web_apps(uid-1)",
        },
      },
      lastState: { terminated: { exitCode: 2 } },
      ready: false,
    });
    expect((await h.status())?.phase).toBe("Running");
    h.clock.t += 10_000;
    await h.sync();
    expect(await h.container("app")).toMatchObject({ restartCount: 2, state: { running: {} } });
    expect(h.runtime.running("app")?.request.attempt).toBe(2);
    h.runtime.exit("app", 1);
    expect((await h.sync()).requeueAfterMs).toBe(20_000);
  });

  it.each([
    ["OnFailure", 0, "Succeeded", "Completed"],
    ["Never", 1, "Failed", "Error"],
    ["Never", 0, "Succeeded", "Completed"],
  ])("under restartPolicy %s an exit %d ends the pod %s", async (restartPolicy, code, phase, reason) => {
    const h = await harness({ restartPolicy, containers: [busybox("app")] });
    await h.sync();
    h.runtime.exit("app", code);
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: { terminated: { exitCode: code, reason } },
      restartCount: 0,
    });
    expect((await h.status())?.phase).toBe(phase);
    expect(h.runtime.stoppedSandboxes).toEqual(["uid-1"]);
    await h.sync();
    expect(h.runtime.processes).toHaveLength(1);
  });

  it("reports an unknown image as ErrImagePull, then ImagePullBackOff, and retries after the back-off", async () => {
    const h = await harness({ containers: [busybox("app", { image: "example.com/nope:1" })] });
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: {
        waiting: {
          reason: "ErrImagePull",
          message: 'failed to pull image "example.com/nope:1": not in the kubevirt-ts image store',
        },
      },
    });
    expect((await h.status())?.phase).toBe("Pending");
    h.clock.t += 1000;
    const outcome = await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: {
        waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "example.com/nope:1"' },
      },
    });
    expect(outcome.requeueAfterMs).toBe(9000);
    h.clock.t += 9000;
    await h.sync();
    expect((await h.container("app"))?.state?.waiting?.reason).toBe("ErrImagePull");
  });

  it("reports a missing ConfigMap key as CreateContainerConfigError and starts once it exists", async () => {
    const h = await harness({
      containers: [
        busybox("app", {
          env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "cfg", key: "mode" } } }],
        }),
      ],
    });
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: { waiting: { reason: "CreateContainerConfigError", message: 'configmap "cfg" not found' } },
    });
    h.client.addConfigMap("apps", "cfg", { mode: "fast" });
    await h.sync();
    expect(h.runtime.running("app")?.request.env.MODE).toBe("fast");
  });

  it("reports a command that cannot start as RunContainerError, then backs off with a StartError", async () => {
    const h = await harness({ containers: [busybox("app", { command: ["/does/not/exist"] })] });
    const first = await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: {
        waiting: {
          reason: "RunContainerError",
          message: expect.stringContaining("no such file or directory"),
        },
      },
    });
    expect(first.requeueAfterMs).toBe(0);
    await h.sync(); // the first retry is immediate, and fails the same way
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      restartCount: 1,
      state: { waiting: { reason: "CrashLoopBackOff" } },
      lastState: { terminated: { exitCode: 128, reason: "StartError" } },
    });
  });

  it("fails a pod whose command cannot start under restartPolicy Never", async () => {
    const h = await harness({
      restartPolicy: "Never",
      containers: [busybox("app", { command: ["/does/not/exist"] })],
    });
    await h.sync();
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: { terminated: { exitCode: 128, reason: "StartError" } },
    });
    expect((await h.status())?.phase).toBe("Failed");
  });

  it("refuses volume types it does not support with a container status, not a hang", async () => {
    const h = await harness({
      containers: [busybox("app")],
      volumes: [{ name: "data", nfs: { server: "nfs.example", path: "/export" } }],
    });
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: {
        waiting: {
          reason: "CreateContainerConfigError",
          message: expect.stringContaining('volume "data" has type nfs'),
        },
      },
    });
    expect(h.runtime.processes).toHaveLength(0);
  });

  it("keeps a pod whose claim is not bound in ContainerCreating, and starts it once the claim binds", async () => {
    const h = await harness({
      containers: [busybox("app", { volumeMounts: [{ name: "data", mountPath: "/data" }] })],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "pvc" } }],
    });
    h.client.addPersistentVolumeClaim("apps", "pvc");
    await h.sync();
    expect(await h.container("app")).toMatchObject({
      state: {
        waiting: {
          reason: "ContainerCreating",
          message: expect.stringContaining("error processing PVC apps/pvc: PVC is not bound"),
        },
      },
    });
    expect(h.runtime.processes).toHaveLength(0);
    h.client.addPersistentVolumeClaim("apps", "pvc", "pv-1");
    h.client.addPersistentVolume("pv-1", { hostPath: { path: "/srv/pv-1" }, claimRef: { uid: "pvc-pvc" } });
    h.clock.t += 2000;
    await h.sync();
    expect(h.runtime.running("app")?.request.mounts).toEqual([
      { volume: "data", mountPath: "/data", readOnly: false },
    ]);
    expect(h.runtime.volumes.get("uid-1")?.[0]?.source).toMatchObject({
      kind: "persistentVolume",
      path: "/srv/pv-1",
    });
  });

  it("hands a Block claim's device to the container at its devicePath", async () => {
    const h = await harness({
      containers: [busybox("app", { volumeDevices: [{ name: "disk", devicePath: "/dev/bootdisk" }] })],
      volumes: [{ name: "disk", persistentVolumeClaim: { claimName: "boot" } }],
    });
    h.client.addPersistentVolumeClaim("apps", "boot", "pv-block");
    h.client.addPersistentVolume("pv-block", {
      local: { path: "/dev/loop3" },
      volumeMode: "Block",
      claimRef: { uid: "pvc-boot" },
    });
    await h.sync();
    expect(h.runtime.running("app")?.request.volumeDevices).toEqual([
      { volume: "disk", devicePath: "/dev/bootdisk" },
    ]);
    expect(h.runtime.volumes.get("uid-1")?.[0]?.source).toMatchObject({
      volumeMode: "Block",
      path: "/dev/loop3",
    });
  });

  it("holds Ready until the readiness probe passes", async () => {
    const h = await harness({
      containers: [busybox("app", { readinessProbe: { exec: { command: ["true"] }, periodSeconds: 1 } })],
    });
    await h.sync();
    expect(await h.condition("Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
    h.probeResults.ready = true;
    await new Promise((r) => setTimeout(r, 1100));
    expect(h.enqueued.length).toBeGreaterThan(0);
    await h.sync();
    // Ready=True keeps nothing of the not-ready condition the status patch merged into.
    const ready = await h.condition("Ready");
    expect(ready).toMatchObject({ status: "True" });
    expect(ready).not.toHaveProperty("reason");
    expect(ready).not.toHaveProperty("message");
    await h.worker.sync(undefined); // the pod vanished: stops the probes with the container
  });

  it("on deletion stops containers with the grace period, cleans up and deletes the pod with its UID", async () => {
    const h = await harness({
      terminationGracePeriodSeconds: 5,
      containers: [busybox("app"), busybox("sidecar")],
    });
    await h.sync();
    h.runtime.stubborn.add("sidecar");
    const pod = h.client.pod("apps", "web") as Record<string, Record<string, unknown>>;
    h.client.putPod({
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: "2025-01-01T00:01:00Z", deletionGracePeriodSeconds: 1 },
    });
    const started = Date.now();
    const outcome = await h.sync();
    expect(outcome).toEqual({ requeueAfterMs: 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900); // the 2 s minimum for the stubborn one
    expect(h.runtime.stops.map((s) => s.graceMs)).toEqual([2000, 2000]);
    expect(h.runtime.removed).toEqual(["uid-1"]);
    expect(h.client.writes("delete", "pod/apps/web")).toEqual([
      {
        verb: "delete",
        target: "pod/apps/web",
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          gracePeriodSeconds: 0,
          preconditions: { uid: "uid-1" },
        },
      },
    ]);
    expect(h.client.pod("apps", "web")).toBeUndefined();
    const final = h.client.writes("patch-status", "pod/apps/web").at(-1)?.body as {
      status: { containerStatuses: ContainerStatus[] };
    };
    expect(final.status.containerStatuses.map((c) => c.state?.terminated?.exitCode)).toEqual([143, 137]);
    // Once the informer no longer has the pod, the worker is done.
    expect(await h.sync()).toEqual({ done: true });
  });

  it("keeps asking for the deletion while the pod object remains, without starting anything again", async () => {
    const h = await harness({ containers: [busybox("app")] });
    await h.sync();
    h.client.ignoreDeletes = true;
    const pod = h.client.pod("apps", "web") as Record<string, Record<string, unknown>>;
    h.client.putPod({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: "2025-01-01T00:01:00Z" } });
    await h.sync();
    const statusWrites = h.client.writes("patch-status").length;
    expect(await h.sync()).toEqual({ requeueAfterMs: 10_000 });
    expect(h.client.writes("delete", "pod/apps/web")).toHaveLength(2);
    expect(h.client.writes("patch-status")).toHaveLength(statusWrites);
    expect(h.runtime.processes).toHaveLength(1);
  });

  it("allocates device plugin resources and hands the devices and envs to the container", async () => {
    const h = await harness({
      containers: [busybox("compute", { resources: { limits: { "devices.kubevirt.io/tun": "1" } } })],
    });
    await h.sync();
    expect(h.devices.calls).toEqual(["uid-1/compute/devices.kubevirt.io/tunx1"]);
    expect(h.runtime.running("compute")?.request).toMatchObject({
      env: { TUN: "tun0" },
      devices: [{ hostPath: "/dev/net/tun", containerPath: "/dev/net/tun", permissions: "rw" }],
    });
  });

  it("fails a pod whose devices cannot be allocated, with kubelet's reason", async () => {
    const h = await harness({
      containers: [busybox("compute", { resources: { limits: { "devices.kubevirt.io/tun": "2" } } })],
    });
    await h.sync();
    expect(await h.status()).toMatchObject({
      phase: "Failed",
      reason: "UnexpectedAdmissionError",
      message: expect.stringContaining("Requested: 2, Available: 1"),
    });
    expect(h.runtime.processes).toHaveLength(0);
  });
});

describe("PodWorker with sidecars (restartable init containers)", () => {
  const sidecar = (name: string, extra: Record<string, unknown> = {}) =>
    busybox(name, { restartPolicy: "Always", ...extra });
  const names = (h: { runtime: FakePodRuntime }) => h.runtime.processes.map((p) => p.request.name);

  it("starts the sidecar, then the next init container without waiting for it, and keeps it beside the app", async () => {
    const h = await harness({
      initContainers: [sidecar("log"), busybox("setup")],
      containers: [busybox("app")],
    });
    await h.sync();
    expect(names(h)).toEqual(["log", "setup"]);
    expect(await h.container("log")).toMatchObject({ state: { running: {} }, started: true, ready: true });
    expect(await h.container("app")).toMatchObject({ state: { waiting: { reason: "PodInitializing" } } });
    expect(await h.condition("Initialized")).toMatchObject({
      status: "False",
      message: "containers with incomplete status: [setup]",
    });
    const sidecarId = h.runtime.running("log")?.id;
    h.runtime.exit("setup", 0);
    await h.sync();
    expect(names(h)).toEqual(["log", "setup", "app"]);
    expect(h.runtime.running("log")?.id).toBe(sidecarId);
    expect((await h.status())?.initContainerStatuses?.map((c) => [c.name, c.started, c.ready])).toEqual([
      ["log", true, true],
      ["setup", false, true],
    ]);
    expect((await h.status())?.phase).toBe("Running");
    expect(await h.condition("Ready")).toMatchObject({ status: "True" });
  });

  it("holds the next init container until the sidecar's startup probe passes", async () => {
    const h = await harness({
      initContainers: [
        sidecar("log", {
          startupProbe: { exec: { command: ["true"] }, periodSeconds: 1, failureThreshold: 30 },
        }),
        busybox("setup"),
      ],
      containers: [busybox("app")],
    });
    await h.sync();
    await h.sync();
    expect(names(h)).toEqual(["log"]);
    expect(await h.container("log")).toMatchObject({ state: { running: {} }, started: false, ready: false });
    h.probeResults.ready = true;
    await new Promise((r) => setTimeout(r, 1100));
    await h.sync();
    expect(names(h)).toEqual(["log", "setup"]);
    expect(await h.container("log")).toMatchObject({ started: true });
    await h.worker.sync(undefined); // stops the probes with the pod
  });

  it("restarts a sidecar that exits, even under restartPolicy Never, without holding up the app", async () => {
    const h = await harness({
      restartPolicy: "Never",
      initContainers: [sidecar("log")],
      containers: [busybox("app")],
    });
    await h.sync();
    expect(names(h)).toEqual(["log", "app"]);
    h.runtime.exit("log", 0);
    await h.sync();
    expect(await h.container("log")).toMatchObject({
      restartCount: 1,
      state: { running: {} },
      lastState: { terminated: { exitCode: 0, reason: "Completed" } },
    });
    h.clock.t += 1000;
    h.runtime.exit("log", 1);
    const outcome = await h.sync();
    expect(outcome.requeueAfterMs).toBe(10_000);
    expect(await h.container("log")).toMatchObject({ state: { waiting: { reason: "CrashLoopBackOff" } } });
    expect((await h.status())?.phase).toBe("Running");
    h.clock.t += 10_000;
    await h.sync();
    expect(await h.container("log")).toMatchObject({ restartCount: 2, state: { running: {} } });
  });

  it("ends the pod when its main containers complete, and stops the sidecars then", async () => {
    const h = await harness({
      restartPolicy: "Never",
      initContainers: [sidecar("log")],
      containers: [busybox("app")],
    });
    await h.sync();
    const sidecarId = h.runtime.running("log")?.id;
    h.runtime.exit("app", 0);
    await h.sync();
    expect((await h.status())?.phase).toBe("Succeeded");
    expect(h.runtime.stops.map((s) => s.id)).toEqual([sidecarId]);
    expect(h.runtime.running("log")).toBeUndefined();
    await h.sync();
    expect(names(h)).toEqual(["log", "app"]);
  });

  it("on deletion stops the main containers first, then the sidecars, last declared first", async () => {
    const h = await harness({
      initContainers: [sidecar("first"), sidecar("second")],
      containers: [busybox("app")],
    });
    await h.sync();
    const nameOf = (id: string) => h.runtime.processes.find((p) => p.id === id)?.request.name;
    const pod = h.client.pod("apps", "web") as Record<string, Record<string, unknown>>;
    h.client.putPod({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: "2025-01-01T00:01:00Z" } });
    await h.sync();
    expect(h.runtime.stops.map((s) => nameOf(s.id))).toEqual(["app", "second", "first"]);
    expect(h.runtime.removed).toEqual(["uid-1"]);
  });
});
