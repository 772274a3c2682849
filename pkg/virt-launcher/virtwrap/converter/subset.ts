// The converter's side of the implemented subset (pkg/virt-config/supported-subset.ts, which the
// validating webhook also asks): every use outside it, as the causes of an UnsupportedError.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { notYetSupportedInVMI } from "../../../virt-config/supported-subset.js";
import type { UnsupportedCause } from "./errors.js";

/** Every field of the VMI that would shape the domain but is outside the implemented subset. */
export function unsupportedFields(vmi: VirtualMachineInstance): UnsupportedCause[] {
  return notYetSupportedInVMI(vmi).map(({ field, message }) => ({ field: field.toString(), message }));
}
