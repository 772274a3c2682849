// The informers behind the operator's stores (upstream's KubeInformerFactory Operator* informers): every
// installed kind selected by the managed-by label, Secrets and ConfigMaps only in the operator's namespace
// (without install-strategy ConfigMaps), the infrastructure pods, and all KubeVirt CRs; apart, every cluster
// instance type and preference, whose CRDs the install creates, so nothing waits for them to sync.
import { setMaxListeners } from "node:events";
import type { KubeClient } from "../controller/client.js";
import type { GroupVersionResource } from "../controller/gvr.js";
import { resourceInformer, type Informer } from "../controller/informer.js";
import type { Logger } from "../controller/log.js";
import type { KubeObject } from "../controller/object.js";
import type { CommonInstancetypeStores, Stores } from "./cluster.js";
import { COMMON_INSTANCETYPE_RESOURCES, OPERATOR_RESOURCES, WATCHED_RESOURCES } from "./resources.js";
import { INSTALL_STRATEGY_LABEL, OPERATOR_LABEL_SELECTOR } from "./util/labels.js";

export interface OperatorInformers {
  stores: Stores;
  informers: Array<Informer<KubeObject>>;
  /** Run alongside, without holding up the first sync (see CommonInstancetypeStores). */
  commonInstancetypes: { stores: CommonInstancetypeStores; informers: Array<Informer<KubeObject>> };
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
  const bundle = (gvr: GroupVersionResource) => resourceInformer<KubeObject>(client, gvr, { logger });
  const clusterInstancetypes = bundle(COMMON_INSTANCETYPE_RESOURCES.clusterInstancetypes);
  const clusterPreferences = bundle(COMMON_INSTANCETYPE_RESOURCES.clusterPreferences);
  return {
    stores,
    informers,
    commonInstancetypes: {
      stores: { clusterInstancetypes, clusterPreferences },
      informers: [clusterInstancetypes, clusterPreferences],
    },
  };
}

export async function runInformers(informers: OperatorInformers, signal: AbortSignal): Promise<boolean> {
  // Every informer (and its sync wait) listens on the one signal: more than Node's default warning limit.
  const all = [...informers.informers, ...informers.commonInstancetypes.informers];
  setMaxListeners(4 * all.length, signal);
  for (const informer of all) void informer.run(signal);
  const synced = await Promise.all(informers.informers.map((i) => i.waitForSync(signal)));
  return synced.every(Boolean);
}
