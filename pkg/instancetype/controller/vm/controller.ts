// Upstream pkg/instancetype/controller/vm: what the VM controller does for a VM that references an
// instance type or preference. Each sync first checks that both exist (SyncErrors with reasons
// FailedFindInstancetype / FailedFindPreference, retried with backoff), then, as the KubeVirt CR's
// referencePolicy asks, stores their copies in ControllerRevisions (upgrading older ones) or expands them
// into the VM itself; a VMI being started gets the specs applied, its auto-attach preferences before
// the controller's own device defaults.
import { isDeepStrictEqual } from "node:util";
import { Path } from "../../../api/field.js";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import type { EventRecorder } from "../../../controller/events.js";
import { controllerRevisionsGVR, virtualMachinesGVR, type StoredVM } from "../../../controller/resources.js";
import { SyncError } from "../../../controller/sync-error.js";
import { errorMessage } from "../../../util/error-message.js";
import type { ClusterConfig } from "../../../virt-config/cluster-config.js";
import { vmiApplier } from "../../apply/vmi.js";
import { findersOf, type InstancetypeSources } from "../../find/client.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  instancetypesGVR,
  matcherScope,
  preferencesGVR,
} from "../../find/resources.js";
import type { InstancetypeSpecFinder, PreferenceSpecFinderImpl } from "../../find/spec.js";
import { applyAutoAttachPreferences } from "../../preference/apply/vmi.js";
import type { KubeClient } from "../../../controller/client.js";
import { hasControllerRevisionRef, RevisionStore } from "../../revision/store.js";
import { RevisionUpgrader } from "../../upgrade/handler.js";
import { Expander } from "../../expand/expand.js";

export const FailedFindInstancetypeReason = "FailedFindInstancetype";
export const FailedFindPreferenceReason = "FailedFindPreference";
const FailedCreateVirtualMachineReason = "FailedCreate";

export const InstancetypeAnnotation = "kubevirt.io/instancetype-name";
export const ClusterInstancetypeAnnotation = "kubevirt.io/cluster-instancetype-name";
export const PreferenceAnnotation = "kubevirt.io/preference-name";
export const ClusterPreferenceAnnotation = "kubevirt.io/cluster-preference-name";

const storeErrorMessage = (err: unknown) =>
  `error encountered while storing instancetype.kubevirt.io controllerRevisions: ${errorMessage(err)}`;
const upgradeErrorMessage = (err: unknown) =>
  `error encountered while upgrading instancetype.kubevirt.io controllerRevisions: ${errorMessage(err)}`;

export interface ReferencedSpecs {
  instancetype?: VirtualMachineInstancetypeSpec;
  preference?: VirtualMachinePreferenceSpec;
}

/** The VMI annotations naming the instance type and preference a VM references (by kind). */
function setReferenceAnnotations(vm: VirtualMachine, vmi: VirtualMachineInstance): void {
  const annotations = ((vmi.metadata ??= {}).annotations ??= {});
  const instancetype = vm.spec.instancetype;
  if (instancetype) {
    const scope = matcherScope(instancetype.kind, instancetypesGVR, clusterInstancetypesGVR);
    if (scope === "namespaced") annotations[InstancetypeAnnotation] = instancetype.name ?? "";
    if (scope === "cluster") annotations[ClusterInstancetypeAnnotation] = instancetype.name ?? "";
  }
  const preference = vm.spec.preference;
  if (preference) {
    const scope = matcherScope(preference.kind, preferencesGVR, clusterPreferencesGVR);
    if (scope === "namespaced") annotations[PreferenceAnnotation] = preference.name ?? "";
    if (scope === "cluster") annotations[ClusterPreferenceAnnotation] = preference.name ?? "";
  }
}

export class InstancetypeVMHandler {
  private readonly instancetypeFinder: InstancetypeSpecFinder;
  private readonly preferenceFinder: PreferenceSpecFinderImpl;
  private readonly store: RevisionStore;
  private readonly upgrader: RevisionUpgrader;
  private readonly expander: Expander;

  constructor(
    private readonly client: KubeClient,
    sources: InstancetypeSources,
    private readonly clusterConfig: () => ClusterConfig,
    private readonly recorder: Pick<EventRecorder, "event">,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    const finders = findersOf(sources);
    this.instancetypeFinder = finders.instancetype;
    this.preferenceFinder = finders.preference;
    this.store = new RevisionStore(client, sources);
    this.upgrader = new RevisionUpgrader(client, sources.revisions, log);
    this.expander = new Expander(clusterConfig, this.instancetypeFinder, this.preferenceFinder, vmiApplier);
  }

  /**
   * Upstream's Sync: with the `reference` policy the VM as it is after its revisions are recorded and
   * brought to the latest version; with `expand` / `expandAll` the VM rewritten without references.
   */
  async sync(vm: StoredVM): Promise<StoredVM> {
    if (vm.spec.instancetype === undefined && vm.spec.preference === undefined) return vm;
    try {
      await this.instancetypeFinder.find(vm);
    } catch (err) {
      throw new SyncError(errorMessage(err), FailedFindInstancetypeReason);
    }
    try {
      await this.preferenceFinder.findPreference(vm);
    } catch (err) {
      throw new SyncError(errorMessage(err), FailedFindPreferenceReason);
    }
    const policy = this.clusterConfig().getConfig().instancetype?.referencePolicy ?? "reference";
    if (policy === "expand" || policy === "expandAll") return this.handleExpand(vm, policy);
    let stored: StoredVM;
    try {
      stored = await this.store.store(vm);
    } catch (err) {
      throw this.failedCreate(vm, storeErrorMessage(err));
    }
    try {
      await this.upgrader.upgrade(stored);
    } catch (err) {
      throw this.failedCreate(vm, upgradeErrorMessage(err));
    }
    return stored;
  }

