// The finders' sources read straight from the apiserver (virt-api, which keeps no informers for them).
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import type { KubeClient } from "../../controller/client.js";
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
import type { GroupVersionResource } from "../../controller/gvr.js";

const getter = <T extends KubeObject>(client: KubeClient, gvr: GroupVersionResource): Getter<T> => {
  const resource = client.resource<T>(gvr);
  return (namespace, name) => resource.get(gvr.namespaced ? namespace : "", name);
};

export function clientFinders(client: KubeClient): {
  instancetype: InstancetypeSpecFinder;
  preference: PreferenceSpecFinderImpl;
} {
  const revisions = getter<InstancetypeControllerRevision>(client, controllerRevisionsGVR);
  return {
    instancetype: new InstancetypeSpecFinder({
      namespaced: getter<KubeObject & { spec?: VirtualMachineInstancetypeSpec }>(client, instancetypesGVR),
      cluster: getter<KubeObject & { spec?: VirtualMachineInstancetypeSpec }>(
        client,
        clusterInstancetypesGVR,
      ),
      revisions,
    }),
    preference: new PreferenceSpecFinderImpl({
      namespaced: getter<KubeObject & { spec?: VirtualMachinePreferenceSpec }>(client, preferencesGVR),
      cluster: getter<KubeObject & { spec?: VirtualMachinePreferenceSpec }>(client, clusterPreferencesGVR),
      revisions,
    }),
  };
}
