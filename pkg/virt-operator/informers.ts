// The informers behind the operator's stores (upstream's KubeInformerFactory Operator* informers): every
// installed kind selected by the managed-by label, Secrets and ConfigMaps only in the operator's namespace
// (without install-strategy ConfigMaps), the infrastructure pods, and all KubeVirt CRs.
import { setMaxListeners } from "node:events";
import type { KubeClient } from "../controller/client.js";
import type { GroupVersionResource } from "../controller/gvr.js";
import { resourceInformer, type Informer } from "../controller/informer.js";
import type { Logger } from "../controller/log.js";
import type { KubeObject } from "../controller/object.js";
import type { Stores } from "./cluster.js";
import { OPERATOR_RESOURCES, WATCHED_RESOURCES } from "./resources.js";
import { INSTALL_STRATEGY_LABEL, OPERATOR_LABEL_SELECTOR } from "./util/labels.js";

export interface OperatorInformers {
  stores: Stores;
  informers: Array<Informer<KubeObject>>;
}

/** Kinds whose informer only looks at the operator's namespace. */
const NAMESPACED_TO_OPERATOR = new Set(["secrets", "configmaps"]);

export function createOperatorInformers(
  client: KubeClient,
  operatorNamespace: string,
  logger: Logger,
): OperatorInformers {
  const informers: Array<Informer<KubeObject>> = [];
  const make = (gvr: GroupVersionResource, labelSelector: string | undefined) => {
    const informer = resourceInformer<KubeObject>(client, gvr, {
      namespace: NAMESPACED_TO_OPERATOR.has(gvr.resource) ? operatorNamespace : "",
      labelSelector,
      logger,
    });
    informers.push(informer);
    return informer;
  };
  const entries = Object.entries(OPERATOR_RESOURCES).map(([name, gvr]) => {
    const selector =
      gvr.resource === "configmaps"
        ? `!${INSTALL_STRATEGY_LABEL},${OPERATOR_LABEL_SELECTOR}`
        : OPERATOR_LABEL_SELECTOR;
    return [name, make(gvr, selector)] as const;
  });
  const stores = {
    ...Object.fromEntries(entries),
    kubevirts: make(WATCHED_RESOURCES.kubevirts, undefined),
    pods: make(WATCHED_RESOURCES.pods, OPERATOR_LABEL_SELECTOR),
  } as unknown as Stores;
  return { stores, informers };
}

export async function runInformers(informers: OperatorInformers, signal: AbortSignal): Promise<boolean> {
  // Every informer (and its sync wait) listens on the one signal: more than Node's default warning limit.
  setMaxListeners(4 * informers.informers.length, signal);
  for (const informer of informers.informers) void informer.run(signal);
  const synced = await Promise.all(informers.informers.map((i) => i.waitForSync(signal)));
  return synced.every(Boolean);
}
