import { describe, expect, it, vi } from "vitest";
import {
  ControllerUIDIndex,
  IndexedStore,
  NamespaceIndex,
  NodeIndex,
  byControllerUID,
  podByNode,
  vmiByNode,
} from "./indexers.js";
import { Selector } from "./label-selector.js";
import type { KubeObject } from "./object.js";

interface Obj extends KubeObject {
  spec?: { nodeName?: string };
  status?: { nodeName?: string };
}

function obj(
  ns: string,
  name: string,
  extra: Partial<Obj> & { labels?: Record<string, string>; owner?: string } = {},
): Obj {
  const { labels, owner, ...rest } = extra;
  return {
    metadata: {
      name,
      namespace: ns,
      labels,
      ownerReferences: owner
        ? [{ apiVersion: "kubevirt.io/v1", kind: "VirtualMachine", name: "vm", uid: owner, controller: true }]
        : [],
    },
    ...rest,
  };
}

const names = (objs: Obj[]) => objs.map((o) => o.metadata?.name).sort();

describe("IndexedStore indices", () => {
  it("indexes VMIs by status.nodeName and pods by spec.nodeName, following updates and deletes", () => {
    const vmis = new IndexedStore<Obj>({ [NodeIndex]: vmiByNode });
    vmis.upsert(obj("d", "a", { status: { nodeName: "node01" } }));
    vmis.upsert(obj("d", "b", { status: { nodeName: "node01" } }));
    vmis.upsert(obj("d", "c", { status: {} }));
    expect(names(vmis.byIndex(NodeIndex, "node01"))).toEqual(["a", "b"]);

    vmis.upsert(obj("d", "a", { status: { nodeName: "node02" } })); // migrated
    expect(names(vmis.byIndex(NodeIndex, "node01"))).toEqual(["b"]);
    expect(names(vmis.byIndex(NodeIndex, "node02"))).toEqual(["a"]);

    vmis.remove("d/b");
    expect(vmis.byIndex(NodeIndex, "node01")).toEqual([]);
    expect(vmis.indexKeys(NodeIndex, "node02")).toEqual(["d/a"]);

    const pods = new IndexedStore<Obj>({ [NodeIndex]: podByNode });
    pods.upsert(obj("d", "virt-launcher-a", { spec: { nodeName: "node01" }, status: { nodeName: "x" } }));
    expect(pods.indexKeys(NodeIndex, "node01")).toEqual(["d/virt-launcher-a"]);
    expect(pods.indexKeys(NodeIndex, "x")).toEqual([]);
  });

  it("indexes namespace always and controller UID on request", () => {
    const store = new IndexedStore<Obj>({ [ControllerUIDIndex]: byControllerUID });
    store.upsert(obj("ns1", "a", { owner: "uid-1" }));
    store.upsert(obj("ns2", "b", { owner: "uid-1" }));
    store.upsert(obj("ns2", "c"));
    expect(names(store.byIndex(NamespaceIndex, "ns2"))).toEqual(["b", "c"]);
    expect(names(store.byIndex(ControllerUIDIndex, "uid-1"))).toEqual(["a", "b"]);
    store.upsert(obj("ns1", "a")); // orphaned
    expect(names(store.byIndex(ControllerUIDIndex, "uid-1"))).toEqual(["b"]);
    expect(() => store.byIndex("nope", "x")).toThrow(/index "nope" does not exist/);
  });

  it("is not corrupted when a caller mutates a cached object", () => {
    const store = new IndexedStore<Obj>({ [NodeIndex]: vmiByNode });
    const cached = obj("d", "a", { status: { nodeName: "node01" } });
    store.upsert(cached);
    cached.status = { nodeName: "elsewhere" };
    store.remove("d/a");
    expect(store.byIndex(NodeIndex, "node01")).toEqual([]);
  });
});

describe("IndexedStore.bySelector", () => {
  const store = new IndexedStore<Obj>();
  store.upsert(obj("d", "web1", { labels: { app: "web", tier: "fe" } }));
  store.upsert(obj("d", "web2", { labels: { app: "web" } }));
  store.upsert(obj("other", "web3", { labels: { app: "web", tier: "fe" } }));
  store.upsert(obj("d", "db", { labels: { app: "db" } }));
  store.upsert(obj("d", "bare"));

  it.each<[string, Selector, string | undefined, string[]]>([
    ["equality", Selector.fromLabels({ app: "web" }), undefined, ["web1", "web2", "web3"]],
    ["equality in namespace", Selector.fromLabels({ app: "web" }), "d", ["web1", "web2"]],
    ["two equalities", Selector.fromLabels({ app: "web", tier: "fe" }), undefined, ["web1", "web3"]],
    [
      "In",
      Selector.fromLabelSelector({
        matchExpressions: [{ key: "app", operator: "In", values: ["db", "web"] }],
      }),
      "d",
      ["db", "web1", "web2"],
    ],
    [
      "Exists",
      Selector.fromLabelSelector({ matchExpressions: [{ key: "tier", operator: "Exists" }] }),
      undefined,
      ["web1", "web3"],
    ],
    [
      "DoesNotExist",
      Selector.fromLabelSelector({ matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }),
      undefined,
      ["bare"],
    ],
    ["everything in a namespace", Selector.everything(), "other", ["web3"]],
    ["nothing", Selector.nothing(), undefined, []],
  ])("%s", (_name, selector, namespace, expected) => {
    expect(names(store.bySelector(selector, namespace))).toEqual(expected);
  });

  it("follows label changes", () => {
    const s = new IndexedStore<Obj>();
    s.upsert(obj("d", "a", { labels: { app: "web" } }));
    s.upsert(obj("d", "a", { labels: { app: "db" } }));
    expect(s.bySelector(Selector.fromLabels({ app: "web" }))).toEqual([]);
    expect(names(s.bySelector(Selector.fromLabels({ app: "db" })))).toEqual(["a"]);
    s.remove("d/a");
    expect(s.bySelector(Selector.fromLabels({ app: "db" }))).toEqual([]);
  });

  it("looks at matching objects only, not at the whole store", () => {
    const big = new IndexedStore<Obj>();
    for (let i = 0; i < 5000; i++)
      big.upsert(obj(`ns${i % 50}`, `o${i}`, { labels: { app: "common", idx: String(i) } }));
    big.upsert(obj("ns7", "rare", { labels: { app: "common", rare: "yes" } }));
    const selector = Selector.fromLabels({ app: "common", rare: "yes" });
    const evaluated = vi.spyOn(selector, "matches");
    expect(names(big.bySelector(selector))).toEqual(["rare"]);
    expect(evaluated.mock.calls.length).toBe(1);

    const inNamespace = Selector.everything();
    const evaluatedNs = vi.spyOn(inNamespace, "matches");
    expect(big.bySelector(inNamespace, "ns3")).toHaveLength(100);
    expect(evaluatedNs.mock.calls.length).toBe(100);
  });
});
