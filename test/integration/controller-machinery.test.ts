import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { KubeClient, type ResourceClient } from "../../pkg/controller/client.js";
import { EventRecorder, clientEventSink } from "../../pkg/controller/events.js";
import type { CoreEvent } from "../../pkg/controller/event-types.js";
import { coreGVR } from "../../pkg/controller/gvr.js";
import { resourceInformer } from "../../pkg/controller/informer.js";
import { LeaderElector } from "../../pkg/controller/leader-election.js";
import { LeaseLock } from "../../pkg/controller/lease-lock.js";
import { silentLogger } from "../../pkg/controller/log.js";
import { keyOf, type KubeObject } from "../../pkg/controller/object.js";
import { WorkQueue } from "../../pkg/controller/workqueue.js";
import { kubeConfig } from "./harness.js";

// The controller machinery against a real kube-apiserver (brought up by the integration global setup).

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

let client: KubeClient;
let configMaps: ResourceClient<ConfigMap>;
const namespace = `machinery-${randomBytes(3).toString("hex")}`;
const stop = new AbortController();

beforeAll(async () => {
  client = KubeClient.fromKubeConfig(await kubeConfig());
  configMaps = client.resource<ConfigMap>(coreGVR.configMaps);
  await client
    .resource(coreGVR.namespaces)
    .create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
});

afterAll(async () => {
  stop.abort();
  await client
    ?.resource(coreGVR.namespaces)
    .delete("", namespace)
    .catch(() => undefined);
});

const cm = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, labels: { suite: "machinery" } },
  data,
});

describe("informer + work queue on ConfigMaps", () => {
  it("sees create, update and delete, with old and new objects, and feeds a queue", async () => {
    await configMaps.create(cm("before-start", { a: "0" }));
    const informer = resourceInformer<ConfigMap>(client, coreGVR.configMaps, {
      namespace,
      labelSelector: "suite=machinery",
      logger: silentLogger,
    });
    const seen: string[] = [];
    informer.addEventHandler({
      add: (o) => seen.push(`add ${o.metadata?.name}`),
      update: (o, n) => seen.push(`update ${n.metadata?.name} ${o.data?.["a"]}->${n.data?.["a"]}`),
      delete: (o) => seen.push(`delete ${o.metadata?.name}`),
    });
    const queue = new WorkQueue<string>({ logger: silentLogger });
    const synced: string[] = [];
    informer.onChange((o) => queue.add(keyOf(o)));
    void informer.run(stop.signal);
    void queue.run(2, (key) => void synced.push(key), stop.signal);

    expect(await informer.waitForSync(stop.signal)).toBe(true);
    expect(informer.getByName(namespace, "before-start")?.kind).toBe("ConfigMap");

    await configMaps.create(cm("watched", { a: "1" }));
    await vi.waitFor(() => expect(seen).toContain("add watched"), { timeout: 10_000 });
    await configMaps.patch(namespace, "watched", "merge", { data: { a: "2" } });
    await vi.waitFor(() => expect(seen).toContain("update watched 1->2"), { timeout: 10_000 });
    await configMaps.delete(namespace, "watched");
    await vi.waitFor(() => expect(seen).toContain("delete watched"), { timeout: 10_000 });

    expect(seen[0]).toBe("add before-start");
    expect(informer.getByName(namespace, "watched")).toBeUndefined();
    await vi.waitFor(() => expect(synced).toContain(`${namespace}/watched`), { timeout: 10_000 });
  });
});

describe("leader election on a real Lease", () => {
  it("elects one of two candidates and hands over on release", async () => {
    const timings = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
    const leading = new Set<string>();
    const candidate = (id: string) => {
      const own = new AbortController();
      const elector = new LeaderElector({
        lock: new LeaseLock(client, namespace, "machinery-test", id),
        logger: silentLogger,
        ...timings,
        callbacks: {
          onStartedLeading: () => void leading.add(id),
          onStoppedLeading: () => void leading.delete(id),
        },
      });
      stop.signal.addEventListener("abort", () => own.abort());
      return { elector, own, done: elector.run(own.signal) };
    };

    const a = candidate("candidate-a");
    await vi.waitFor(() => expect(leading).toEqual(new Set(["candidate-a"])), { timeout: 10_000 });
    const b = candidate("candidate-b");
    await new Promise((r) => setTimeout(r, 2_000));
    expect(leading).toEqual(new Set(["candidate-a"]));
    expect(b.elector.getLeader()).toBe("candidate-a");

    const released = Date.now();
    a.own.abort();
    await a.done;
    await vi.waitFor(() => expect(leading).toEqual(new Set(["candidate-b"])), { timeout: 10_000 });
    // a release hands over within a couple of retry periods, well before the lease would have expired
    expect(Date.now() - released).toBeLessThan(timings.leaseDurationMs);

    const lease = await client
      .resource<KubeObject & { spec?: { holderIdentity?: string; leaseTransitions?: number } }>(
        coreGVR.leases,
      )
      .get(namespace, "machinery-test");
    expect(lease.spec).toMatchObject({ holderIdentity: "candidate-b", leaseTransitions: 1 });
    b.own.abort();
    await b.done;
  });
});

describe("event recorder", () => {
  it("creates an Event and counts a repeat on it", async () => {
    const subject = await configMaps.create(cm("event-subject", {}));
    const recorder = new EventRecorder(
      clientEventSink(client),
      { component: "machinery-test" },
      { logger: silentLogger },
    );
    recorder.event(subject, "Warning", "SyncFailed", "could not sync the thing");
    recorder.event(subject, "Warning", "SyncFailed", "could not sync the thing");
    await recorder.flush();

    const events = await client
      .resource<CoreEvent>(coreGVR.events)
      .list(namespace, { fieldSelector: `involvedObject.name=event-subject` });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      type: "Warning",
      reason: "SyncFailed",
      message: "could not sync the thing",
      count: 2,
      source: { component: "machinery-test" },
      involvedObject: { kind: "ConfigMap", name: "event-subject", namespace, uid: subject.metadata?.uid },
    });
    await recorder.shutdown();
  });
});