  private failedCreate(vm: VirtualMachine, message: string): SyncError {
    this.log(message);
    this.recorder.event(vm, "Warning", FailedCreateVirtualMachineReason, message);
    return new SyncError(message, FailedCreateVirtualMachineReason);
  }

  /** Writes the expanded VM (spec, then status) and deletes the revisions it no longer needs. */
  private async handleExpand(vm: StoredVM, policy: "expand" | "expandAll"): Promise<StoredVM> {
    // `expand` leaves VMs that already hold revisions referencing them; `expandAll` rewrites every VM.
    if (policy === "expand") {
      if (hasControllerRevisionRef(vm.status?.instancetypeRef)) {
        this.log("not expanding as instance type already has revisionName");
        return vm;
      }
      if (hasControllerRevisionRef(vm.status?.preferenceRef)) {
        this.log("not expanding as preference already has revisionName");
        return vm;
      }
    }
    let expanded: StoredVM;
    try {
      expanded = (await this.expander.expand(vm)) as StoredVM;
    } catch (err) {
      throw new Error(`error encountered while expanding into VirtualMachine: ${errorMessage(err)}`);
    }
    if (isDeepStrictEqual(vm, expanded)) return vm;
    const vms = this.client.resource<StoredVM>(virtualMachinesGVR);
    let updated: StoredVM;
    try {
      updated = await vms.update(expanded);
    } catch (err) {
      throw new Error(
        `error encountered when trying to update expanded VirtualMachine: ${errorMessage(err)}`,
      );
    }
    try {
      updated = await vms.updateStatus({ ...updated, status: expanded.status ?? {} } as StoredVM);
    } catch (err) {
      throw new Error(
        `error encountered when trying to update expanded VirtualMachine Status: ${errorMessage(err)}`,
      );
    }
    for (const ref of [vm.status?.instancetypeRef, vm.status?.preferenceRef]) {
      const revisionName = ref?.controllerRevisionRef?.name;
      if (!revisionName) continue;
      try {
        await this.client.resource(controllerRevisionsGVR).delete(vm.metadata?.namespace ?? "", revisionName);
      } catch (err) {
        throw new SyncError(
          `error encountered cleaning controllerRevision ${revisionName} after successfully expanding ` +
            `VirtualMachine ${vm.metadata?.name ?? ""}: ${errorMessage(err)}`,
          FailedCreateVirtualMachineReason,
        );
      }
    }
    return updated;
  }

  /** The specs a VM references (undefined members for what it does not reference). */
  async specsFor(vm: VirtualMachine): Promise<ReferencedSpecs> {
    const instancetype = await this.instancetypeFor(vm);
    const preference = await this.preferenceFor(vm);
    return {
      ...(instancetype ? { instancetype } : {}),
      ...(preference ? { preference } : {}),
    };
  }

  instancetypeFor(vm: VirtualMachine): Promise<VirtualMachineInstancetypeSpec | undefined> {
    return this.instancetypeFinder.find(vm);
  }

  preferenceFor(vm: VirtualMachine): Promise<VirtualMachinePreferenceSpec | undefined> {
    return this.preferenceFinder.findPreference(vm);
  }

  /**
   * Upstream's VM applier: the referenced specs written into `vm`'s template in place (pass a copy), as
   * the VM controller compares templates; throws upstream's message on conflicts.
   */
  async applyToVM(vm: VirtualMachine): Promise<void> {
    if (vm.spec.instancetype === undefined && vm.spec.preference === undefined) return;
    const specs = await this.specsFor(vm);
    const template = vm.spec.template;
    const conflicts = vmiApplier.applyToVMI(
      Path.of("spec"),
      specs.instancetype,
      specs.preference,
      (template.spec ??= { domain: { devices: {} } }),
      (template.metadata ??= {}),
    );
    if (conflicts.length > 0) {
      const paths = conflicts.map((conflict) => conflict.path.toString()).join(", ");
      throw new Error(`VM conflicts with instancetype spec in fields: [${paths}]`);
    }
  }

  /** Upstream's ApplyToVMI on a VMI being started; throws upstream's message on conflicts. */
  applyToVMI(vm: VirtualMachine, specs: ReferencedSpecs, vmi: VirtualMachineInstance): void {
    if (specs.instancetype === undefined && specs.preference === undefined) return;
    setReferenceAnnotations(vm, vmi);
    const conflicts = vmiApplier.applyToVMI(
      Path.of("spec"),
      specs.instancetype,
      specs.preference,
      vmi.spec,
      (vmi.metadata ??= {}),
    );
    if (conflicts.length > 0) {
      const paths = conflicts.map((conflict) => conflict.path.toString()).join(", ");
      throw new Error(`VMI conflicts with instancetype spec in fields: [${paths}]`);
    }
  }

  /** The preference's auto-attach choices, applied before the controller adds default devices. */
  applyAutoAttachPreferences(specs: ReferencedSpecs, vmi: VirtualMachineInstance): void {
    if (specs.preference) applyAutoAttachPreferences(specs.preference, vmi.spec);
  }
}
