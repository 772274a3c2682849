// Upstream pkg/instancetype/revision: the VM controller stores a copy of the instance type and preference
// a VM references in a ControllerRevision it owns, named `<vm>-<object>-<version>-<uid>-<generation>`
// and labelled with the object's identity, and records its name in status.instancetypeRef /
// status.preferenceRef.controllerRevisionRef (a JSON patch of the status). A pinned revisionName is
// recorded as it is; a changed name or kind drops the recorded revision so a new copy is stored.
import { isDeepStrictEqual } from "node:util";
import type {
  InstancetypeMatcher,
  InstancetypeStatusRef,
  PreferenceMatcher,
  VirtualMachine,
} from "../../api/generated/v1.js";
import type { KubeClient } from "../../controller/client.js";
import { isAlreadyExists } from "../../controller/api-error.js";
import { controllerRevisionsGVR, virtualMachinesGVR, type StoredVM } from "../../controller/resources.js";
import { newControllerRef, type KubeObject } from "../../controller/object.js";
import { Path } from "../../api/field.js";
import { KubeVirtAPIVersion } from "../../util/constants.js";
import { errorMessage } from "../../util/error-message.js";
import type { InstancetypeControllerRevision } from "../compatibility/compatibility.js";
import { vmiApplier } from "../apply/vmi.js";
import { Conflicts } from "../conflict/conflicts.js";
import type { InstancetypeObject, InstancetypeSources } from "../find/client.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  ControllerRevisionObjectGenerationLabel,
  ControllerRevisionObjectKindLabel,
  ControllerRevisionObjectNameLabel,
  ControllerRevisionObjectUIDLabel,
  ControllerRevisionObjectVersionLabel,
  INSTANCETYPE_API_VERSION,
  INSTANCETYPE_VERSION,
  instancetypesGVR,
  matcherScope,
  preferencesGVR,
} from "../find/resources.js";

export function hasControllerRevisionRef(ref: InstancetypeStatusRef | undefined): boolean {
  return !!ref?.controllerRevisionRef?.name;
}

export function generateRevisionName(
  vmName: string,
  objectName: string,
  version: string,
  uid: string,
  generation: number,
): string {
  return `${vmName}-${objectName}-${version}-${uid}-${generation}`;
}

/** The ControllerRevision holding `object` (a kind of instancetype.kubevirt.io) for `vm`. */
export function newControllerRevision(
  vm: VirtualMachine,
  object: KubeObject & { spec?: unknown },
  kind: string,
): InstancetypeControllerRevision {
  const meta: Record<string, unknown> & { name?: string; uid?: string; generation?: number } = {
    ...object.metadata,
  };
  const generation = meta.generation ?? 0;
  const name = meta.name ?? "";
  const uid = meta.uid ?? "";
  // What identifies the object stays; what belongs to its place in the cluster goes.
  const {
    labels: _l,
    annotations: _a,
    finalizers: _f,
    ownerReferences: _o,
    managedFields: _m,
    ...kept
  } = meta;
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: generateRevisionName(vm.metadata?.name ?? "", name, INSTANCETYPE_VERSION, uid, generation),
      namespace: vm.metadata?.namespace ?? "",
      ownerReferences: [newControllerRef(vm, KubeVirtAPIVersion, "VirtualMachine")],
      labels: {
        [ControllerRevisionObjectGenerationLabel]: String(generation),
        [ControllerRevisionObjectKindLabel]: kind,
        [ControllerRevisionObjectNameLabel]: name,
        [ControllerRevisionObjectUIDLabel]: uid,
        [ControllerRevisionObjectVersionLabel]: INSTANCETYPE_VERSION,
      },
    },
    data: { ...structuredClone(object), apiVersion: INSTANCETYPE_API_VERSION, kind, metadata: kept },
    revision: 0,
  };
}

const specOf = (revision: InstancetypeControllerRevision): unknown =>
  (revision.data as { spec?: unknown } | undefined)?.spec ?? {};

type Matcher = InstancetypeMatcher | PreferenceMatcher;

export class RevisionStore {
  constructor(
    private readonly client: KubeClient,
    private readonly sources: InstancetypeSources,
  ) {}

  /** Stores the revisions the VM lacks and records them in its status; `vm` takes the patched status. */
  async store(vm: StoredVM): Promise<StoredVM> {
    const instancetypeRef = await this.sync(vm.spec.instancetype, vm.status?.instancetypeRef, () =>
      this.createInstancetypeRevision(vm),
    );
    const preferenceRef = await this.sync(vm.spec.preference, vm.status?.preferenceRef, () =>
      this.createPreferenceRevision(vm),
    );
    const patch = [
      ...(instancetypeRef ? [{ op: "add", path: "/status/instancetypeRef", value: instancetypeRef }] : []),
      ...(preferenceRef ? [{ op: "add", path: "/status/preferenceRef", value: preferenceRef }] : []),
    ];
    if (patch.length === 0) return vm;
    // A VM without any status yet takes the whole status object.
    const body = vm.status === undefined ? [{ op: "add", path: "/status", value: {} }, ...patch] : patch;
    return this.client
      .resource<StoredVM>(virtualMachinesGVR)
      .patchStatus(vm.metadata?.namespace ?? "", vm.metadata?.name ?? "", "json", body);
  }

