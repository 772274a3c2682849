// What virt-controller's metric collectors read while this replica leads: the leader's informer caches.
import { NamespaceIndex } from "../../controller/indexers.js";
import type { Informer } from "../../controller/informer.js";
import type { StoredVMI } from "../../controller/resources.js";
import type { Pod } from "../../api/core/v1/pod.js";
import type { ControllerCaches } from "../../monitoring/metrics/virt-controller/metrics.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import type { InstancetypeInformers } from "./vm/vm-instancetype.js";
import type { StoredVMIM } from "./migration/vmim.js";

export function metricsCaches(
  informers: {
    vmis: Informer<StoredVMI>;
    migrations: Informer<StoredVMIM>;
    pods: Informer<Pod>;
    instancetypeInformers: InstancetypeInformers;
  },
  clusterConfig: () => ClusterConfig,
): ControllerCaches {
  const { instancetypes, clusterInstancetypes, preferences, clusterPreferences } =
    informers.instancetypeInformers;
  return {
    vmis: () => informers.vmis.list(),
    migrations: () => informers.migrations.list(),
    podsIn: (namespace) => informers.pods.byIndex(NamespaceIndex, namespace),
    instancetype: (key) => instancetypes.get(key),
    clusterInstancetype: (name) => clusterInstancetypes.get(name),
    preference: (key) => preferences.get(key),
    clusterPreference: (name) => clusterPreferences.get(name),
    evictionStrategy: (vmi) => vmi.spec?.evictionStrategy ?? clusterConfig().getEvictionStrategy(),
  };
}
