import { ApiError } from "../../../pkg/controller/api-error.js";
import { Informer } from "../../../pkg/controller/informer.js";
import type { ListWatchSource, SourceEvent } from "../../../pkg/controller/informer-source.js";
import type { KubeClient, WatchEvent } from "./kube-client.js";
import { podSchema, type Pod } from "./k8s-types.js";
import type { Logger } from "./logger.js";

// What kubelet watches: the pods bound to this node (fieldSelector spec.nodeName=<node>), kept by
// pkg/controller's informer over the agent's client. kubelet tracks pods by UID (a pod deleted and
// created again under its name is another pod), so the cache is indexed by UID as well.

export const PodUIDIndex = "uid";

export type PodInformer = Informer<Pod>;

export function nodePodSource(client: KubeClient, nodeName: string, log: Logger): ListWatchSource<Pod> {
  const fieldSelector = `spec.nodeName=${nodeName}`;
  return {
    list: () => client.listPods(fieldSelector),
    watch: (resourceVersion, signal, onEvent) =>
      client.watchPods(
        fieldSelector,
        resourceVersion,
        (event) => {
          const parsed = toSourceEvent(event, log);
          if (parsed) onEvent(parsed);
        },
        signal,
      ),
  };
}

function toSourceEvent(event: WatchEvent, log: Logger): SourceEvent<Pod> | undefined {
  switch (event.type) {
    case "ERROR":
      return { type: "ERROR", error: ApiError.fromWatchStatus(event.object) };
    case "BOOKMARK":
      // A bookmark carries only metadata.resourceVersion, which is all the informer reads of it.
      return { type: "BOOKMARK", object: event.object as Pod };
    case "ADDED":
    case "MODIFIED":
    case "DELETED": {
      const parsed = podSchema.safeParse(event.object);
      if (parsed.success) return { type: event.type, object: parsed.data };
      log.warn({ issues: parsed.error.issues.slice(0, 3) }, "ignoring a pod the agent cannot parse");
      return undefined;
    }
    default:
      return undefined;
  }
}

export function nodePodInformer(client: KubeClient, nodeName: string, log: Logger): PodInformer {
  return new Informer(nodePodSource(client, nodeName, log), {
    name: "pods",
    logger: log,
    indexers: { [PodUIDIndex]: (pod) => [pod.metadata.uid] },
  });
}

export function podByUID(informer: PodInformer, uid: string): Pod | undefined {
  return informer.byIndex(PodUIDIndex, uid)[0];
}
