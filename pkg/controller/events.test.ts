import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./api-error.js";
import type { CoreEvent, EventCountPatch } from "./event-types.js";
import { EventRecorder, referenceOf, type EventSink } from "./events.js";
import { silentLogger } from "./log.js";

const vm = {
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  metadata: { name: "testvm", namespace: "ns1", uid: "uid-1", resourceVersion: "42" },
};

/** An apiserver stand-in keeping Events by name; failures can be scripted per call. */
class FakeEventSink implements EventSink {
  readonly stored = new Map<string, CoreEvent>();
  readonly calls: string[] = [];
  failures: unknown[] = [];
  private rv = 0;

  private failNext(): void {
    const failure = this.failures.shift();
    if (failure) throw failure;
  }

  async create(event: CoreEvent): Promise<CoreEvent> {
    this.calls.push(`create ${event.metadata.name}`);
    this.failNext();
    if (this.stored.has(event.metadata.name)) throw new ApiError(409, "AlreadyExists", "exists");
    const saved = { ...event, metadata: { ...event.metadata, resourceVersion: String(++this.rv) } };
    this.stored.set(event.metadata.name, saved);
    return saved;
  }

  async patch(_namespace: string, name: string, patch: EventCountPatch): Promise<CoreEvent> {
    this.calls.push(`patch ${name}`);
    this.failNext();
    const existing = this.stored.get(name);
    if (!existing) throw new ApiError(404, "NotFound", "not found");
    const saved = {
      ...existing,
      ...patch,
      metadata: { ...existing.metadata, resourceVersion: String(++this.rv) },
    };
    this.stored.set(name, saved);
    return saved;
  }
}

describe("EventRecorder", () => {
  let sink: FakeEventSink;
  let recorder: EventRecorder;

  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse("2025-03-01T12:00:00Z") });
    sink = new FakeEventSink();
    recorder = new EventRecorder(
      sink,
      { component: "virt-controller", host: "node01" },
      { logger: silentLogger },
    );
  });
  afterEach(() => vi.useRealTimers());

  it("creates a core/v1 Event describing the object, in the object's namespace", async () => {
    recorder.event(
      vm,
      "Normal",
      "SuccessfulCreate",
      "Started the virtual machine by creating the new virtual machine instance testvm",
    );
    await recorder.flush();
    const [event] = [...sink.stored.values()];
    expect(event).toMatchObject({
      apiVersion: "v1",
      kind: "Event",
      metadata: { namespace: "ns1" },
      involvedObject: {
        kind: "VirtualMachine",
        apiVersion: "kubevirt.io/v1",
        name: "testvm",
        namespace: "ns1",
        uid: "uid-1",
        resourceVersion: "42",
      },
      type: "Normal",
      reason: "SuccessfulCreate",
      source: { component: "virt-controller", host: "node01" },
      reportingComponent: "virt-controller",
      reportingInstance: "node01",
      count: 1,
      firstTimestamp: "2025-03-01T12:00:00Z",
      lastTimestamp: "2025-03-01T12:00:00Z",
    });
    expect(event?.metadata.name).toMatch(/^testvm\.[0-9a-f]+$/);
  });

  it("counts identical events on one Event object", async () => {
    recorder.event(vm, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush();
    vi.setSystemTime(Date.parse("2025-03-01T12:00:30Z"));
    recorder.event(vm, "Warning", "FailedCreate", "quota exceeded");
    recorder.event(vm, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush();
    expect(sink.stored.size).toBe(1);
    expect([...sink.stored.values()][0]).toMatchObject({ count: 3, lastTimestamp: "2025-03-01T12:00:30Z" });
    expect(sink.calls.map((c) => c.split(" ")[0])).toEqual(["create", "patch", "patch"]);
  });

  it("re-creates the Event when the one to patch is gone from the server", async () => {
    recorder.event(vm, "Normal", "Started", "started");
    await recorder.flush();
    sink.stored.clear();
    recorder.event(vm, "Normal", "Started", "started");
    await recorder.flush();
    expect(sink.calls.map((c) => c.split(" ")[0])).toEqual(["create", "patch", "create"]);
    expect([...sink.stored.values()][0]?.count).toBe(2);
  });

  it("retries on connection failures with a pause, but not on server refusals", async () => {
    sink.failures = [new Error("ECONNREFUSED"), new Error("ECONNREFUSED")];
    recorder.event(vm, "Normal", "A", "a");
    const flushed = recorder.flush();
    await vi.advanceTimersByTimeAsync(20_000);
    await flushed;
    expect(sink.calls).toHaveLength(3);
    expect(sink.stored.size).toBe(1);

    sink.failures = [new ApiError(403, "Forbidden", "events is forbidden")];
    recorder.event(vm, "Normal", "B", "b");
    await recorder.flush();
    expect(sink.calls).toHaveLength(4);
    expect(sink.stored.size).toBe(1);
  });

  it("gives up after 12 attempts", async () => {
    sink.failures = Array.from({ length: 20 }, () => new Error("down"));
    recorder.event(vm, "Normal", "A", "a");
    const flushed = recorder.flush();
    await vi.advanceTimersByTimeAsync(200_000);
    await flushed;
    expect(sink.calls).toHaveLength(12);
  });

  it("drops events beyond the queue bound instead of growing without limit", async () => {
    const bounded = new EventRecorder(sink, { component: "c" }, { logger: silentLogger, maxQueuedEvents: 3 });
    for (let i = 0; i < 10; i++) bounded.event(vm, "Normal", `R${i}`, "m");
    await bounded.flush();
    // the first is taken by the writer at once, three more fit in the queue
    expect(sink.stored.size).toBe(4);
  });

  it("ignores objects it cannot reference and unknown event types", async () => {
    recorder.event({ metadata: { name: "x" } }, "Normal", "R", "m");
    recorder.event(vm, "Error" as "Normal", "R", "m");
    await recorder.flush();
    expect(sink.calls).toEqual([]);
  });

  it("stops accepting events on shutdown and abandons retry waits", async () => {
    sink.failures = Array.from({ length: 20 }, () => new Error("down"));
    recorder.event(vm, "Normal", "A", "a");
    await vi.advanceTimersByTimeAsync(0);
    await recorder.shutdown();
    recorder.event(vm, "Normal", "B", "b");
    await recorder.flush();
    expect(sink.calls).toHaveLength(1);
  });
});

describe("referenceOf", () => {
  it("omits empty fields", () => {
    expect(
      referenceOf({ apiVersion: "v1", kind: "Node", metadata: { name: "node01", namespace: "" } }),
    ).toEqual({
      apiVersion: "v1",
      kind: "Node",
      name: "node01",
    });
  });
});
