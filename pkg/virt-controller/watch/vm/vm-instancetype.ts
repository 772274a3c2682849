// virt-controller's informers of the four instancetype.kubevirt.io kinds (upstream's instancetypeInformer,
// clusterInstancetypeInformer, preferenceInformer and clusterPreferenceInformer): the VM controller finds
// and stores a VM's instance type and preference from their caches, and its ControllerRevisions from the
// revision informer, reading the apiserver only for what a cache does not hold (yet). Nothing is queued
// by their events, as upstream registers no handlers on them. Also how the synchronizer's errors reach
// the VM's status.
import type { KubeClient } from "../../../controller/client.js";
import { resourceInformer, type Informer } from "../../../controller/informer.js";
import type { Logger } from "../../../controller/log.js";
import { SyncError } from "../../../controller/sync-error.js";
import { errorMessage } from "../../../util/error-message.js";
import type { KubeObject } from "../../../controller/object.js";
import type { InstancetypeControllerRevision } from "../../../instancetype/compatibility/compatibility.js";
import type {
  InstancetypeCaches,
  InstancetypeObject,
  PreferenceObject,
} from "../../../instancetype/find/client.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  instancetypesGVR,
  preferencesGVR,
} from "../../../instancetype/find/resources.js";

export interface InstancetypeInformers {
  instancetypes: Informer<InstancetypeObject>;
  clusterInstancetypes: Informer<InstancetypeObject>;
  preferences: Informer<PreferenceObject>;
  clusterPreferences: Informer<PreferenceObject>;
}

/** The four informers; the namespaced kinds only in `namespace` when given, the cluster kinds always whole. */
export function newInstancetypeInformers(
  client: KubeClient,
  options: { logger?: Logger; namespace?: string } = {},
): InstancetypeInformers {
  const { logger, namespace } = options;
  return {
    instancetypes: resourceInformer<InstancetypeObject>(client, instancetypesGVR, { logger, namespace }),
    clusterInstancetypes: resourceInformer<InstancetypeObject>(client, clusterInstancetypesGVR, { logger }),
    preferences: resourceInformer<PreferenceObject>(client, preferencesGVR, { logger, namespace }),
    clusterPreferences: resourceInformer<PreferenceObject>(client, clusterPreferencesGVR, { logger }),
  };
}

export const instancetypeInformerList = (informers: InstancetypeInformers) => [
  informers.instancetypes,
  informers.clusterInstancetypes,
  informers.preferences,
  informers.clusterPreferences,
];

/** The caches the VM controller's finders read first: the four kinds (when it has informers) and revisions. */
export function instancetypeCaches(
  informers: InstancetypeInformers | undefined,
  revisions: Pick<Informer<InstancetypeControllerRevision>, "getByName">,
): InstancetypeCaches {
  const lookup =
    <T extends KubeObject>(informer: Pick<Informer<T>, "getByName">) =>
    (namespace: string, name: string) =>
      informer.getByName(namespace, name);
  return {
    revisions: lookup(revisions),
    ...(informers && {
      instancetypes: lookup(informers.instancetypes),
      clusterInstancetypes: lookup(informers.clusterInstancetypes),
      preferences: lookup(informers.preferences),
      clusterPreferences: lookup(informers.clusterPreferences),
    }),
  };
}

export const UnsupportedSyncErrorReason = "UnsupportedSyncError";

/**
 * Upstream's handleSynchronizerErr: what the instancetype synchronizer throws becomes the VM's sync
 * error, one without a reason (a failed expansion or its write) as `unsupported error: <message>`.
 */
export function synchronizerError(err: unknown): SyncError {
  if (err instanceof SyncError) return err;
  return new SyncError(`unsupported error: ${errorMessage(err)}`, UnsupportedSyncErrorReason);
}