  /** The status ref the matcher calls for, or undefined when the recorded one already matches. */
  private async sync(
    matcher: Matcher | undefined,
    current: InstancetypeStatusRef | undefined,
    create: () => Promise<InstancetypeControllerRevision>,
  ): Promise<InstancetypeStatusRef | undefined> {
    if (matcher === undefined) return undefined;
    const ref: InstancetypeStatusRef = structuredClone(current ?? {});
    let clear = false;
    if (matcher.name && matcher.name !== ref.name) {
      ref.name = matcher.name;
      clear = true;
    }
    if (matcher.kind && matcher.kind !== ref.kind) {
      ref.kind = matcher.kind;
      clear = true;
    }
    if (matcher.inferFromVolume && matcher.inferFromVolume !== ref.inferFromVolume) {
      ref.inferFromVolume = matcher.inferFromVolume;
      clear = true;
    }
    if (clear) delete ref.controllerRevisionRef;
    if (matcher.inferFromVolumeFailurePolicy !== undefined) {
      ref.inferFromVolumeFailurePolicy = matcher.inferFromVolumeFailurePolicy;
    }
    if (matcher.revisionName && ref.controllerRevisionRef?.name !== matcher.revisionName) {
      ref.controllerRevisionRef = { name: matcher.revisionName };
    }
    if (ref.controllerRevisionRef === undefined) {
      const stored = await create();
      ref.controllerRevisionRef = { name: stored.metadata?.name ?? "" };
    }
    return isDeepStrictEqual(current ?? {}, ref) ? undefined : ref;
  }

  private async createInstancetypeRevision(vm: StoredVM): Promise<InstancetypeControllerRevision> {
    const matcher = vm.spec.instancetype!;
    const scope = matcherScope(matcher.kind, instancetypesGVR, clusterInstancetypesGVR);
    if (scope === undefined)
      throw new Error(`got unexpected kind in InstancetypeMatcher: ${matcher.kind ?? ""}`);
    const namespace = vm.metadata?.namespace ?? "";
    const object: InstancetypeObject =
      scope === "namespaced"
        ? await this.sources.instancetypes(namespace, matcher.name ?? "")
        : await this.sources.clusterInstancetypes("", matcher.name ?? "");
    // A VM whose template conflicts with the instance type gets no revision.
    const template = structuredClone(vm.spec.template);
    const conflicts = vmiApplier.applyToVMI(
      Path.of("spec", "template", "spec"),
      object.spec,
      undefined,
      template.spec ?? { domain: { devices: {} } },
      template.metadata ?? {},
    );
    if (conflicts.length > 0) throw new Conflicts(conflicts);
    const kind = scope === "namespaced" ? "VirtualMachineInstancetype" : "VirtualMachineClusterInstancetype";
    return this.storeRevision(newControllerRevision(vm, object, kind));
  }

  private async createPreferenceRevision(vm: StoredVM): Promise<InstancetypeControllerRevision> {
    const matcher = vm.spec.preference!;
    const scope = matcherScope(matcher.kind, preferencesGVR, clusterPreferencesGVR);
    if (scope === undefined)
      throw new Error(`got unexpected kind in PreferenceMatcher: ${matcher.kind ?? ""}`);
    const namespace = vm.metadata?.namespace ?? "";
    const object =
      scope === "namespaced"
        ? await this.sources.preferences(namespace, matcher.name ?? "")
        : await this.sources.clusterPreferences("", matcher.name ?? "");
    const kind = scope === "namespaced" ? "VirtualMachinePreference" : "VirtualMachineClusterPreference";
    return this.storeRevision(newControllerRevision(vm, object, kind));
  }

  /** Creates the revision; one already there is taken when it holds the same spec. */
  private async storeRevision(
    revision: InstancetypeControllerRevision,
  ): Promise<InstancetypeControllerRevision> {
    const revisions = this.client.resource<InstancetypeControllerRevision>(controllerRevisionsGVR);
    try {
      return await revisions.create(revision);
    } catch (err) {
      if (!isAlreadyExists(err)) throw new Error(`failed to create ControllerRevision: ${errorMessage(err)}`);
    }
    const name = revision.metadata?.name ?? "";
    let existing: InstancetypeControllerRevision;
    try {
      existing = await revisions.get(revision.metadata?.namespace ?? "", name);
    } catch (err) {
      throw new Error(`failed to get ControllerRevision: ${errorMessage(err)}`);
    }
    if (!isDeepStrictEqual(specOf(existing), specOf(revision))) {
      throw new Error(`found existing ControllerRevision with unexpected data: ${name}`);
    }
    return existing;
  }
}
