import { describe, expect, it } from "vitest";
import { KubeClient } from "./client.js";
import { coreGVR } from "./gvr.js";
import { resourceSource, type SourceEvent } from "./informer-source.js";
import type { KubeObject } from "./object.js";
import { RecordingTransport } from "./testing/recording-transport.js";

describe("resourceSource", () => {
  it("lists in pages with the scope's selectors and watches from a resourceVersion with bookmarks", async () => {
    const transport = new RecordingTransport(() => ({
      metadata: { resourceVersion: "900" },
      items: [{ metadata: { name: "p" } }],
    }));
    transport.streamLines = [{ type: "ADDED", object: { metadata: { name: "q", resourceVersion: "901" } } }];
    const source = resourceSource(new KubeClient(transport).resource<KubeObject>(coreGVR.pods), {
      labelSelector: "kubevirt.io=virt-launcher",
      fieldSelector: "spec.nodeName=node01",
    });
    const signal = new AbortController().signal;

    const listed = await source.list(signal);
    expect(listed.resourceVersion).toBe("900");
    expect(listed.items.map((i) => i.kind)).toEqual(["Pod"]);
    expect(transport.requests[0]).toMatchObject({
      path: "/api/v1/pods",
      query: {
        labelSelector: "kubevirt.io=virt-launcher",
        fieldSelector: "spec.nodeName=node01",
        limit: 500,
      },
    });

    const events: SourceEvent<KubeObject>[] = [];
    await source.watch("900", signal, (e) => events.push(e));
    expect(events).toEqual([{ type: "ADDED", object: { metadata: { name: "q", resourceVersion: "901" } } }]);
    const query = transport.streams[0]?.query ?? {};
    expect(query).toMatchObject({
      watch: true,
      resourceVersion: "900",
      allowWatchBookmarks: true,
      labelSelector: "kubevirt.io=virt-launcher",
      fieldSelector: "spec.nodeName=node01",
    });
    expect(query["timeoutSeconds"]).toBeGreaterThanOrEqual(300);
    expect(query["timeoutSeconds"]).toBeLessThan(600);
  });

  it("scopes list and watch to one namespace", async () => {
    const transport = new RecordingTransport(() => ({ metadata: { resourceVersion: "1" }, items: [] }));
    const source = resourceSource(new KubeClient(transport).resource<KubeObject>(coreGVR.configMaps), {
      namespace: "ns1",
    });
    const signal = new AbortController().signal;
    await source.list(signal);
    await source.watch("1", signal, () => undefined);
    expect(transport.requests[0]?.path).toBe("/api/v1/namespaces/ns1/configmaps");
    expect(transport.streams[0]?.path).toBe("/api/v1/namespaces/ns1/configmaps");
  });
});
