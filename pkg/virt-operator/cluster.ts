// How the operator reads and writes the cluster: stores (informer caches) to read, and a small client for
// the writes it makes. Production wires informers and the machinery's KubeClient; unit tests a fake cluster
// that records every write.
import { isNotFound } from "../controller/api-error.js";
import type { KubeClient } from "../controller/client.js";
import type { EventHandlers } from "../controller/informer.js";
import type { GroupVersionResource } from "../controller/gvr.js";
import type { KubeObject, ObjectMeta } from "../controller/object.js";
import type { KubeVirt } from "../api/generated/v1.js";
import type { CustomResourceDefinition } from "./resource/generate/components/crds.js";
import type {
  APIService,
  ClusterRole,
  ClusterRoleBinding,
  ConfigMap,
  DaemonSet,
  Deployment,
  MutatingWebhookConfiguration,
  Pod,
  PodDisruptionBudget,
  Role,
  RoleBinding,
  Secret,
  Service,
  ServiceAccount,
  ValidatingWebhookConfiguration,
} from "./resource/generate/components/k8s-types.js";
import type { OperatorResource } from "./resources.js";

/**
 * The KubeVirt CR with the machinery's metadata type: the generated type allows `null` timestamps, which
 * the machinery's ObjectMeta does not.
 */
export type KubeVirtCR = Omit<KubeVirt, "metadata"> & { metadata?: ObjectMeta };

import type { JsonPatchOp } from "../apimachinery/patch/patch.js";
/** One JSON patch type for every component (pkg/apimachinery/patch). */
export type { JsonPatchOp };

/** The read side of an informer. */
export interface ObjectStore<T extends KubeObject = KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
}

/** An informer as the controller sees it: a store it can watch. */
export interface WatchedStore<T extends KubeObject = KubeObject> extends ObjectStore<T> {
  addEventHandler(handlers: EventHandlers<T>): () => void;
  hasSynced(): boolean;
}

/** A CRD as stored: the generated spec plus server metadata and status. */
export type InstalledCrd = Omit<CustomResourceDefinition, "metadata"> &
  KubeObject & {
    status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
  };

/** The type of the objects each installed kind's store holds. */
export interface InstalledTypes {
  serviceAccounts: ServiceAccount;
  clusterRoles: ClusterRole;
  clusterRoleBindings: ClusterRoleBinding;
  roles: Role;
  roleBindings: RoleBinding;
  crds: InstalledCrd;
  services: Service;
  deployments: Deployment;
  daemonSets: DaemonSet;
  validatingWebhooks: ValidatingWebhookConfiguration;
  mutatingWebhooks: MutatingWebhookConfiguration;
  apiServices: APIService;
  podDisruptionBudgets: PodDisruptionBudget;
  secrets: Secret;
  configMaps: ConfigMap;
}

export type Stores = { [R in OperatorResource]: WatchedStore<InstalledTypes[R]> } & {
  kubevirts: WatchedStore<KubeVirtCR>;
  /** The infrastructure pods (managed-by virt-operator), whose readiness decides Available. */
  pods: WatchedStore<Pod>;
};

/**
 * Every cluster instance type and preference (upstream's unfiltered ClusterInstancetype/ClusterPreference
 * informers): changes wake the KubeVirt CR. They are not awaited before the first sync, as their CRDs come
 * with the install; the reconcile reads these kinds from the server.
 */
export interface CommonInstancetypeStores {
  clusterInstancetypes: WatchedStore;
  clusterPreferences: WatchedStore;
}

export interface ListQuery {
  labelSelector?: string;
  limit?: number;
}

export interface OperatorClient {
  get<T extends KubeObject>(
    gvr: GroupVersionResource,
    namespace: string,
    name: string,
  ): Promise<T | undefined>;
  list<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, query?: ListQuery): Promise<T[]>;
  create<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T>;
  update<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T>;
  updateStatus<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T>;
  patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    namespace: string,
    name: string,
    ops: JsonPatchOp[],
  ): Promise<T>;
  /** `gracePeriodSeconds: 0` as upstream deletes installed objects; NotFound counts as done. */
  delete(gvr: GroupVersionResource, namespace: string, name: string): Promise<void>;
}

export class KubeOperatorClient implements OperatorClient {
  constructor(private readonly client: KubeClient) {}

  async get<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, name: string) {
    try {
      return await this.client.resource<T>(gvr).get(namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, query: ListQuery = {}) {
    return (await this.client.resource<T>(gvr).list(namespace, query)).items;
  }

  create<T extends KubeObject>(gvr: GroupVersionResource, obj: T) {
    return this.client.resource<T>(gvr).create(obj);
  }

  update<T extends KubeObject>(gvr: GroupVersionResource, obj: T) {
    return this.client.resource<T>(gvr).update(obj);
  }

  updateStatus<T extends KubeObject>(gvr: GroupVersionResource, obj: T) {
    return this.client.resource<T>(gvr).updateStatus(obj);
  }

  patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    namespace: string,
    name: string,
    ops: JsonPatchOp[],
  ) {
    return this.client.resource<T>(gvr).patch(namespace, name, "json", ops);
  }

  async delete(gvr: GroupVersionResource, namespace: string, name: string) {
    try {
      await this.client.resource(gvr).delete(namespace, name, { gracePeriodSeconds: 0 });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
