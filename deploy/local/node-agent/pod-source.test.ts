import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../pkg/controller/api-error.js";
import type { KubeClient, PodList, WatchEvent } from "./kube-client.js";
import { podSchema } from "./k8s-types.js";
import { silentLogger } from "./logger.js";
import { nodePodInformer, podByUID } from "./pod-source.js";

const pod = (uid: string, rv: string) =>
  podSchema.parse({
    metadata: { name: uid, namespace: "default", uid, resourceVersion: rv },
    spec: { containers: [] },
  });

/** A client whose list answers come from `lists` and whose watches play `watches` in turn. */
function scriptedClient(lists: PodList[], watches: ((emit: (e: WatchEvent) => void) => Promise<void>)[]) {
  const calls: string[] = [];
  const client = {
    async listPods(fieldSelector: string) {
      calls.push(`list ${fieldSelector}`);
      return lists.shift() ?? { items: [], resourceVersion: "0" };
    },
    async watchPods(_selector: string, rv: string, onEvent: (e: WatchEvent) => void, signal: AbortSignal) {
      calls.push(`watch from ${rv}`);
      const next = watches.shift();
      if (next) return next(onEvent);
      return new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true }),
      );
    },
  };
  return { client: client as unknown as KubeClient, calls };
}

describe("nodePodInformer", () => {
  it("lists the node's pods, follows the watch, relists after the version expired, and finds pods by UID", async () => {
    const changed: string[] = [];
    const { client, calls } = scriptedClient(
      [
        { items: [pod("a", "5"), pod("b", "5")], resourceVersion: "5" },
        { items: [pod("b", "9"), pod("c", "9")], resourceVersion: "9" },
      ],
      [
        async (emit) => {
          emit({ type: "MODIFIED", object: pod("a", "6") });
          emit({ type: "MODIFIED", object: { metadata: { name: "broken" }, spec: "not a pod spec" } });
          emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "7" } } });
        },
        async () => {
          throw new ApiError(410, "Expired", "too old resource version");
        },
      ],
    );
    const informer = nodePodInformer(client, "node01", silentLogger());
    informer.addEventHandler({
      add: (p) => changed.push(`add ${p.metadata.uid}`),
      update: (_old, p) => changed.push(`update ${p.metadata.uid}`),
      delete: (p) => changed.push(`delete ${p.metadata.uid}`),
    });
    const abort = new AbortController();
    const running = informer.run(abort.signal);
    expect(await informer.waitForSync(abort.signal)).toBe(true);
    await vi.waitFor(() => expect(podByUID(informer, "c")).toBeDefined(), { timeout: 3000 });
    abort.abort();
    await running;
    expect(calls).toEqual([
      "list spec.nodeName=node01",
      "watch from 5",
      "watch from 7",
      "list spec.nodeName=node01",
      "watch from 9",
    ]);
    expect(podByUID(informer, "a")).toBeUndefined();
    expect(informer.getByName("default", "b")?.metadata.resourceVersion).toBe("9");
    // a changed (the unparseable object was skipped), then the relist removed a and brought c.
    expect(changed).toEqual(["add a", "add b", "update a", "delete a", "update b", "add c"]);
  });
});
