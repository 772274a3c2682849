// Upstream pkg/instancetype/controller/vm: what the VM controller does for a VM that references an
// instance type or preference. Each sync first checks that both exist (SyncErrors with reasons
// FailedFindInstancetype / FailedFindPreference, retried with backoff), then stores their copies in
// ControllerRevisions; a VMI being started gets the specs applied, its auto-attach preferences before
// the controller's own device defaults.
import { Path } from "../../../api/field.js";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import type { EventRecorder } from "../../../controller/events.js";
import type { StoredVM } from "../../../controller/resources.js";
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
import { RevisionStore } from "../../revision/store.js";

export const FailedFindInstancetypeReason = "FailedFindInstancetype";
export const FailedFindPreferenceReason = "FailedFindPreference";
const FailedCreateVirtualMachineReason = "FailedCreate";

export const InstancetypeAnnotation = "kubevirt.io/instancetype-name";
export const ClusterInstancetypeAnnotation = "kubevirt.io/cluster-instancetype-name";
export const PreferenceAnnotation = "kubevirt.io/preference-name";
export const ClusterPreferenceAnnotation = "kubevirt.io/cluster-preference-name";

const storeErrorMessage = (err: unknown) =>
  `error encountered while storing instancetype.kubevirt.io controllerRevisions: ${errorMessage(err)}`;

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

  constructor(
    client: KubeClient,
    sources: InstancetypeSources,
    private readonly clusterConfig: () => ClusterConfig,
    private readonly recorder: Pick<EventRecorder, "event">,
  ) {
    const finders = findersOf(sources);
    this.instancetypeFinder = finders.instancetype;
    this.preferenceFinder = finders.preference;
    this.store = new RevisionStore(client, sources);
  }

  /** Upstream's Sync: the VM as it is after its revisions are recorded. */
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
    if (policy !== "reference") {
      // Expanding into the stored VM (expand, expandAll) is not ported: say so rather than act otherwise.
      throw new SyncError(
        `instancetype referencePolicy ${policy} is not supported by kubevirt-ts yet`,
        FailedCreateVirtualMachineReason,
        false,
      );
    }
    try {
      return await this.store.store(vm);
    } catch (err) {
      const message = storeErrorMessage(err);
      this.recorder.event(vm, "Warning", FailedCreateVirtualMachineReason, message);
      throw new SyncError(message, FailedCreateVirtualMachineReason);
    }
  }

  /** The specs a VM references (undefined members for what it does not reference). */
  async specsFor(vm: VirtualMachine): Promise<ReferencedSpecs> {
    const instancetype = await this.instancetypeFinder.find(vm);
    const preference = await this.preferenceFinder.findPreference(vm);
    return {
      ...(instancetype ? { instancetype } : {}),
      ...(preference ? { preference } : {}),
    };
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
