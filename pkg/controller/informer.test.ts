import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./api-error.js";
import { NodeIndex, vmiByNode } from "./indexers.js";
import { Informer } from "./informer.js";
import { Selector } from "./label-selector.js";
import { silentLogger } from "./log.js";
import type { KubeObject } from "./object.js";
import { FakeListWatch } from "./testing/fake-list-watch.js";

interface VMI extends KubeObject {
  status?: { nodeName?: string };
}

const vmi = (name: string, rv: string, nodeName?: string, labels?: Record<string, string>): VMI => ({
  metadata: { name, namespace: "default", resourceVersion: rv, ...(labels ? { labels } : {}) },
  status: nodeName ? { nodeName } : {},
});

type Seen = string[];

function recordInto(informer: Informer<VMI>): Seen {
  const seen: Seen = [];
  informer.addEventHandler({
    add: (o) => seen.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    update: (o, n) =>
      seen.push(`update ${n.metadata?.name}@${o.metadata?.resourceVersion}->${n.metadata?.resourceVersion}`),
    delete: (o) => seen.push(`delete ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
  });
  return seen;
}

describe("Informer", () => {
  let source: FakeListWatch<VMI>;
  let informer: Informer<VMI>;
  let stop: AbortController;
  let running: Promise<void>;

  beforeEach(() => {
    vi.useFakeTimers();
    source = new FakeListWatch<VMI>();
    informer = new Informer(source, { indexers: { [NodeIndex]: vmiByNode }, logger: silentLogger });
    stop = new AbortController();
  });

  afterEach(async () => {
    stop.abort();
    await running;
    vi.useRealTimers();
  });

  async function start(): Promise<void> {
    running = informer.run(stop.signal);
    await source.untilWatching();
  }

  it("lists, reports synced, then watches from the list's resourceVersion", async () => {
    source.listResult = { items: [vmi("a", "10", "node01"), vmi("b", "11")], resourceVersion: "12" };
    const seen = recordInto(informer);
    expect(informer.hasSynced()).toBe(false);
    const synced = informer.waitForSync();
    await start();
    await expect(synced).resolves.toBe(true);
    expect(informer.hasSynced()).toBe(true);
    expect(seen).toEqual(["add a@10", "add b@11"]);
    expect(source.watchedFrom).toEqual(["12"]);
    expect(informer.getByName("default", "a")?.status?.nodeName).toBe("node01");
  });

  it("applies watch events to cache, indices and handlers, with old and new objects on update", async () => {
    source.listResult = { items: [vmi("a", "10", "node01")], resourceVersion: "10" };
    const seen = recordInto(informer);
    await start();
    source.emit("ADDED", vmi("b", "11", "node01"));
    source.emit("MODIFIED", vmi("a", "12", "node02"));
    expect(informer.byIndex(NodeIndex, "node01").map((o) => o.metadata?.name)).toEqual(["b"]);
    expect(informer.byIndex(NodeIndex, "node02").map((o) => o.metadata?.name)).toEqual(["a"]);
    source.emit("DELETED", vmi("b", "13", "node01"));
    expect(informer.byIndex(NodeIndex, "node01")).toEqual([]);
    expect(informer.get("default/b")).toBeUndefined();
    expect(seen).toEqual(["add a@10", "add b@11", "update a@10->12", "delete b@13"]);
    expect(informer.lastSyncResourceVersion()).toBe("13");
  });

  it.each([
    ["an ERROR event with 410 Expired", () => source.expire()],
    ["a watch refused with HTTP 410", () => source.endWatch(new ApiError(410, "Gone", "gone"))],
  ])("relists after %s, delivering what changed while disconnected", async (_name, expire) => {
    source.listResult = { items: [vmi("a", "10"), vmi("b", "11")], resourceVersion: "11" };
    const seen = recordInto(informer);
    await start();
    source.listResult = { items: [vmi("b", "20"), vmi("c", "21")], resourceVersion: "22" };
    expire();
    await vi.advanceTimersByTimeAsync(0);
    await source.untilWatching();
    expect(source.listCalls).toBe(2);
    expect(source.watchedFrom).toEqual(["11", "22"]);
    expect(seen.slice(2)).toEqual(["delete a@10", "update b@11->20", "add c@21"]);
    expect(informer.keys().sort()).toEqual(["default/b", "default/c"]);
  });

  it("resumes a normally closed watch from the last resourceVersion (bookmarks included) without relisting", async () => {
    source.listResult = { items: [], resourceVersion: "5" };
    await start();
    source.emit("BOOKMARK", { metadata: { resourceVersion: "42" } });
    await vi.advanceTimersByTimeAsync(5000);
    source.endWatch();
    await vi.advanceTimersByTimeAsync(0);
    await source.untilWatching();
    expect(source.watchedFrom).toEqual(["5", "42"]);
    expect(source.listCalls).toBe(1);
    expect(informer.list()).toEqual([]);
  });

  it("retries a failing list with growing backoff", async () => {
    source.listError = new Error("connection refused");
    running = informer.run(stop.signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(source.listCalls).toBe(1);
    expect(informer.hasSynced()).toBe(false);
    await vi.advanceTimersByTimeAsync(799);
    expect(source.listCalls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await source.untilWatching();
    expect(source.listCalls).toBe(2);
    expect(informer.hasSynced()).toBe(true);
  });

  it("backs off when the server keeps closing watches at once", async () => {
    await start();
    source.endWatch();
    await vi.advanceTimersByTimeAsync(0);
    expect(source.watching).toBe(false);
    await vi.advanceTimersByTimeAsync(800);
    expect(source.watching).toBe(true);
    source.endWatch();
    await vi.advanceTimersByTimeAsync(800);
    expect(source.watching).toBe(false);
    await vi.advanceTimersByTimeAsync(800);
    expect(source.watching).toBe(true);
  });

  it("keeps delivering to other handlers when one throws", async () => {
    informer.addEventHandler({
      add: () => {
        throw new Error("boom");
      },
    });
    const seen = recordInto(informer);
    await start();
    source.emit("ADDED", vmi("a", "2"));
    source.emit("ADDED", vmi("b", "3"));
    expect(seen).toEqual(["add a@2", "add b@3"]);
  });

  it("replays the cache to a handler registered late, and stops calling an unsubscribed one", async () => {
    source.listResult = { items: [vmi("a", "1")], resourceVersion: "1" };
    await start();
    const keys: string[] = [];
    const unsubscribe = informer.onChange((o) => keys.push(o.metadata?.name ?? ""));
    source.emit("MODIFIED", vmi("a", "2"));
    unsubscribe();
    source.emit("DELETED", vmi("a", "3"));
    expect(keys).toEqual(["a", "a"]);
  });

  it("answers label selector lookups from the cache", async () => {
    source.listResult = {
      items: [
        vmi("a", "1", undefined, { "kubevirt.io/vm": "x" }),
        vmi("b", "1", undefined, { "kubevirt.io/vm": "y" }),
      ],
      resourceVersion: "1",
    };
    await start();
    expect(
      informer.bySelector(Selector.fromLabels({ "kubevirt.io/vm": "y" })).map((o) => o.metadata?.name),
    ).toEqual(["b"]);
  });

  it("re-delivers every object as an update each resync period", async () => {
    informer = new Informer(source, { resyncPeriodMs: 60_000, logger: silentLogger });
    source.listResult = { items: [vmi("a", "1")], resourceVersion: "1" };
    const seen = recordInto(informer);
    await start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen).toEqual(["add a@1", "update a@1->1"]);
  });

  it("waitForSync answers false when stopped before the first list", async () => {
    source.listError = new Error("down");
    running = informer.run(stop.signal);
    const synced = informer.waitForSync(stop.signal);
    stop.abort();
    await expect(synced).resolves.toBe(false);
  });
});
