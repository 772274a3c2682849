// The finders' sources read straight from the apiserver (virt-api's webhooks and expand subresources,
// and the VM controller, which keeps no informers for these kinds yet).
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
import { InstancetypeSpecFinder, PreferenceSpecFinderImpl, type Getter } from "./spec.js";

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
