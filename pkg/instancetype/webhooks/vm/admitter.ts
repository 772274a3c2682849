// Upstream pkg/instancetype/webhooks/vm: the VM admitter applies the referenced instance type and
// preference to a copy of the VM before validating it. A reference that cannot be found is only logged
// (the VM controller reports it); a spread the vCPUs cannot follow, or a template field the instance
// type also sets, is refused with the conflict's path.
import { Path } from "../../../api/field.js";
import type { StatusCause } from "../../../api/generated/k8s.js";
import type { VirtualMachine } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import { errorMessage } from "../../../util/error-message.js";
import { vmiApplier } from "../../apply/vmi.js";
import type { PreferenceSpecFinder, SpecFinder } from "../../expand/expand.js";
import type { InferHandler } from "../../infer/handler.js";
import { checkSpreadCPUTopology } from "../../preference/validation/cpu.js";

export interface AppliedVM {
  instancetype?: VirtualMachineInstancetypeSpec;
  preference?: VirtualMachinePreferenceSpec;
  causes: StatusCause[];
}

export class InstancetypeVMAdmitter {
  constructor(
    private readonly instancetypeFinder: SpecFinder,
    private readonly preferenceFinder: PreferenceSpecFinder,
    private readonly warn: (message: string) => void = () => undefined,
    private readonly inferHandler?: InferHandler,
  ) {}

  /** Upstream's inferFromVolume, in place; without a handler the matchers stay as they are. */
  async infer(vm: VirtualMachine): Promise<void> {
    await this.inferHandler?.infer(vm);
  }

  private async ignoringFailure<T>(what: string, find: () => Promise<T | undefined>): Promise<T | undefined> {
    try {
      return await find();
    } catch (err) {
      // Go's %q: the message quoted and escaped.
      this.warn(`ignoring err ${JSON.stringify(errorMessage(err))} when looking for ${what}`);
      return undefined;
    }
  }

  /** The VM's preference, or undefined when it has none or it cannot be found (the mutator's lookup). */
  async preferenceOf(vm: VirtualMachine): Promise<VirtualMachinePreferenceSpec | undefined> {
    try {
      return await this.preferenceFinder.findPreference(vm);
    } catch {
      return undefined;
    }
  }

  /** Applies the specs to `vm`'s template in place (pass a copy). */
  async applyToVM(vm: VirtualMachine): Promise<AppliedVM> {
    const instancetype = await this.ignoringFailure("instance type", () => this.instancetypeFinder.find(vm));
    const preference = await this.ignoringFailure("preference", () =>
      this.preferenceFinder.findPreference(vm),
    );
    if (instancetype === undefined && preference === undefined) return { causes: [] };
    const spread = checkSpreadCPUTopology(instancetype, preference);
    if (spread) return { causes: [spread.statusCause()] };
    const template = vm.spec.template;
    const conflicts = vmiApplier.applyToVMI(
      Path.of("spec", "template", "spec"),
      instancetype,
      preference,
      (template.spec ??= { domain: { devices: {} } }),
      (template.metadata ??= {}),
    );
    if (conflicts.length > 0) return { causes: conflicts.map((conflict) => conflict.statusCause()) };
    return { ...(instancetype ? { instancetype } : {}), ...(preference ? { preference } : {}), causes: [] };
  }
}
