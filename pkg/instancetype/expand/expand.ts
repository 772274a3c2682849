// Upstream pkg/instancetype/expand: a VM with its instance type and preference written into its template
// and the references dropped, as virt-api's expand-spec subresources and `virtctl expand` show it. A VM
// that references neither is returned as it is. The lookups are injected (virt-api's read the apiserver,
// the VM controller's its informers first), as is the applier (pkg/instancetype/apply's by default).
import { Path } from "../../api/field.js";
import type { ObjectMeta } from "../../api/generated/k8s.js";
import type { VirtualMachine, VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import { setDefaultVirtualMachineInstanceSpec } from "../../defaults/defaults.js";
import { setDefaultNetworkInterface } from "../../defaults/network.js";
import { setDefaultVolumeDisk } from "../../defaults/storage.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { vmiApplier } from "../apply/vmi.js";
import { Conflicts, type Conflict } from "../conflict/conflicts.js";

/** Upstream's specFinder: the spec of the VM's instance type, undefined when it references none. */
export interface SpecFinder {
  find(vm: VirtualMachine): Promise<VirtualMachineInstancetypeSpec | undefined>;
}

/** Upstream's preferenceSpecFinder: the spec of the VM's preference, undefined when it references none. */
export interface PreferenceSpecFinder {
  findPreference(vm: VirtualMachine): Promise<VirtualMachinePreferenceSpec | undefined>;
}

/** Upstream's vmiApplier: writes the specs into a VMI spec and its metadata; what the VM already sets conflicts. */
export interface VMIApplier {
  applyToVMI(
    field: Path,
    instancetypeSpec: VirtualMachineInstancetypeSpec | undefined,
    preferenceSpec: VirtualMachinePreferenceSpec | undefined,
    vmiSpec: VirtualMachineInstanceSpec,
    vmiMetadata: ObjectMeta,
  ): Conflict[];
}

export class Expander {
  constructor(
    /** The configuration in force when a VM is expanded (the defaults depend on it). */
    private readonly clusterConfig: () => ClusterConfig,
    private readonly instancetypeFinder: SpecFinder,
    private readonly preferenceFinder: PreferenceSpecFinder,
    private readonly applier: VMIApplier = vmiApplier,
  ) {}

  /** The expanded VM (a copy), or `vm` itself when it references no instance type or preference. */
  async expand(vm: VirtualMachine): Promise<VirtualMachine> {
    if (vm.spec.instancetype === undefined && vm.spec.preference === undefined) return vm;
    const instancetypeSpec = await this.instancetypeFinder.find(vm);
    const preferenceSpec = await this.preferenceFinder.findPreference(vm);
    const config = this.clusterConfig();
    const expanded = structuredClone(vm);
    const template = expanded.spec.template;
    const spec = (template.spec ??= { domain: { devices: {} } });
    setDefaultVolumeDisk(spec);
    const networkProblem = setDefaultNetworkInterface(config, spec);
    if (networkProblem !== undefined) throw new Error(networkProblem);
    // Upstream applies to the template as to a VMI until its VM applier words conflicts the same way.
    const conflicts = this.applier.applyToVMI(
      Path.of("spec", "template", "spec"),
      instancetypeSpec,
      preferenceSpec,
      spec,
      (template.metadata ??= {}),
    );
    if (conflicts.length > 0) throw new Conflicts(conflicts);
    // Defaults come after the specs, so that they never conflict with them.
    const defaulted = setDefaultVirtualMachineInstanceSpec(config, spec);
    if (!defaulted.ok) throw new Error(defaulted.message);
    template.spec = defaulted.value;
    delete expanded.spec.instancetype;
    delete expanded.spec.preference;
    if (expanded.status) {
      delete expanded.status.instancetypeRef;
      delete expanded.status.preferenceRef;
    }
    return expanded;
  }
}
