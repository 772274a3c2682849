// Upstream's FetchVirtualMachineInstance and FetchVirtualMachineInstanceForVM (pkg/virt-api/rest/
// subresource.go): the VMI a subresource acts on, named directly or through its VM, or the Status that
// says why there is none.
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import { errorMessage } from "../../util/error-message.js";
import {
  conflict,
  internalError,
  notFound,
  virtualMachineInstanceResource,
  virtualMachineResource,
  type Status,
} from "./status.js";

/** `undefined` means NotFound. */
export type Getter<T> = (namespace: string, name: string) => Promise<T | undefined>;

export async function fetchVMI(
  getVMI: Getter<VirtualMachineInstance>,
  namespace: string,
  name: string,
): Promise<VirtualMachineInstance | Status> {
  try {
    return (await getVMI(namespace, name)) ?? notFound(virtualMachineInstanceResource, name);
  } catch (error) {
    return internalError(`unable to retrieve vmi [${name}]: ${errorMessage(error)}`);
  }
}

/** The VM's VMI, once the VM created it and only if the VM owns it. */
export async function fetchVMIForVM(
  getVM: Getter<VirtualMachine>,
  getVMI: Getter<VirtualMachineInstance>,
  namespace: string,
  name: string,
): Promise<VirtualMachineInstance | Status> {
  let vm: VirtualMachine | undefined;
  try {
    vm = await getVM(namespace, name);
  } catch (error) {
    return internalError(`unable to retrieve vm [${name}]: ${errorMessage(error)}`);
  }
  if (!vm) return notFound(virtualMachineResource, name);
  if (vm.status?.created !== true) return conflict(virtualMachineResource, name, "VMI is not started");
  const vmi = await fetchVMI(getVMI, namespace, name);
  if ("code" in vmi) return vmi;
  const owned = (vmi.metadata?.ownerReferences ?? []).some((ref) => ref.uid === vm.metadata?.uid);
  // Upstream prints the (nil) error of the lookup that succeeded.
  return owned ? vmi : internalError(`unable to retrieve vmi [${name}] for vm: <nil>`);
}
