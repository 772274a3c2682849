// Upstream pkg/instancetype/find and preference/find: the spec a VM's instancetype or preference matcher
// selects. A revisionName, or a status ref whose revision is labelled with the matched name, wins over the
// live object; otherwise the kind (empty: the cluster-wide one) picks the namespaced object in the VM's
// namespace or the cluster object. Informer caches are read first, the apiserver when they miss, so the
// apiserver's NotFound comes back as it is.
import type {
  InstancetypeMatcher,
  InstancetypeStatusRef,
  PreferenceMatcher,
  VirtualMachine,
} from "../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import type { GroupVersionResource } from "../../controller/gvr.js";
import {
  getInstancetypeSpec,
  getPreferenceSpec,
  type InstancetypeControllerRevision,
} from "../compatibility/compatibility.js";
import type { PreferenceSpecFinder, SpecFinder } from "../expand/expand.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  ControllerRevisionObjectNameLabel,
  instancetypesGVR,
  matcherScope,
  preferencesGVR,
} from "./resources.js";

/** A namespaced ("" for cluster-scoped) get: an informer's cache when it has the object, else the apiserver. */
export type Getter<T> = (namespace: string, name: string) => Promise<T>;

interface SpecObject<S> {
  spec?: S;
}

/** Where the finders read from: one getter per kind and one for the ControllerRevisions. */
export interface FinderSources<I, C> {
  namespaced: Getter<SpecObject<I>>;
  cluster: Getter<SpecObject<C>>;
  revisions: Getter<InstancetypeControllerRevision>;
}

/** A getter that reads `cached` first and falls back to `get` when it misses (upstream's store, then client). */
export function cachedGetter<T>(
  get: Getter<T>,
  cached?: (namespace: string, name: string) => T | undefined,
): Getter<T> {
  return async (namespace, name) => cached?.(namespace, name) ?? (await get(namespace, name));
}

/** The revision a matcher pins (revisionName), or the status ref's one when it is for the matched name. */
export async function findRevision(
  revisions: Getter<InstancetypeControllerRevision>,
  namespace: string,
  matcher: InstancetypeMatcher | PreferenceMatcher,
  statusRef: InstancetypeStatusRef | undefined,
): Promise<InstancetypeControllerRevision | undefined> {
  if (matcher.revisionName) return revisions(namespace, matcher.revisionName);
  const refName = statusRef?.controllerRevisionRef?.name;
  if (!refName) return undefined;
  const revision = await revisions(namespace, refName);
  const label = revision.metadata?.labels?.[ControllerRevisionObjectNameLabel];
  return label !== undefined && label === matcher.name ? revision : undefined;
}

async function findSpec<S>(
  vm: VirtualMachine,
  matcher: InstancetypeMatcher | PreferenceMatcher,
  statusRef: InstancetypeStatusRef | undefined,
  sources: FinderSources<S, S>,
  gvrs: [GroupVersionResource, GroupVersionResource],
  fromRevision: (revision: InstancetypeControllerRevision) => S,
  unexpectedKind: string,
): Promise<S> {
  const namespace = vm.metadata?.namespace ?? "";
  const revision = await findRevision(sources.revisions, namespace, matcher, statusRef);
  if (revision) return fromRevision(revision);
  const name = matcher.name ?? "";
  switch (matcherScope(matcher.kind, ...gvrs)) {
    case "namespaced":
      return ((await sources.namespaced(namespace, name)).spec ?? {}) as S;
    case "cluster":
      return ((await sources.cluster("", name)).spec ?? {}) as S;
    default:
      throw new Error(`${unexpectedKind}: ${matcher.kind ?? ""}`);
  }
}

export class InstancetypeSpecFinder implements SpecFinder {
  constructor(
    private readonly sources: FinderSources<VirtualMachineInstancetypeSpec, VirtualMachineInstancetypeSpec>,
  ) {}

  async find(vm: VirtualMachine): Promise<VirtualMachineInstancetypeSpec | undefined> {
    const matcher = vm.spec.instancetype;
    if (matcher === undefined) return undefined;
    return findSpec(
      vm,
      matcher,
      vm.status?.instancetypeRef,
      this.sources,
      [instancetypesGVR, clusterInstancetypesGVR],
      getInstancetypeSpec,
      "got unexpected kind in InstancetypeMatcher",
    );
  }
}

export class PreferenceSpecFinderImpl implements PreferenceSpecFinder {
  constructor(
    private readonly sources: FinderSources<VirtualMachinePreferenceSpec, VirtualMachinePreferenceSpec>,
  ) {}

  async findPreference(vm: VirtualMachine): Promise<VirtualMachinePreferenceSpec | undefined> {
    const matcher = vm.spec.preference;
    if (matcher === undefined) return undefined;
    return findSpec(
      vm,
      matcher,
      vm.status?.preferenceRef,
      this.sources,
      [preferencesGVR, clusterPreferencesGVR],
      getPreferenceSpec,
      "got unexpected kind in PreferenceMatcher",
    );
  }
}
