import { describe, expect, it } from "vitest";
import { ApiError } from "./api-error.js";
import { KubeClient, type PatchType, type WatchEvent } from "./client.js";
import { coreGVR } from "./gvr.js";
import type { KubeObject } from "./object.js";
import { RecordingTransport } from "./testing/recording-transport.js";

const cm = (name: string, ns = "default"): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, resourceVersion: "7" },
});

describe("ResourceClient requests", () => {
  it.each<[PatchType, string]>([
    ["merge", "application/merge-patch+json"],
    ["json", "application/json-patch+json"],
    ["strategic", "application/strategic-merge-patch+json"],
    ["apply", "application/apply-patch+yaml"],
  ])("patch %s sends %s", async (type, contentType) => {
    const transport = new RecordingTransport(() => cm("a"));
    const pods = new KubeClient(transport).resource(coreGVR.pods);
    await pods.patchStatus("ns", "p", type, { status: {} }, { fieldManager: "virt-controller" });
    expect(transport.requests[0]).toMatchObject({
      method: "PATCH",
      path: "/api/v1/namespaces/ns/pods/p/status",
      contentType,
      query: { fieldManager: "virt-controller" },
    });
  });

  it("creates in the object's namespace, updates by name, deletes with options", async () => {
    const transport = new RecordingTransport();
    const configMaps = new KubeClient(transport).resource(coreGVR.configMaps);
    await configMaps.create(cm("a", "ns1"), { dryRun: true });
    await configMaps.update(cm("a", "ns1"));
    await configMaps.delete("ns1", "a", { propagationPolicy: "Foreground", preconditions: { uid: "u" } });
    expect(transport.requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/api/v1/namespaces/ns1/configmaps"],
      ["PUT", "/api/v1/namespaces/ns1/configmaps/a"],
      ["DELETE", "/api/v1/namespaces/ns1/configmaps/a"],
    ]);
    expect(transport.requests[0]?.query).toMatchObject({ dryRun: "All" });
    expect(transport.requests[2]?.body).toMatchObject({
      kind: "DeleteOptions",
      propagationPolicy: "Foreground",
      preconditions: { uid: "u" },
    });
  });

  it("follows continue tokens in listAll and keeps the first page's resourceVersion", async () => {
    const pages = [
      { metadata: { resourceVersion: "100", continue: "t1" }, items: [cm("a")] },
      { metadata: { resourceVersion: "100", continue: "" }, items: [cm("b")] },
    ];
    const transport = new RecordingTransport(() => pages.shift());
    const list = await new KubeClient(transport)
      .resource(coreGVR.configMaps)
      .listAll("", { labelSelector: "x=y" });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["a", "b"]);
    expect(list.metadata?.resourceVersion).toBe("100");
    expect(transport.requests[0]).toMatchObject({
      path: "/api/v1/configmaps",
      query: { labelSelector: "x=y" },
    });
    expect(transport.requests[1]?.query).toMatchObject({ continue: "t1", labelSelector: "x=y" });
  });

  it("gives list items the kind the apiserver leaves out", async () => {
    const transport = new RecordingTransport(() => ({ metadata: {}, items: [{ metadata: { name: "p" } }] }));
    const list = await new KubeClient(transport).resource(coreGVR.pods).list("d");
    expect(list.items[0]).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } });
  });

  it("refuses to decode something that is not an object", async () => {
    const transport = new RecordingTransport(() => "not json object");
    await expect(new KubeClient(transport).resource(coreGVR.pods).get("d", "p")).rejects.toThrow();
  });
});

describe("ResourceClient.watch", () => {
  it("decodes events, turns ERROR into an ApiError, and stops on an undecodable line", async () => {
    const transport = new RecordingTransport();
    transport.streamLines = [
      { type: "ADDED", object: cm("a") },
      { type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired", message: "too old" } },
      { type: "NOPE", object: {} },
      { type: "DELETED", object: cm("a") },
    ];
    const events: WatchEvent<KubeObject>[] = [];
    const watching = new KubeClient(transport)
      .resource(coreGVR.configMaps)
      .watch("default", { resourceVersion: "5" }, (e) => events.push(e));
    await expect(watching).rejects.toThrow();
    expect(events.map((e) => e.type)).toEqual(["ADDED", "ERROR"]);
    const error = events[1];
    expect(error?.type === "ERROR" && error.error).toBeInstanceOf(ApiError);
    expect(transport.streams[0]).toMatchObject({
      path: "/api/v1/namespaces/default/configmaps",
      query: { watch: true, resourceVersion: "5" },
    });
  });
});
