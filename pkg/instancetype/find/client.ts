// The finders' sources: straight from the apiserver (virt-api's webhooks and expand subresources, as
// upstream's finders built without stores), or informer caches first with the apiserver on a miss (the
// VM controller, as upstream's virt-controller with its four instancetype informers and the
// ControllerRevision informer).
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import type { KubeClient } from "../../controller/client.js";
import type { GroupVersionResource } from "../../controller/gvr.js";
import type { KubeObject } from "../../controller/object.js";
import { controllerRevisionsGVR } from "../../controller/resources.js";
import type { InstancetypeControllerRevision } from "../compatibility/compatibility.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  instancetypesGVR,
  preferencesGVR,
} from "./resources.js";
import { cachedGetter, InstancetypeSpecFinder, PreferenceSpecFinderImpl, type Getter } from "./spec.js";

export type InstancetypeObject = KubeObject & { spec?: VirtualMachineInstancetypeSpec };
export type PreferenceObject = KubeObject & { spec?: VirtualMachinePreferenceSpec };

/** One getter per kind, and one for the ControllerRevisions that hold stored copies. */
export interface InstancetypeSources {
  instancetypes: Getter<InstancetypeObject>;
  clusterInstancetypes: Getter<InstancetypeObject>;
  preferences: Getter<PreferenceObject>;
  clusterPreferences: Getter<PreferenceObject>;
  revisions: Getter<InstancetypeControllerRevision>;
}

const getter = <T extends KubeObject>(client: KubeClient, gvr: GroupVersionResource): Getter<T> => {
  const resource = client.resource<T>(gvr);
  return (namespace, name) => resource.get(gvr.namespaced ? namespace : "", name);
};

export function clientSources(client: KubeClient): InstancetypeSources {
  return {
    instancetypes: getter(client, instancetypesGVR),
    clusterInstancetypes: getter(client, clusterInstancetypesGVR),
    preferences: getter(client, preferencesGVR),
    clusterPreferences: getter(client, clusterPreferencesGVR),
    revisions: getter(client, controllerRevisionsGVR),
  };
}

/** A cache lookup (an informer's getByName): undefined when the object is not (yet) in the cache. */
export type CacheLookup<T> = (namespace: string, name: string) => T | undefined;

/** The caches to read first, per kind; a kind without one is read from the apiserver only. */
export type InstancetypeCaches = Partial<{
  instancetypes: CacheLookup<InstancetypeObject>;
  clusterInstancetypes: CacheLookup<InstancetypeObject>;
  preferences: CacheLookup<PreferenceObject>;
  clusterPreferences: CacheLookup<PreferenceObject>;
  revisions: CacheLookup<InstancetypeControllerRevision>;
}>;

// Callers apply and store what they get; a cached object is shared with the informer, so they get a copy.
const copied = <T>(lookup: CacheLookup<T> | undefined): CacheLookup<T> | undefined =>
  lookup &&
  ((namespace, name) => {
    const hit = lookup(namespace, name);
    return hit === undefined ? undefined : structuredClone(hit);
  });

/** Upstream's finders with stores: the cache when it has the object, the apiserver when it misses. */
export function cachedSources(client: KubeClient, caches: InstancetypeCaches): InstancetypeSources {
  const direct = clientSources(client);
  return {
    instancetypes: cachedGetter(direct.instancetypes, copied(caches.instancetypes)),
    clusterInstancetypes: cachedGetter(direct.clusterInstancetypes, copied(caches.clusterInstancetypes)),
    preferences: cachedGetter(direct.preferences, copied(caches.preferences)),
    clusterPreferences: cachedGetter(direct.clusterPreferences, copied(caches.clusterPreferences)),
    revisions: cachedGetter(direct.revisions, copied(caches.revisions)),
  };
}

export function findersOf(sources: InstancetypeSources): {
  instancetype: InstancetypeSpecFinder;
  preference: PreferenceSpecFinderImpl;
} {
  return {
    instancetype: new InstancetypeSpecFinder({
      namespaced: sources.instancetypes,
      cluster: sources.clusterInstancetypes,
      revisions: sources.revisions,
    }),
    preference: new PreferenceSpecFinderImpl({
      namespaced: sources.preferences,
      cluster: sources.clusterPreferences,
      revisions: sources.revisions,
    }),
  };
}

export const clientFinders = (client: KubeClient) => findersOf(clientSources(client));
